-- headline.lua -- Hamlyn's row of the main job (lua-scripts/main.lua): one-word one-way
-- latency (a fast-mode message through the lower-level library, mean of 10 round trips /
-- 2), peak bandwidth (size / one-way latency of a 40 KB message with 4 KB packets, the
-- paper's best case) and the card's instructions per packet, beside the paper's numbers
-- (its latency figure is for 16 bytes, Table 4; its peak the 4 KB-packet asymptote).
local H = require "hamlyn.hamlyn_bench"

return function(platform)
  local ctx = H.setup { platform = platform or "hamlyn" }
  local prof = ctx.c:profile { firmware = ctx.fw, handlers = { "hamlyn_send_direct", "hamlyn_recv" }, nodes = { 0, 1 } }
  local iters = 10
  local lat = H.pingpong(ctx, 4, { mode = "fast", iters = iters, warmup = 1, verify = true })
  local insns = 0
  for n = 0, 1 do
    for _, s in ipairs(prof:summary(n)) do insns = insns + s.insns.count * s.insns.mean end
  end
  prof:detach()
  H.check_clean(ctx)
  local messages = 2 * (iters + 1)
  local big = H.setup { platform = platform or "hamlyn", packet = 4096, opts = { direct_max = 0 },
                        area = 64 * 1024, send_bytes = 64 * 1024 }
  local size = 40960
  local bw = H.pingpong(big, size, { mode = "normal", iters = 3, warmup = 1 })
  H.check_clean(big)
  return { {
    protocol = "Hamlyn", testbed = ctx.platform.name, latency_us = lat.mean_us,
    bandwidth_mb_s = size / bw.mean_us, bandwidth_bytes = size,
    insns_per_packet = insns / messages,
    paper = { source = "the Hamlyn paper (seeds/000), Table 4 (16-byte fast mode) and section 4.3 (4 KB packets)",
              testbed = "hamlyn", latency_us = H.paper.fast_raw_us, bandwidth_mb_s = H.paper.asymptotic_4k_mb_s },
  } }
end
