-- workqueue.lua -- a small distributed data structure on DART (issue 14's example): a
-- shared counter and a work queue across N nodes, every update a DART message.
--
--   lanaikit run lua-scripts/dart/workqueue.lua [--nodes N] [--items K] [--quick]
--
-- Node 0 is the home: its card holds three address registers every other node's
-- connection window shares (the queue's tail, its head, and the counter), and its
-- endpoint holds the queue's slots. Nodes 1 .. N-1 each run a producer and a consumer
-- (one process each). A producer claims a slot with fetch-and-add on the tail and writes
-- its item there (one WRITE: the item and a stamp); a consumer claims the next item with
-- fetch-and-add on the head, reads the slot until its stamp says the item is in (remote
-- reads), does the work (adds the item's value to the shared counter with fetch-and-add)
-- and goes on. Home's host does nothing: its card answers everything. At the end every
-- item was consumed exactly once and the counter is the sum of their values.
local B = require "dart.dart_bench"
local args = require "args"

local o = args.parse(arg, { nodes = 4, items = 48, quick = false },
  "usage: workqueue.lua [--nodes N] [--items K] [--quick]")
local N = o.quick and 3 or o.nodes
local PER = math.max(1, (o.quick and 12 or o.items) // (N - 1)) -- items per producer
local TOTAL = PER * (N - 1)
assert(N >= 2, "--nodes: at least 2")
local SLOTS_AT, SCRATCH = 0x1000, 0xC000
local TAIL, HEAD, COUNTER = 0, 1, 2 -- registers of the shared window
assert(TOTAL * 32 <= SCRATCH - SLOTS_AT, "--items: too many for the home's endpoint")

local c, D = B.nodes(N, "line")
local home = D:open_endpoint(0, 65536)
local window = D:alloc_registers(0, 3)
local ops = {}
for n = 1, N - 1 do
  local ep = D:open_endpoint(n, 65536)
  local conn = D:connect(ep, home, 3, { at_b = window })
  -- Two processes a node, each with its own connection end (its own send slot).
  local cep = D:open_endpoint(n, 65536, ep)
  ops[n] = { producer = conn:ops("a", SCRATCH),
             consumer = D:connect(cep, home, 3, { at_b = window }):ops("a", SCRATCH), cep = cep }
end
D:go()

local consumed, values = {}, 0
local finished = 0
for n = 1, N - 1 do
  c:spawn(n, "producer", function(p)
    local q = ops[n].producer
    for i = 1, PER do
      local slot = q:fetch_and_add(p, TAIL, 1)
      local id = n * 1000 + i
      -- Words: id, value, then the stamp (word 6) = slot + 1 (never 0); a remote read of
      -- 28 bytes returns words 0..6 (word 7 carries the reader's tag back).
      q:send(p, { op = "write", operand = SLOTS_AT + 32 * slot }, { id, id % 97, 0, 0, 0, 0, slot + 1 })
    end
    finished = finished + 1
  end)
  c:spawn(n, "consumer", function(p)
    local q = ops[n].consumer
    while true do
      local slot = q:fetch_and_add(p, HEAD, 1)
      if slot >= TOTAL then break end
      local words
      repeat -- the item may not be written yet: read until its stamp is there
        q:read(p, SLOTS_AT + 32 * slot, 28, 0x100)
        local cep = ops[n].cep
        words = { string.unpack(">I4I4I4I4I4I4I4", cep:read(cep:base() + 0x100, 28)) }
      until words[7] == slot + 1
      assert(consumed[words[1]] == nil, "item " .. words[1] .. " consumed twice")
      consumed[words[1]] = n
      values = values + words[2]
      q:fetch_and_add(p, COUNTER, words[2])
    end
    finished = finished + 1
  end)
end
local t = c:run {}
assert(finished == 2 * (N - 1), "a producer or consumer did not finish")
local count, want = 0, 0
for n = 1, N - 1 do
  for i = 1, PER do
    local id = n * 1000 + i
    assert(consumed[id], "item " .. id .. " was never consumed")
    count = count + 1
    want = want + id % 97
  end
end
local counter = D:reg(0, window + COUNTER)
assert(counter == want and values == want, ("the counter is %d, the items' values add up to %d"):format(counter, want))
assert(D:reg(0, window + TAIL) == TOTAL, "the tail is not the number of items")
io.write(("work queue on %d nodes: %d items produced and consumed once each, counter %d = the sum of their values;\n")
  :format(N, count, counter))
local k = D:counters(0)
io.write(("%.1f us simulated; the home's card took %d WRITEs and answered %d operations (%d fetch-and-adds, %d reads);\n")
  :format(t / 1000, k.writes, k.fetches + k.reads, k.fetches, k.reads))
io.write(("the home's host only served its card's %d first-touch TLB misses\n"):format(D:misses_served(0)))
