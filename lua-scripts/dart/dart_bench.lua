-- dart_bench.lua -- the DART experiments' common part: a two-node cluster on an ATM
-- network (back to back or through one cell switch) with lk.dart, an endpoint per node in
-- a process of its own, one connection, and the paper's measurement (../shared/seeds/002,
-- section 3): a 32-byte application-to-application transfer, here a ping-pong of 32-byte
-- WRITEs sent at user level through the Send Registers and noticed by the other process
-- polling its endpoint; one-way time = round trip / 2.
--
--   local B = require "dart.dart_bench"
--   local ctx = B.setup { link = 2, switch = true }      -- DART's testbed, OC-12c, a switch
--   local r = B.pingpong(ctx, { iters = 20, profile = true })
--   -- r.one_way_us, r.parts (the per-message breakdown, B.breakdown)
--
-- The paper's card has no LANai: DART's Operation Logic runs on the emulated NIC CPU, by
-- default vmmc.lua's LANai 4.1 (33 MHz) with its PCI, borrowed (docs/dart.md).
local stats = require "stats"

local B = {}

-- The paper's numbers (seeds/002, section 3; PLATFORMS.md "DART (002)").
B.paper = {
  software_us = 24.5,        -- in-kernel software DART, 140 Mb/s TCA-100, no switch
  software_switch_us = 30,   -- the same through one Fore ASX-100
  projected_155_us = 10,     -- hardware DART, 155 Mb/s: "under 10 usec"
  projected_622_us = 3,      -- hardware DART, 622 Mb/s: "under 3 usec" (one transit of a fast switch)
}

B.FW = "firmware/dart/dart.fw"
local SRC, DST = 0x100, 0x400 -- offsets in each endpoint: the message, where the other's lands

-- The firmware, built once per run (lk.firmware caches by content anyway).
local fw_cache
function B.firmware()
  fw_cache = fw_cache or lk.firmware { sources = { B.FW }, opt = "O2" }
  return fw_cache
end

