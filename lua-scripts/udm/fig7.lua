-- fig7.lua -- the UDM paper's Figures 7 and 8 for its barrier application: the percentage
-- of messages that take the buffered path, and the runtime relative to a perfect gang
-- schedule, as the schedule gets worse; 8 FUGU nodes, the application gang scheduled
-- against a null application with the platform's 500,000-cycle timeslice, node i's
-- schedule late by skew * i / 7 of a timeslice; and the most pages a node's buffer held
-- (the paper: fewer than 7).
--
--   lanaikit run lua-scripts/udm/fig7.lua [--quick] [--barriers N]
--
-- Everything is simulated time on the emulated nodes (deterministic). The paper's
-- "runtime" counts the cycles used on behalf of the application; here it is the time from
-- the first node's start to the last node's end (the null application's quanta included,
-- which is why a perfect schedule takes twice the standalone time, as in the paper).
local E = require "udm.udm_experiment"
local args = require "args"
local output = require "output"

local o = args.parse(arg, { quick = false, barriers = 10000 }, "usage: fig7.lua [--quick] [--barriers N]")
local BARRIERS = o.quick and 600 or o.barriers
local SKEWS = o.quick and { 0, 0.2 } or { 0, 0.05, 0.1, 0.2, 0.3, 0.4 }
local NODES = 8

local alone = E.run("barrier", NODES, { params = { BARRIERS } })
local rows, base = {}, nil
for _, skew in ipairs(SKEWS) do
  local r = E.run("barrier", NODES, { params = { BARRIERS }, null = true, skew = skew })
  local messages = 0
  for _, n in ipairs(r.nodes) do messages = messages + n.app[2] end
  assert(messages == NODES * BARRIERS * 3, "messages lost: " .. messages)
  -- The same staggered timer interrupts with no null application: what the barrier loses
  -- to the interruptions alone (see the note below the table).
  local stagger = E.run("barrier", NODES, { params = { BARRIERS }, skew = skew })
  base = base or r.runtime_cycles
  rows[#rows + 1] = {
    skew_pct = skew * 100, buffered_pct = 100 * r.buffered / messages,
    runtime_mcycles = r.runtime_cycles / 1e6, relative = r.runtime_cycles / base,
    vs_alone = r.runtime_cycles / alone.runtime_cycles, max_pages = r.max_pages,
    alone_staggered = stagger.runtime_cycles / alone.runtime_cycles,
  }
end
print(("UDM barrier (%d barriers, %d nodes, 3 messages per node per barrier), gang scheduled against a null application"):format(BARRIERS, NODES))
print(("standalone: %.2f M cycles"):format(alone.runtime_cycles / 1e6))
print(output.table(rows, { "skew_pct", "buffered_pct", "runtime_mcycles", "relative", "vs_alone", "alone_staggered", "max_pages" },
  { skew_pct = "skew (% of timeslice)", buffered_pct = "buffered (%)", runtime_mcycles = "runtime (M cycles)",
    relative = "relative runtime (Fig. 8)", vs_alone = "vs standalone",
    alone_staggered = "alone, staggered timer", max_pages = "max pages/node" }))
print("paper: Figure 7, barrier buffers a roughly constant fraction of its messages at every skew;")
print("Figure 8, its slowdown is almost exactly the inverse of the skew; fewer than 7 pages per node")
print("note: 'alone, staggered timer' runs the barrier with no null application but the same")
print("skewed timer interrupts; this butterfly barrier falls into a slower steady state after")
print("one node is interrupted while the others run (docs/udm.md, \"The experiments\").")
