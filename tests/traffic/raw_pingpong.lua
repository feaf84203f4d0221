-- Ping-pong over raw: every size from 0 to 4096 bytes (odd ones included) comes back byte
-- for byte; latency grows with size; nothing is counted bad.
local common = require "common"
local traffic = common.traffic

local c, net, t = common.raw_cluster(2)
local sizes = { 0, 1, 3, 4, 5, 63, 64, 255, 1000, 1024, 4093, 4095, 4096 }
local rows = traffic.pingpong(t, { sizes = sizes, count = 10, warmup = 2 })
io.write(traffic.format(rows, "raw ping-pong, vmmc platform"))
common.check_rows(rows, "pingpong")
lk.assert(#rows == #sizes, "one row per size")
lk.assert(rows[#rows].lat_median_us > rows[1].lat_median_us,
  "4096 bytes should take longer than 0 bytes")
local tot = common.check_clean(net, 2, "pingpong")
-- 12 round trips per size: 2 packets each.
lk.assert(tot.delivered == #sizes * 12 * 2,
  ("expected %d deliveries, got %d"):format(#sizes * 24, tot.delivered))

-- A message above the one-packet limit is refused by the library, before any PIO.
c:spawn(0, "too-big", function(p)
  local ep = common.raw.endpoint(p)
  local ok, err = pcall(ep.send, ep, 1, 4097)
  lk.assert(not ok and tostring(err):find("at most 4096"), "4097 bytes should be refused: " .. tostring(err))
end, c:now_ns())
c:run { for_ns = 1e5 }
print("ok")
