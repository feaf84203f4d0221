-- Bad packets never reach the host. Node 0 streams to node 1 over a link that corrupts
-- packets 3, 10 and 11 (link:set_faults); node 2 runs firmware/raw/test/inject.fw and sends
-- node 1 malformed packets: a wrong magic, a runt, a header whose length lies, and one
-- longer than raw's receive buffer. Node 1's firmware counts each kind and delivers exactly
-- the good messages, intact and in order. Refused descriptors (too long, no route, no such
-- node) are counted and still complete.
local common = require "common"
local raw, traffic = common.raw, common.traffic

local c, net, t = common.raw_cluster(3)
local N, SIZE = 30, 512
local corrupt = { [3] = true, [10] = true, [11] = true }
c:node_tx(0):set_faults { corrupt = { 3, 10, 11 } }

-- Node 2 becomes the injector. raw.setup wrote raw's control block into its SRAM, so the
-- injector's pinned block is cleared explicitly.
local inj = lk.firmware { sources = { "firmware/raw/test/inject.fw" } }
local node2 = c:node(2)
node2:load(inj)
local base, lay = inj:symbol("inject"), inj:layout("Inject")
local f = function(name) return base + lay.fields[name].offset end
node2:sram_write32(f("requests"), 0)
node2:sram_write32(f("done"), 0)
node2:start()

local route = c:route(2, 1)
local function header(magic, src, len, seq) return string.pack(">I4I4I4I4", magic, src, len, seq) end
local MAGIC = 0x52415730
local packets = {
  { what = "bad magic", bytes = route .. header(0xDEADBEEF, 2, 8, 0) .. string.rep("x", 8) },
  { what = "runt", bytes = route .. string.rep("r", 8) },
  { what = "length lie", bytes = route .. header(MAGIC, 2, 100, 0) .. string.rep("l", 50) },
  { what = "oversize", bytes = route .. header(MAGIC, 2, 6000, 0) .. string.rep("o", 6000) },
}
local at = inj:symbol("packet")
local ranges = {}
for k, pk in ipairs(packets) do
  node2:sram_write(at, pk.bytes)
  ranges[k] = { at, at + #pk.bytes }
  at = at + (#pk.bytes + 3) // 4 * 4
end

local got = {}
c:spawn(2, "inject", function(p)
  for k, r in ipairs(ranges) do
    p:advance_ns(15000)
    p:pio_write32(f("start"), r[1])
    p:pio_write32(f("end"), r[2])
    p:pio_write32(f("requests"), k)
  end
end)
c:spawn(0, "tx", function(p)
  local ep = raw.endpoint(p)
  ep:post(1, 5000, 0)   -- longer than one packet
  ep:post(63, 16, 0)    -- a node the route table has no route to
  ep:post(200, 16, 0)   -- beyond the route table
  for s = 0, N - 1 do ep:send(1, traffic.pattern(0, s, SIZE)) end
  ep:flush()
end)
c:spawn(1, "rx", function(p)
  local ep = raw.endpoint(p)
  for _ = 1, N - 3 do
    local src, data, seq = ep:recv()
    lk.assert(src == 0, "a message from node " .. src .. " was delivered")
    lk.assert(not corrupt[seq], "corrupted message " .. seq .. " was delivered")
    lk.assert(data == traffic.pattern(0, seq, SIZE), "message " .. seq .. " arrived different")
    got[#got + 1] = seq
  end
end)
c:run { for_ns = 5e6 }

lk.assert(#got == N - 3, ("node 1 got %d messages, expected %d"):format(#got, N - 3))
for k = 2, #got do lk.assert(got[k] > got[k - 1], "out of order at " .. k) end
local k1, k0 = net:counters(1), net:counters(0)
print(("node 1: delivered %d, bad crc %d, magic %d, len %d; node 0: bad_send %d, sent %d")
  :format(k1.delivered, k1.bad_crc, k1.bad_magic, k1.bad_len, k0.bad_send, k0.sent))
lk.assert(k1.delivered == N - 3, "delivered " .. k1.delivered)
lk.assert(k1.bad_crc == 3, "bad_crc " .. k1.bad_crc .. ", expected 3")
lk.assert(c:node(1):counters().crc_errors == 3, "the chip saw " .. c:node(1):counters().crc_errors .. " CRC errors")
lk.assert(k1.bad_magic == 1, "bad_magic " .. k1.bad_magic .. ", expected 1")
lk.assert(k1.bad_len == 3, "bad_len " .. k1.bad_len .. ", expected 3 (runt, length lie, oversize)")
lk.assert(k0.bad_send == 3 and k0.sent == N and k0.send_consumed == N + 3,
  ("node 0: bad_send %d sent %d consumed %d"):format(k0.bad_send, k0.sent, k0.send_consumed))
lk.assert(node2:sram_read32(f("done")) == #packets, "the injector sent " .. node2:sram_read32(f("done")))
-- Nothing more waits in node 1's completion ring.
local st = net.nodes[1]
local e = st.recv_cq + (st.consumed % net.slots) * 16
lk.assert(string.unpack(">I4", c:node(1):host_read(e, 4)) ~= st.consumed + 1,
  "an extra completion was written")
print("ok")
