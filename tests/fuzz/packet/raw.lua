-- Packet fuzzing of the raw control program (firmware/raw/raw.fw, docs/raw.md): PACKETS
-- arrive at node 1 while its host receives; every packet is delivered or counted bad,
-- nothing outside the receive ring and completion ring changes, and a message sent
-- afterwards arrives intact.
local common = dofile((arg[0]:match("^(.*/)") or "./") .. "common.lua")
local raw = require "raw.raw"

local fw = lk.firmware { sources = { "firmware/raw/raw.fw" }, opt = "O2" }
local c = lk.cluster { platform = "vmmc", nodes = 2 }
local n1 = c:node(1)
local lo = common.sentinel(n1)
local net = raw.setup(c, fw)
local hi = common.sentinel(n1) + common.SENTINEL
local st = net.nodes[1]
local allowed = { { st.recv_ring, net.slots * net.slot_bytes }, { st.recv_cq, net.slots * net.map.cq_size } }
local snap = common.snapshot(n1, lo, hi)

local LEGIT = "a legitimate message after the fuzzed ones " .. string.rep("\1\2\3\254", 40)
local got
c:spawn(1, "rx", function(p)
  local ep = raw.endpoint(p)
  while true do
    local src, data = ep:recv()
    if src == 0 and data == LEGIT then got = data return end
  end
end)
c:run { for_ns = common.delivery_ns(common.inject_all(c, 0, 1)) }

local k = net:counters(1)
local accounted = k.delivered + k.bad_crc + k.bad_magic + k.bad_len
assert(accounted == #PACKETS, ("raw: %d packets injected, %d accounted for (delivered %d, bad_crc %d, bad_magic %d, bad_len %d)")
       :format(#PACKETS, accounted, k.delivered, k.bad_crc, k.bad_magic, k.bad_len))

c:spawn(0, "tx", function(p) raw.endpoint(p):send(1, LEGIT) end)
c:run { for_ns = 5e6 }
assert(got == LEGIT, "raw: the legitimate message did not arrive intact")
common.compare(snap, allowed, "raw")
