-- headline.lua -- VMMC's row of the main job (lua-scripts/main.lua): one-word latency,
-- peak one-way bandwidth and the LCP's instructions per packet on a platform (default:
-- the paper's testbed), beside the paper's numbers. Same method as main.lua.
local B = require "vmmc.vmmc_bench"

return function(platform)
  platform = platform or "vmmc"
  local ctx = B.setup { nodes = 2, max_bytes = 65536, platform = platform }
  local lat = B.pingpong(ctx, { 4 }, { iters = 10, warmup = 1 })[1]
  local peak = { mb_s = 0 }
  for _, r in ipairs(B.stream(ctx, { 4096, 16384, 65536 }, { bytes = 1 << 20, min_count = 8, max_count = 512 })) do
    if r.mb_s > peak.mb_s then peak = r end
  end
  B.check_clean(ctx)
  return { {
    protocol = "VMMC", testbed = ctx.platform.name, latency_us = lat.one_way_us,
    bandwidth_mb_s = peak.mb_s, bandwidth_bytes = peak.size,
    insns_per_packet = lat.insns_send_short and lat.insns_recv and lat.insns_send_short + lat.insns_recv,
    paper = { source = "the VMMC paper (seeds/004), section 5.3: Figures 2 and 3", testbed = "vmmc",
              latency_us = B.paper.latency_us, bandwidth_mb_s = B.paper.bandwidth_mb_s },
  } }
end
