-- headline.lua -- DART's row of the main job (lua-scripts/main.lua): the 32-byte one-way
-- latency (the paper's measurement: one cell's data block, a user-level WRITE through the
-- Send Registers, mean of 10 round trips / 2, back to back), the one-way bandwidth of one
-- 4096-byte WRITE_MULTIPLE block (size / its one-way time: streaming blocks back to back
-- overruns the 33 MHz receiver's cell ring, docs/dart.md) and the card's instructions per
-- message (dart_send + dart_cell, c:profile), beside the paper's 24.5 us.
-- platform nil: DART's testbed (dart.lua, 140 Mb/s, NIC and PCI borrowed from vmmc.lua);
-- a platform: its NIC, host and PCI with DART's own ATM link ("DART is ATM, so its
-- common-testbed row uses the common host and PCI with its own link").
local B = require "dart.dart_bench"

return function(platform)
  local ctx = B.setup { platform = platform, link = "line" }
  local r = B.pingpong(ctx, { iters = 10, warmup = 2, profile = true })
  local size = 4096
  local bw = B.blocks(B.setup { platform = platform, link = "line" }, size, 1)
  return { {
    protocol = "DART", testbed = ctx.platform.name, latency_us = r.one_way_us,
    bandwidth_mb_s = bw.mb_s, bandwidth_bytes = size,
    insns_per_packet = r.parts.send_insns + r.parts.recv_insns,
    paper = { source = "the DART paper (seeds/002), section 3: 32 bytes, software DART, no switch; NIC and PCI borrowed from vmmc.lua",
              testbed = "dart", latency_us = B.paper.software_us },
  } }
end
