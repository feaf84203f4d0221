-- Packet fuzzing of the VMMC LCP (firmware/vmmc/vmmc.fw, docs/vmmc.md): node 1 exports a
-- receive buffer to node 0, PACKETS arrive at node 1, then node 0 sends into the buffer.
-- Every packet is received or counted bad (bad_crc, bad_magic, bad_len, bad_dest), the
-- host pages around the library's (sentinels) and a buffer node 1 never exported are
-- unchanged, and the message sent afterwards arrives intact.
local common = dofile((arg[0]:match("^(.*/)") or "./") .. "common.lua")

local fw = lk.firmware { sources = { "firmware/vmmc/vmmc.fw" }, opt = "O2" }
local c = lk.cluster { platform = "vmmc", nodes = 2 }
local n1 = c:node(1)
local lo = common.sentinel(n1)
local V = lk.vmmc(c, fw)
local a, b = V:open(0), V:open(1)
local sbuf, rbuf, bait = a:alloc(8192), b:alloc(8192), b:alloc(8192)
local hi = common.sentinel(n1)
local pattern = string.rep("\165\90\15\240", 2048)
b:write(bait, pattern)

local t_end = 0
local function phase(node, name, fn)
  c:spawn(node, name, function(p)
    fn(p)
    t_end = math.max(t_end, p:now_ns())
  end, math.max(c:now_ns(), t_end))
  c:run { for_ns = 5e6 }
end
local id, proxy
phase(1, "export", function(p) id = b:export(p, rbuf, 8192, { allow = { a:id() } }) end)
phase(0, "import", function(p) proxy = assert(a:import(p, 1, id)) end)
local lo_snap = common.snapshot(n1, lo, lo + common.SENTINEL)
local hi_snap = common.snapshot(n1, hi, hi + common.SENTINEL)

local k0 = V:counters(1)
c:run { for_ns = common.delivery_ns(common.inject_all(c, 0, 1)) }
local k = V:counters(1)
local accounted = (k.received - k0.received) + (k.bad_crc - k0.bad_crc) + (k.bad_magic - k0.bad_magic)
                  + (k.bad_len - k0.bad_len) + (k.bad_dest - k0.bad_dest)
assert(accounted == #PACKETS, ("vmmc: %d packets injected, %d accounted for"):format(#PACKETS, accounted))

local LEGIT = "a legitimate message after the fuzzed ones " .. string.rep("\1\2\3\254", 40)
a:write(sbuf, LEGIT)
local r
phase(0, "send", function(p) r = a:send(p, sbuf, proxy + 64, #LEGIT) end)
c:run { for_ns = 1e6 }
assert(r and r.ok, "vmmc: the legitimate send failed: " .. tostring(r and r.error))
assert(b:read(rbuf + 64, #LEGIT) == LEGIT, "vmmc: the legitimate message did not arrive intact")
assert(b:read(bait, #pattern) == pattern, "vmmc: a buffer node 1 never exported changed")
common.compare(lo_snap, {}, "vmmc")
common.compare(hi_snap, {}, "vmmc")
