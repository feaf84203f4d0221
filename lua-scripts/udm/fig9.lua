-- fig9.lua -- the UDM paper's Figures 9 and 10 (section 5.2): synth-K, request-reply
-- traffic on 4 FUGU nodes with a synchronization point every K requests (K = 10, 100,
-- 1000; firmware/udm/apps/synth.c), gang scheduled against a null application at the
-- paper's 1% schedule skew.
--   Figure 9:  the percentage of messages buffered against the mean interval between sends
--              (instructions), a request's handling fixed at 290 cycles;
--   Figure 10: the same against the buffered path's cost, with the interval held at 275 and
--              cycles added to the buffer-insert handler (udm_delayed_table in firmware/udm/buffered.s).
--
--   lanaikit run lua-scripts/udm/fig9.lua [--quick] [--requests N] [--figure 9|10]
--
-- "Messages" are requests, replies and the final "done" messages, every one a node received; the paper counts on the
-- consumer node, and here every node is a consumer. A request's handling is the upcall (a
-- C handler: 160 cycles, Table 4), the reply's send and a stall: the stall is 290 - 180 =
-- 110 instructions. The buffered path's cost (Figure 10's x) is Table 5's insert + extract
-- (173 cycles with buffered.s) plus the added cycles.
local E = require "udm.udm_experiment"
local args = require "args"
local output = require "output"

local o = args.parse(arg, { quick = false, requests = 4000, figure = 0, seed = 1 },
  "usage: fig9.lua [--quick] [--requests N] [--figure 9|10] [--seed S]")
local REQUESTS = o.quick and 600 or o.requests
local NODES, SKEW, STALL = 4, 0.01, 290 - 180
local KS = o.quick and { 10, 1000 } or { 10, 100, 1000 }
local BASE_PATH = 173 -- Table 5: insert + extract through buffered.s (tests/udm)

local function run(k, betw, delay)
  local r = E.run("synth", NODES, { params = { REQUESTS, k, betw, STALL, o.seed }, null = true, skew = SKEW,
                                    insert_delay = delay, limit_ms = 10000 })
  local received = 0
  for _, n in ipairs(r.nodes) do
    assert(n.app[1] == REQUESTS, "a node did not send all its requests")
    received = received + n.app[2] + n.app[3] + n.app[4]
  end
  assert(received == 2 * NODES * REQUESTS + NODES * (NODES - 1), "messages lost: " .. received)
  -- what a node's requests really cost apart: the application's half of the gang schedule
  return { buffered_pct = 100 * r.buffered / received, max_pages = r.max_pages,
           per_request = r.runtime_cycles / 2 / REQUESTS }
end

local function figure(title, xs, xname, point)
  local rows = {}
  for _, x in ipairs(xs) do
    local row = { x = x }
    for _, k in ipairs(KS) do
      local p = point(k, x)
      row["k" .. k] = p.buffered_pct
      row["p" .. k] = p.max_pages
      row.per_request = p.per_request -- the last K's
    end
    rows[#rows + 1] = row
  end
  local cols, heads = { "x" }, { x = xname }
  for _, k in ipairs(KS) do
    cols[#cols + 1] = "k" .. k
    heads["k" .. k] = ("synth-%d buffered (%%)"):format(k)
  end
  for _, k in ipairs(KS) do
    cols[#cols + 1] = "p" .. k
    heads["p" .. k] = ("synth-%d max pages"):format(k)
  end
  cols[#cols + 1] = "per_request"
  heads.per_request = ("synth-%d cycles per request (runtime / 2)"):format(KS[#KS])
  print(title)
  print(output.table(rows, cols, heads))
end

local header = ("synth-K on %d nodes, %d requests per node, skew %d%% of the %d-cycle timeslice, request handling 290 cycles")
  :format(NODES, REQUESTS, SKEW * 100, E.TIMESLICE_CYCLES)
if o.figure == 0 or o.figure == 9 then
  local xs = o.quick and { 100, 1000 } or { 0, 100, 200, 300, 400, 600, 800, 1000, 1500, 2000 }
  figure("Figure 9: " .. header, xs, "mean instructions between sends",
         function(k, x) return run(k, x, 0) end)
  print("paper: small buffering once the interval exceeds the handler plus buffering cost; less with more synchronization (smaller K)\n")
end
if o.figure == 0 or o.figure == 10 then
  -- (the quick run's 2000 is an overload: a node's kernel is busy inserting for longer than
  -- a timeslice, which the scheduler must survive)
  local xs = o.quick and { 0, 2000 } or { 0, 200, 400, 500, 600, 700, 800, 900, 1000, 1200 }
  figure("Figure 10: " .. header .. ", 275 instructions between sends", xs,
         ("cycles added to the insert (path = %d + x)"):format(BASE_PATH),
         function(k, x) return run(k, 275, x) end)
  print("paper: synth-10 stays low; synth-100 and synth-1000 buffer more once the buffered path costs more than the send interval")
end
