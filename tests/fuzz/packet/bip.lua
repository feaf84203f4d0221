-- Packet fuzzing of the BIP control program (firmware/bip/bip.fw, docs/bip.md): PACKETS
-- arrive at node 1 (from node 0's link); then node 2 sends a message on tag 2 into a
-- buffer posted for it. The firmware must not fault, the host pages around the library's
-- (sentinels) and a buffer never posted are unchanged, and the message sent afterwards
-- arrives intact.
local common = dofile((arg[0]:match("^(.*/)") or "./") .. "common.lua")

local fw = lk.firmware { sources = { "firmware/bip/bip.fw" }, opt = "O2" }
local c = lk.cluster { platform = "bip", nodes = 3 }
local n1 = c:node(1)
local lo = common.sentinel(n1)
local B = lk.bip(c, fw)
local e2, e1 = B:endpoint(2), B:endpoint(1)
local sbuf, rbuf, bait = e2:alloc(8192), e1:alloc(8192), e1:alloc(8192)
local hi = common.sentinel(n1)
local pattern = string.rep("\165\90\15\240", 2048)
e1:write(bait, pattern)
local lo_snap = common.snapshot(n1, lo, lo + common.SENTINEL)
local hi_snap = common.snapshot(n1, hi, hi + common.SENTINEL)

c:run { for_ns = common.delivery_ns(common.inject_all(c, 0, 1)) }

local LEGIT = "a legitimate message after the fuzzed ones " .. string.rep("\1\2\3\254", 40)
e2:write(sbuf, LEGIT)
local m, r
c:spawn(1, "rx", function(p) m = e1:recv(p, 2, rbuf, 8192) end, c:now_ns())
c:spawn(2, "tx", function(p) r = e2:send(p, 1, 2, sbuf, #LEGIT) end, c:now_ns() + 1e4)
c:run { for_ns = 5e6 }
assert(r and r.ok, "bip: the legitimate send failed: " .. tostring(r and r.error))
assert(m and m.ok and m.src == 2 and m.len == #LEGIT, "bip: the legitimate message was not received: "
       .. tostring(m and (m.error or m.len)))
assert(e1:read(rbuf, #LEGIT) == LEGIT, "bip: the legitimate message did not arrive intact")
assert(e1:read(bait, #pattern) == pattern, "bip: a buffer never posted changed")
common.compare(lo_snap, {}, "bip")
common.compare(hi_snap, {}, "bip")
