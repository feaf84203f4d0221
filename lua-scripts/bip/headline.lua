-- headline.lua -- BIP's row of the main job (lua-scripts/main.lua): one-word latency, peak
-- bandwidth and the MCP's instructions per packet on a platform (default: the paper's
-- testbed), beside the paper's numbers. Latency as the main table's column says (mean of
-- 10 round trips / 2); bandwidth the paper's way, by ping-pong (BIP's long messages are
-- ready mode: back-to-back sends would need a posted receive each), at 1 MB.
local B = require "bip.bip_bench"

return function(platform)
  local ctx = B.setup { platform = platform or "bip", max_bytes = 1 << 20 }
  local prof = ctx.c:profile { firmware = ctx.fw, handlers = { "bip_send_short", "bip_recv" }, nodes = { 0, 1 } }
  local iters = 10
  local lat = B.pingpong(ctx, 4, { iters = iters, warmup = 1, verify = true })
  local insns = 0
  for n = 0, 1 do
    for _, s in ipairs(prof:summary(n)) do insns = insns + s.insns.count * s.insns.mean end
  end
  prof:detach()
  local messages = 2 * (iters + 1) + 1 -- the round trips, the warm-up one and "ready"
  local bw = B.pingpong(ctx, 1 << 20, { iters = 3, warmup = 1 })
  B.check_clean(ctx)
  return { {
    protocol = "BIP", testbed = ctx.platform.name, latency_us = lat.mean_us,
    bandwidth_mb_s = bw.mb_s, bandwidth_bytes = bw.size,
    insns_per_packet = insns / messages,
    paper = { source = "the BIP paper (seeds/003), section 5: latency and throughput figures; bandwidth by ping-pong",
              testbed = "bip", latency_us = B.paper.latency_us, bandwidth_mb_s = B.paper.peak_mb_s },
  } }
end