-- The platform a DART cluster runs on. `platform`: nil, DART's own testbed (dart.lua's ATM
-- cells; the NIC and PCI borrowed from `nic`, default "vmmc"); a name or table, that
-- platform's NIC, host and PCI with DART's own ATM link (its `cells` section replaced by
-- dart.lua's: the common testbed). `clock_hz`: the NIC clock instead of the chosen one's.
function B.platform(platform, nic, clock_hz)
  local dart = lk.platform("dart")
  local p
  if platform == nil then
    local lender = type(nic) == "table" and nic or lk.platform(nic or "vmmc")
    p = dart
    p.nic, p.pci = lender.nic, p.pci or lender.pci
    p.description = dart.description .. "; NIC and PCI: " .. lender.name .. ".lua's (borrowed)"
  else
    p = type(platform) == "table" and platform or lk.platform(platform)
    p.cells = dart.cells
    p.description = p.description .. "; ATM link: dart.lua's"
  end
  if clock_hz then p.nic.clock_hz = math.floor(clock_hz + 0.5) end
  return p
end

-- setup{ platform, nic, clock_hz (B.platform), link ("line": the testbed's link, or k: its
-- k-th projected link, 1 = OC-3c, 2 = OC-12c), switch (one cell switch between the nodes),
-- bytes (each endpoint, 64 KB), regs (address registers a side, 8) }
function B.setup(o)
  o = o or {}
  local platform = B.platform(o.platform, o.nic, o.clock_hz)
  local fw = B.firmware()
  local c = lk.cluster { platform = platform, nodes = 2,
                         atm = { link = o.link or "line", switch = o.switch or false } }
  local D = lk.dart(c, fw)
  local ep = { [0] = D:open_endpoint(0, o.bytes or 65536), [1] = D:open_endpoint(1, o.bytes or 65536) }
  local conn = D:connect(ep[0], ep[1], o.regs or 8)
  D:go()
  return { platform = platform, fw = fw, c = c, D = D, ep = ep, conn = conn,
           sender = { [0] = conn:sender("a"), [1] = conn:sender("b") }, link = o.link or "line",
           switch = o.switch or false }
end

-- N nodes through one cell switch (ports enough for them) on DART's testbed with the
-- borrowed NIC, `link` as in setup; returns the cluster and its lk.dart (not yet started).
function B.nodes(n, link)
  local c = lk.cluster { platform = B.platform(), nodes = n,
                         atm = { link = link or "line", switch = { ports = math.max(4, n) } } }
  return c, lk.dart(c, B.firmware())
end

-- 32 bytes whose last word is `m` (the round the receiver waits for).
local function message(m)
  local w = {}
  for i = 0, 6 do w[#w + 1] = string.pack(">I4", 0xC0DE0000 + i) end
  w[#w + 1] = string.pack(">I4", m)
  return table.concat(w)
end

-- Ping-pong of 32-byte WRITEs, node 0 first. opts: iters (20 round trips measured after
-- warmup), warmup (2: the first touches are TLB misses the driver serves), profile (attach
-- c:profile on dart_send and dart_cell and return the per-message breakdown).
-- Returns { one_way_us (mean over the measured round trips of round trip / 2), samples_us,
-- msgs = { {from, m, t0, posted, seen} ... } (ns), parts (B.breakdown, with profile) }.
function B.pingpong(ctx, opts)
  opts = opts or {}
  local iters, warmup = opts.iters or 20, opts.warmup or 2
  local rounds = warmup + iters
  local c, ep, s = ctx.c, ctx.ep, ctx.sender
  local cell = { op = "write", mask = 0xFF, amode = "direct", operand = DST }
  local prof
  if opts.profile then
    prof = c:profile { firmware = ctx.fw, handlers = { "dart_send", "dart_cell" }, nodes = { 0, 1 } }
  end
  local msgs, rt = {}, {}
  local done = false
  for n = 0, 1 do
    c:spawn(n, "pingpong" .. n, function(p)
      local e, other = ep[n], 1 - n
      for m = 1, rounds do
        if n == 1 then e:wait_word(p, e:base() + DST + 28, m) end
        e:write(e:base() + SRC, message(m)) -- the application's own stores
        local t0 = p:now_ns()
        s[n]:send(p, cell, SRC, 32)
        local rec = { from = n, m = m, t0 = t0, posted = p:now_ns() }
        msgs[#msgs + 1] = rec
        if n == 0 then
          e:wait_word(p, e:base() + DST + 28, m)
          local seen = p:now_ns()
          if m > warmup then rt[#rt + 1] = (seen - t0) / 2 / 1000 end
        end
      end
      if n == 0 then done = true end
    end)
  end
  -- The receiver's notice time of each message: when the other side's process saw it,
  -- which is when its next step began (node 1 sends right after seeing; node 0 records it).
  c:run {}
  assert(done, "dart_bench: the ping-pong did not finish")
  -- Seen times: message m from node 0 is seen by node 1 just before node 1's m-th t0 (its
  -- own write of the reply is untimed); message m from node 1 is seen by node 0 when its
  -- wait returned, which is just before its (m+1)-th t0, or the end.
  local by = { [0] = {}, [1] = {} }
  for _, r in ipairs(msgs) do by[r.from][r.m] = r end
  for m = 1, rounds do
    by[0][m].seen = by[1][m].t0
    by[1][m].seen = m < rounds and by[0][m + 1].t0 or nil
  end
  local s_ = stats.summary(rt)
  local r = { one_way_us = s_.mean, median_us = s_.median, samples_us = rt, msgs = msgs, by = by,
              rounds = rounds, warmup = warmup }
  if prof then
    r.parts = B.breakdown(ctx, prof, by, warmup, rounds)
    prof:detach()
  end
  B.check_clean(ctx)
  return r
end

-- Every refusal counter of both cards zero (a clean experiment).
B.REFUSALS = { "bad_send", "bad_vci", "bad_reg", "bad_bound", "bad_mask", "bad_op", "bad_endpoint",
               "bad_block", "events_lost", "rx_drops", "busy_refused" }
function B.check_clean(ctx)
  for n = 0, 1 do
    local k = ctx.D:counters(n)
    for _, name in ipairs(B.REFUSALS) do
      if k[name] and k[name] ~= 0 then error(("dart_bench: node %d refused: %s = %d"):format(n, name, k[name]), 0) end
    end
  end
end

-- The invocation of `handler` at or after `t` in a list sorted by start.
local function first_after(list, handler, t)
  for _, v in ipairs(list) do
    if v.handler == handler and v.start_ns >= t then return v end
  end
  return nil
end

-- Where one one-way message's time goes, averaged over the measured messages of both
-- directions (the warmup's TLB misses excluded). Every segment is measured between
-- consecutive moments of the message's way (the sender's process, the sending card's
-- dart_send invocation, the receiving card's dart_cell invocation, the receiver's
-- process), so the segments add up to the one-way time; inside a segment the parts come
-- from the profile (cycles, DMA waits) or from the platform's and the network's
-- parameters (PCI write time, a cell's time on the wire, link latency, switch transit),
-- and what they leave over is listed as such.
function B.breakdown(ctx, prof, by, warmup, rounds)
  local inv = { [0] = prof:invocations(0), [1] = prof:invocations(1) }
  local clock = { [0] = ctx.c:node(0):nic().clock_hz, [1] = ctx.c:node(1):nic().clock_hz }
  local atm = ctx.c:atm()
  local wire_one = atm.cell_ns + atm.latency_ns
  local sw = atm.switch
  local pio_ns = ctx.platform.pci.pio_write_ns
  local acc, n = {}, 0
  local function add(k, v) acc[k] = (acc[k] or 0) + v end
  for from = 0, 1 do
    local to = 1 - from
    for m = warmup + 1, rounds do
      local r = by[from][m]
      if r.seen then
        local snd = first_after(inv[from], "dart_send", r.t0)
        local rcv = snd and first_after(inv[to], "dart_cell", snd.start_ns)
        assert(snd and rcv, "dart_bench: no dart_send/dart_cell invocation for a message")
        n = n + 1
        add("total", r.seen - r.t0)
        add("host_pio", r.posted - r.t0)
        add("to_card", snd.start_ns - r.posted)
        add("send", snd.end_ns - snd.start_ns)
        add("send_insns", snd.insns)
        add("send_cycles", snd.cycles)
        add("send_dma", snd.dma_wait_cycles / clock[from] * 1e9)
        add("between", rcv.start_ns - snd.end_ns)
        add("recv", rcv.end_ns - rcv.start_ns)
        add("recv_insns", rcv.insns)
        add("recv_cycles", rcv.cycles)
        add("recv_dma", rcv.dma_wait_cycles / clock[to] * 1e9)
        add("notice", r.seen - rcv.end_ns)
      end
    end
  end
  local a = {}
  for k, v in pairs(acc) do a[k] = v / n end
  a.messages = n
  a.pio_write_ns = pio_ns
  a.cell_ns = atm.cell_ns
  a.latency_ns = atm.latency_ns
  a.links = sw and 2 or 1
  a.transit_ns = sw and sw.transit_ns or 0
  a.wire = a.links * wire_one + a.transit_ns
  a.send_cpu = a.send - a.send_dma
  a.recv_cpu = a.recv - a.recv_dma
  a.clock_hz = clock[0]
  return a
end

-- The breakdown as table rows {part =, us =, how =}; the rows marked with a part of a
-- segment are inside the segment above them.
function B.breakdown_rows(a)
  local us = function(ns) return ns / 1000 end
  local rows = {}
  local function row(part, ns, how) rows[#rows + 1] = { part = part, us = us(ns), how = how } end
  local pio_writes = a.host_pio / a.pio_write_ns
  row("host: PIO writes to the Send Registers", a.host_pio,
      ("measured (process clock): %.1f posted writes' worth of %.0f ns issue cost"):format(pio_writes, a.pio_write_ns))
  row("PCI: last write lands, card's loop notices", a.to_card,
      ("measured: posted -> dart_send starts (the write's bus time %.0f ns, then up to one turn of the main loop)"):format(a.pio_write_ns))
  row("card (sender): dart_send handler", a.send,
      ("profile: %.0f insns, %.0f cycles at %.0f MHz"):format(a.send_insns, a.send_cycles, a.clock_hz / 1e6))
  row("  of which the fetch DMA (host -> SRAM)", a.send_dma, "profile: DMA-wait cycles")
  row("network: dart_send ends -> dart_cell starts", a.between, "measured")
  row(("  of which cells on the wire (%d link(s) x 53 B at the line rate)"):format(a.links),
      a.links * a.cell_ns, ("derived: %.3f us per cell, framing included"):format(a.cell_ns / 1000))
  row("  of which link latency", a.links * a.latency_ns, ("derived: %.0f ns per link"):format(a.latency_ns))
  if a.transit_ns > 0 then row("  of which switch transit", a.transit_ns, "derived: the cell switch's transit") end
  row("  left over (receiving card's loop turn, minus the launch before the handler's end)",
      a.between - a.wire, "measured - derived")
  row("card (receiver): dart_cell handler", a.recv,
      ("profile: %.0f insns, %.0f cycles"):format(a.recv_insns, a.recv_cycles))
  row("  of which the deposit DMA (SRAM -> host)", a.recv_dma, "profile: DMA-wait cycles")
  row("host: the receiver notices (polling)", a.notice,
      "measured: dart_cell ends -> the process sees the word (negative: the deposit lands before the handler's last instructions)")
  row("total one-way", a.total, ("sum of the segments = the measured one-way time (%d messages)"):format(a.messages))
  return rows
end

-- WRITE_MULTIPLE blocks of `size` bytes from node 0 to node 1, `count` of them back to
-- back, each into its own place in node 1's endpoint, the last one's last word awaited by
-- node 1's process. First the same blocks with other bytes warm the TLBs (first touches
-- are misses the driver serves) and are not timed; the timed ones start `gap_ns` later.
-- Returns { us (node 0's first timed send -> node 1 sees the last block), mb_s (count *
-- size / us), size, count }.
function B.blocks(ctx, size, count, gap_ns)
  count, gap_ns = count or 1, gap_ns or 5e6
  local c, ep, s = ctx.c, ctx.ep, ctx.sender[0]
  local function place(k) return 0x1000 + k * size end
  assert(place(count) <= ep[1]:bytes() and 2 * size <= ep[0]:bytes(), "dart_bench: the blocks do not fit the endpoints")
  local function bytes(seed)
    local t = {}
    for i = 1, size do t[i] = string.char((i * 131 + seed * 17 + i // 251) % 256) end
    return table.concat(t)
  end
  local warm, timed = bytes(1), bytes(2)
  ep[0]:write(ep[0]:base(), warm)
  ep[0]:write(ep[0]:base() + size, timed)
  local lastva = ep[1]:base() + place(count - 1) + size - 4
  local t0, seen
  c:spawn(1, "sink", function(p)
    ep[1]:wait_word(p, lastva, (string.unpack(">I4", warm, size - 3)))
    ep[1]:wait_word(p, lastva, (string.unpack(">I4", timed, size - 3)))
    seen = p:now_ns()
  end)
  c:spawn(0, "blocks", function(p)
    for k = 0, count - 1 do s:send(p, { op = "write_multiple", operand = place(k) }, 0, size) end
    p:advance_ns(gap_ns)
    t0 = p:now_ns()
    for k = 0, count - 1 do s:send(p, { op = "write_multiple", operand = place(k) }, size, size) end
  end)
  c:run {}
  assert(seen and seen > t0, "dart_bench: the timed blocks did not arrive after the warm ones")
  assert(ep[1]:read(ep[1]:base() + place(count - 1), size) == timed, "dart_bench: the last block's bytes differ")
  B.check_clean(ctx)
  local us = (seen - t0) / 1000
  return { us = us, mb_s = count * size / us, size = size, count = count }
end

return B
