-- ops.lua -- DART's operations one by one (docs/dart.md, "Compound operations"): the
-- latency of each remote operation as the calling process sees it (a blocking call:
-- the request cell out, the remote card's answer back, noticed by polling its own
-- memory), the card instructions it costs, an N-node barrier, and the rate at which
-- delayed-action queues take entries; on DART's testbed (vmmc.lua's LANai 4.1 and PCI,
-- borrowed) through one cell switch, at 140, 155.52 and 622.08 Mb/s.
--
--   lanaikit run lua-scripts/dart/ops.lua [--quick] [--iters N]
--
-- Every number is simulated time (deterministic). Instructions are the cards' (both
-- nodes, every handler: the request's dart_send, the owner's dart_cell, the answer's
-- deposit) per call, from c:profile, the first touches (TLB misses) excluded.
local B = require "dart.dart_bench"
local args = require "args"
local output = require "output"
local stats = require "stats"

local o = args.parse(arg, { quick = false, iters = 20 }, "usage: ops.lua [--quick] [--iters N]")
local ITERS = o.quick and 4 or o.iters
local WARMUP = 2
local LINKS = o.quick and { { link = 2, name = "622.08 Mb/s" } } or {
  { link = "line", name = "140 Mb/s" }, { link = 1, name = "155.52 Mb/s" }, { link = 2, name = "622.08 Mb/s" } }
local SCRATCH = 0x8000 -- each Ops' scratch area in its endpoint (Ops.scratch_bytes)

