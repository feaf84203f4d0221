-- Writes a pcapng capture of a short exchange of one protocol (two nodes through a
-- switch; ping-pongs of a few sizes in both directions, so short and multi-packet
-- messages) for the Wireshark dissector test (wireshark_test.py).
--   lanaikit run tests/tools/capture.lua --protocol vmmc|raw --out FILE.pcapng
local args = require "args"
local o = args.parse(arg, { protocol = "vmmc", out = "" },
  "usage: capture.lua --protocol vmmc|raw --out FILE.pcapng")
assert(o.out ~= "", "--out FILE.pcapng is required")
local cluster, exchange
if o.protocol == "vmmc" then
  local B = require "vmmc.vmmc_bench"
  local ctx = B.setup { nodes = 2, max_bytes = 8192 }
  cluster = ctx.c
  exchange = function() B.pingpong(ctx, { 4, 100, 5000 }, { iters = 2, warmup = 0 }) end
elseif o.protocol == "raw" then
  local raw = require "raw.raw"
  local traffic = require "traffic"
  local platform = lk.platform("vmmc")
  local fw = lk.firmware { sources = { "firmware/raw/raw.fw" }, opt = "O2" }
  cluster = lk.cluster { platform = platform, nodes = 2 }
  local t = raw.setup(cluster, fw, { platform = platform }):transport()
  exchange = function() traffic.pingpong(t, { sizes = { 4, 100, 3000 }, count = 2, warmup = 0 }) end
else
  error("--protocol: vmmc or raw, not " .. o.protocol)
end
local tl = cluster:timeline { pcap = o.out }
exchange()
print(string.format("captured %d packets", tl:finish().packets))
