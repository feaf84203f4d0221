-- lk.dart and lk.cluster's `atm`: the cell encoding, the errors (function, argument,
-- field), and the driver, endpoints and senders over the firmware: a store indirect with
-- post-increment (one cell per 32 bytes, the address register advancing), a remote read
-- answered without either host, a conditional that reaches the host as an event.
local fw = lk.firmware { sources = { "firmware/dart/dart.fw" }, opt = "O2" }
local function fails(want, ...)
  local ok, e = pcall(...)
  assert(not ok, "expected an error: " .. want)
  assert(tostring(e):find(want, 1, true), "expected '" .. want .. "' in: " .. tostring(e))
end
local function cluster(atm) return lk.cluster { platform = "dart", nic = "vmmc", atm = atm } end

-- The encoding (docs/dart.md, "The cell").
local w = lk.dart_cell { op = "write", amode = "indirect", i = 1, rega = { op = "add", dst = "i", src = "operand" },
                         operand = 32 }
assert(w.op == (1 << 24 | 0xFF << 16 | 1 << 14), ("op %08x"):format(w.op))
assert(w.operand == 32 and w.index == 1 << 24 and w.regops == 0x40 << 24, ("%08x %08x"):format(w.index, w.regops))
local c2 = lk.dart_cell { op = 3, mask = 0x0F, j = 2, k = 3, cond = { cmp = "ges", left = "k", right = "value" },
                          rega = { op = "load", dst = "j", src = "k" }, regb = { op = "shr", dst = "i", src = "j" } }
assert(c2.op == (3 << 24 | 0x0F << 16) and c2.index == (2 << 16 | 3 << 8 | 0x6B) and c2.regops == (0x16 << 24 | 0xA1 << 16),
       ("%08x %08x %08x"):format(c2.op, c2.index, c2.regops))

fails("lk.dart_cell: argument 1 field 'op': expected one of \"nop\", \"write\"", lk.dart_cell, { op = "wrte" })
fails("lk.dart_cell: argument 1 field 'rega.dst': expected one of \"i\", \"j\", \"k\"", lk.dart_cell,
      { op = "nop", rega = { op = "add", dst = "x" } })
fails("lk.dart_cell: argument 1 field 'mask': expected an integer in 0..255", lk.dart_cell, { op = "write", mask = 256 })
fails("lk.dart_cell: argument 1 field 'cond.cmp': required", lk.dart_cell, { op = "nop", cond = { left = "i" } })
fails("lk.cluster: argument 1 field 'atm': the platform 'vmmc' has no `cells` section", lk.cluster,
      { platform = "vmmc", atm = {} })
fails("lk.cluster: argument 1 field 'atm.link': expected a projected link's index in 1..2, got number 3", cluster,
      { link = 3 })
fails("lk.cluster: argument 1 field 'atm.switch.port': unknown field", cluster, { switch = { port = 4 } })
fails("lk.dart: argument 1: the cluster has no ATM network", lk.dart, lk.cluster { platform = "dart", nic = "vmmc" }, fw)

-- c:atm(): the 140 Mb/s TAXI link has no framing: a 53-byte cell takes 424 bits / 140 Mb/s.
local c = cluster { link = "line", switch = true }
local atm = c:atm()
assert(atm.line_bits_per_s == 140000000 and atm.cell_rate_num == atm.cell_rate_den)
assert(math.abs(atm.cell_ns - 424 / 140e6 * 1e9) < 0.01, atm.cell_ns)
assert(atm.switch and atm.switch.ports == 4 and atm.switch.transit_ns == 2000)
assert(cluster { link = 2 }:atm().line_bits_per_s == 622080000 and cluster {}:atm().switch == nil)