-- Runs `call(p, i)` WARMUP + ITERS times in a process of node `node`; returns the mean
-- latency (us) of the measured calls and the cards' instructions per measured call.
local function measure(ctx, node, nodes, call)
  local c = ctx.c
  local done = false
  c:spawn(node, "warmup", function(p)
    for i = 1, WARMUP do call(p, i) end
    done = true
  end)
  c:run {}
  assert(done, "the warm-up calls did not finish")
  local prof = c:profile { firmware = ctx.fw, handlers = { "dart_send", "dart_cell" }, nodes = nodes }
  local samples = {}
  done = false
  c:spawn(node, "calls", function(p)
    for i = 1, ITERS do
      local t0 = p:now_ns()
      call(p, WARMUP + i)
      samples[#samples + 1] = (p:now_ns() - t0) / 1000
    end
    done = true
  end)
  c:run {}
  assert(done, "the measured calls did not finish")
  local insns = 0
  for _, n in ipairs(nodes) do
    for _, s in ipairs(prof:summary(n)) do insns = insns + s.insns.count * s.insns.mean end
  end
  prof:detach()
  return stats.summary(samples).mean, insns / ITERS
end

-- The two-node operations on one link.
local function two_node(link)
  local ctx = B.setup { link = link, switch = true, bytes = 65536, regs = 8 }
  local ops = ctx.conn:ops("a", SCRATCH)
  local e1 = ctx.ep[1]
  e1:write(e1:base() + 0x1000, string.rep("\x5a", 4096))
  local rows = {}
  local function row(name, cells, call)
    local us, insns = measure(ctx, 0, { 0, 1 }, call)
    rows[#rows + 1] = { op = name, cells = cells, us = us, insns = insns }
  end
  local seen = 0
  row("fetch_and_add (FETCH, A: ADD)", "1 + 1", function(p) ops:fetch_and_add(p, 0, 1) end)
  row("swap (FETCH, A: LOAD value)", "1 + 1", function(p, i) ops:swap(p, 1, i) end)
  row("compare_and_swap (FETCH_IF), succeeding", "1 + 1", function(p)
    local old = ops:compare_and_swap(p, 2, seen, seen + 1)
    assert(old == seen, "a compare-and-swap nobody else races failed")
    seen = seen + 1
  end)
  row("read_register (FETCH)", "1 + 1", function(p) ops:read_register(p, 0) end)
  row("read 28 bytes (READ)", "1 + 1", function(p) ops:read(p, 0x1000, 28, 0x600) end)
  row("read_block 4,096 bytes (READ_MULTIPLE + FETCH)", "2 + 1 + 86", function(p) ops:read_block(p, 0x1000, 4096, 0x3000) end)
  assert(ctx.ep[0]:read(ctx.ep[0]:base() + 0x3000, 4096) == string.rep("\x5a", 4096), "the block read back differs")
  row("write 32 bytes (WRITE, posted)", "1", function(p, i) ops:send(p, { op = "write", operand = 0x2000 + 32 * (i % 8) }, { i, 0, 0, 0, 0, 0, 0, 0 }) end)
  return rows
end

-- An N-node barrier on one link: the mean time per episode, all members arriving at once.
local function barrier(link, nodes)
  local c, D = B.nodes(nodes, link)
  local eps = {}
  for n = 0, nodes - 1 do eps[#eps + 1] = D:open_endpoint(n, 65536) end
  local bar = D:barrier(eps, 0x4000)
  D:go()
  local episodes = WARMUP + ITERS
  local t = {}
  local finished = 0
  for m = 0, nodes - 1 do
    c:spawn(m, "member" .. m, function(p)
      for e = 1, episodes do
        bar:arrive(p, m)
        if m == 0 then t[e] = p:now_ns() end
      end
      finished = finished + 1
    end)
  end
  c:run {}
  assert(finished == nodes, "the barrier's members did not all finish")
  return (t[episodes] - t[WARMUP]) / ITERS / 1000, bar:polls()
end

-- Delayed-action queue: `posters` nodes post `each` entries into node 0's queue as fast as
-- they can; the rate at which the owner's card takes them, then one drain by the owner.
local function queue_rate(link, posters, each)
  local nodes = posters + 1
  local c, D = B.nodes(nodes, link)
  local owner = D:open_endpoint(0, 65536)
  local q = D:delayed_queue(owner, 0x8000, 128, 8)
  local ops = {}
  for n = 1, posters do
    local ep = D:open_endpoint(n, 65536)
    ops[n] = q:attach(ep):ops("a", SCRATCH)
  end
  D:go()
  local t0, t1
  for n = 1, posters do
    c:spawn(n, "poster" .. n, function(p)
      t0 = t0 or p:now_ns()
      for i = 1, each do q:post(p, ops[n], { n, i }, i) end
    end)
  end
  c:run {}
  -- The posters return once their last cell is queued; the owner's card deposits after.
  local total = posters * each
  c:spawn(0, "owner", function(p)
    -- Every entry carries a non-zero stamp in word 7: the ring holds `total` of them.
    p:wait_memory(function()
      local ring = owner:read(owner:base() + 0x8000, 32 * total)
      for e = 0, total - 1 do
        if string.unpack(">I4", ring, 32 * e + 29) == 0 then return false end
      end
      return true
    end)
    t1 = p:now_ns()
  end)
  c:run {}
  local drained, drain_us
  c:spawn(0, "drain", function(p)
    local a = p:now_ns()
    drained = #q:drain(p)
    drain_us = (p:now_ns() - a) / 1000
  end)
  c:run {}
  assert(drained == total, ("the owner drained %d entries of %d"):format(drained, total))
  return total / ((t1 - t0) / 1e9), drain_us, D:counters(0).conds
end

io.write("DART operations (../shared/seeds/002; docs/dart.md), simulated: vmmc.lua's LANai 4.1 (33 MHz)\n" ..
         "and PCI (borrowed), one cell switch. Latency: the calling process's blocking call, mean of\n" ..
         ITERS .. " after " .. WARMUP .. " warm-up calls; instructions: both cards, per call.\n\n")
for _, l in ipairs(LINKS) do
  io.write(("## %s\n\n"):format(l.name))
  io.write(output.table(two_node(l.link), { "op", "cells", "us", "insns" },
    { op = "operation", cells = "cells (out + back)", us = "latency us", insns = "card instructions" },
    { "l", "r", "r", "r" }))
  local brows = {}
  for _, n in ipairs(o.quick and { 2, 4 } or { 2, 4, 8 }) do
    local us, polls = barrier(l.link, n)
    brows[#brows + 1] = { nodes = n, us = us, polls = polls }
  end
  io.write("\nBarrier (coordinator's counter register, FETCH +1 per member, PIO polling, one-word releases):\n\n")
  io.write(output.table(brows, { "nodes", "us", "polls" },
    { nodes = "nodes", us = "us per episode", polls = "coordinator's PIO polls (all episodes)" }))
  local qrows = {}
  for _, posters in ipairs({ 1, 3 }) do
    local rate, drain_us, warnings = queue_rate(l.link, posters, o.quick and 12 or 30)
    qrows[#qrows + 1] = { posters = posters, rate = rate / 1e3, drain = drain_us, warnings = warnings }
  end
  io.write("\nDelayed-action queue (128 entries, warning 8 short of full), posters posting back to back:\n\n")
  io.write(output.table(qrows, { "posters", "rate", "drain", "warnings" },
    { posters = "posters", rate = "entries taken per ms", drain = "drain us (owner)", warnings = "warnings" }))
  io.write("\n")
end
