-- Packet fuzzing of the raw control program (firmware/raw/raw.fw, docs/raw.md): every
-- injected packet is delivered or counted bad, node 1's host memory changes only in its
-- receive ring and completion ring, and a message sent afterwards arrives intact.
local common = dofile((arg[0]:match("^(.*/)") or "./") .. "common.lua")
local raw = require "raw.raw"

local net
local s = common.cluster { firmware = "firmware/raw/raw.fw", platform = "vmmc",
                           setup = function(s) net = raw.setup(s.c, s.fw) end }
local st = net.nodes[common.TO]
local snap = common.snapshot(s)

-- Node 1's host takes whatever arrives (fuzzed packets included) until the legitimate
-- message; the fuzzed ones alone never fill the ring (32 slots, at most 16 packets).
local got
s.c:spawn(common.TO, "rx", function(p)
  local ep = raw.endpoint(p)
  while true do
    local src, data = ep:recv()
    if src == common.FROM and data == common.LEGIT then got = data return end
  end
end)
common.inject_all(s)
common.accounted("raw", { "delivered", "bad_crc", "bad_magic", "bad_len" }, net:counters(common.TO))

common.phase(s, { { common.FROM, "tx", function(p) raw.endpoint(p):send(common.TO, common.LEGIT) end } })
assert(got == common.LEGIT, "raw: the legitimate message did not arrive intact")
common.compare(snap, { { st.recv_ring, net.slots * net.slot_bytes },
                       { st.recv_cq, net.slots * net.map.cq_size } }, "raw")
