-- trace_hash.lua -- one fixed VMMC exchange and the event-level trace hash it leaves: the
-- quick check that a change to the host library, the kit or the models kept every event
-- (time and order) identical. Run it before and after; the hash and the end time must match.
--
--   lanaikit run lua-scripts/vmmc/trace_hash.lua
--
-- Twenty synchronous sends of 4 B to 60 KB from fresh pages (TLB misses, the driver's
-- fills) after an export and an import through the daemons.
local plat = lk.platform("vmmc")
local fw = lk.firmware { sources = { "firmware/vmmc/vmmc.fw" }, opt = "O2" }
local c = lk.cluster { platform = plat, nodes = 2 }
local V = lk.vmmc(c, fw)
local a, b = V:open(0), V:open(1)
local rbuf = b:alloc(65536)
local sbuf = a:alloc(65536)
local id
c:spawn(1, "rx", function(p) id = b:export(p, rbuf, 65536) end)
c:run { for_ns = 2e6 }
c:spawn(0, "tx", function(p)
  local imp = a:import(p, 1, id)
  for i = 1, 20 do a:send(p, sbuf, imp, (i * 997) % 65536 + 4) end
end)
c:run { for_ns = 20e6 }
print(string.format("trace hash %016x at %.3f us", lk.trace_hash(), c:now_ns() / 1000))
