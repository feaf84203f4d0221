-- headline.lua -- UDM's row of the main job (lua-scripts/main.lua): two FUGU nodes
-- (firmware/udm: the kernel, the fast path, C handlers upcalled by user-level interrupt),
-- one-word one-way latency (mean round trip / 2), one-way bandwidth of full 16-word
-- messages (56 payload bytes each, the receiver reading every word), and the instructions
-- per message of the whole message path, send + receive (udm_bench.lua).
-- platform nil: UDM's testbed, FUGU nodes at udm_experiment.lua's 100 MHz on vmmc.lua's
-- link (udm.lua gives no clock and no network: the paper counts cycles); a platform: its
-- link and its NIC's clock for the node processor.
-- The paper states Table 4 in cycles (87 to receive a null message at user level), not in
-- time, bandwidth or instructions: its row has nothing to compare, and docs/udm.md has the
-- cycle-for-cycle comparison (tests/udm).
local B = require "udm.udm_bench"

return function(platform)
  local p = B.pingpong { platform = platform }
  local s = B.stream { platform = platform }
  return { {
    protocol = "UDM", testbed = platform and (type(platform) == "table" and platform.name or platform) or "udm",
    latency_us = p.one_way_us, bandwidth_mb_s = s.mb_s, bandwidth_bytes = s.bytes,
    insns_per_packet = p.insns_per_message,
    paper = { source = "the UDM paper (seeds/001), Table 4: cycles only (user-level receive 87, kernel 54, polling 9); FUGU nodes here at 100 MHz on vmmc.lua's link",
              testbed = "udm" },
  } }
end