local D = lk.dart(c, fw)
fails("lk.dart: argument 1: ", lk.dart, c, fw) -- one Dart per cluster
local a, b = D:open_endpoint(0, 16384), D:open_endpoint(1, 16384)
local a2 = D:open_endpoint(0, 4096, a) -- a second endpoint of a's process
assert(a:node() == 0 and b:node() == 1 and a:bytes() == 16384 and a2:asid() == a:asid() and a2:index() ~= a:index())
fails("Dart:open_endpoint: argument 3: that endpoint's process runs on node 0, not 1", D.open_endpoint, D, 1, 4096, a)
fails("Dart:connect: argument 2: both endpoints are on node 0", D.connect, D, a, a2, 4)
local conn = D:connect(a, b, 4)
local info = conn:info()
assert(info.node_a == 0 and info.node_b == 1 and info.vci_ab >= 32 and info.vci_ba ~= info.vci_ab and info.reg_count == 4)
fails("DartConnection:sender: argument 1: expected \"a\" or \"b\", got \"c\"", conn.sender, conn, "c")
local sa, sb = conn:sender("a"), conn:sender("b")
D:go()
fails("Dart:go: the cards already run", D.go, D)

local blocks = {}
for m = 1, 3 do blocks[m] = ("%02d"):format(m):rep(16) end
a:write(a:base() + 0x100, table.concat(blocks))
a:write(a:base() + 0x40, string.pack(">I4", 0x600)) -- a READ's data word 0: where the answer goes
b:write(b:base() + 0x1230, ("R"):rep(16) .. ("r"):rep(16))
local done = false
c:spawn(0, "a", function(p)
  fails("DartSender:send: argument 2 field 'amode': expected one of", sa.send, sa, p, { op = "write", amode = "x" }, 0, 32)
  -- Store indirect with post-increment: register i (b's window) advances by 32 a cell.
  for m = 1, 3 do
    sa:send(p, { op = "write", amode = "indirect", i = 0, rega = { op = "add", dst = "i", src = "operand" }, operand = 32 },
            0x100 + 32 * (m - 1), 32)
  end
  fails("DartEndpoint:wait_word: argument 1: the process runs on node 0, the endpoint is on node 1", b.wait_word, b, p,
        b:base(), 0)
end)
c:run {}
done = false
c:spawn(1, "b", function(p)
  b:wait_word(p, b:base() + 64 + 28, string.unpack(">I4", blocks[3], 29))
  -- The conditional: j = operand (5), then j == operand holds: a COND event at node 0,
  -- the receiver of b's cells.
  sb:send(p, { op = "nop", j = 1, rega = { op = "load", dst = "j", src = "operand" }, operand = 5,
               cond = { cmp = "eq", left = "j", right = "operand" } }, 0, 0)
  done = true
end)
c:run {}
assert(done)
c:spawn(0, "reader", function(p)
  sa:send(p, { op = "read", mask = 0x0F, operand = 0x1230 }, 0x40, 4)
  a:wait_word(p, a:base() + 0x60C, string.unpack(">I4", "RRRR"))
end)
c:run {}
-- The reader's process saw the answer land; the card counts it a few instructions later.
c:run { for_ns = 1e5, stop_when_processes_done = false }
assert(b:read(b:base(), 96) == table.concat(blocks), "the three cells' bytes")
assert(D:reg(1, info.regs_b) == 96, "register i advanced by 32 per cell: " .. D:reg(1, info.regs_b))
assert(a:read(a:base() + 0x600, 32) == ("R"):rep(16) .. ("\0"):rep(16), "the remote read's answer, masked")
local k0, k1 = D:counters(0), D:counters(1)
assert(k1.writes == 3 and k1.reads == 1 and k0.writes == 1 and k0.conds == 1 and k0.nops == 1 and k0.cells == 2 and k1.cells == 4, "counters")
assert(k0.bad_vci + k1.bad_vci + k0.bad_send + k1.bad_send + k0.busy_refused == 0)
assert(sa:sends() == 4 and sb:sends() == 1 and sa:node() == 0)
-- First touches: node 0's page 0 (sources, the read's answer), node 1's pages 0 and 1.
assert(D:misses_served(0) == 1 and D:misses_served(1) == 2, D:misses_served(0) .. " " .. D:misses_served(1))
local cond
for _, e in ipairs(D:events(0)) do if e.name == "COND" then cond = e end end
assert(cond and cond.vci == info.vci_ba, "a COND event at node 0 on b's VCI")
assert(D:constant("SEND_SLOTS") == 16)
print("lk.dart bindings: ok")
