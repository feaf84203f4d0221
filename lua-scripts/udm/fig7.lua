-- fig7.lua -- the UDM paper's Figures 7 and 8 for its barrier and enum applications: the
-- percentage of messages that take the buffered path, and the runtime relative to a perfect
-- gang schedule, as the schedule gets worse; 8 FUGU nodes, the application gang scheduled
-- against a null application with the platform's 500,000-cycle timeslice, node i's
-- schedule late by skew * i / 7 of a timeslice; and the most pages a node's buffer held
-- (the paper: fewer than 7).
--   barrier (firmware/udm/apps/barrier.c): 10,000 butterfly barriers, 3 messages per node
--     each: synchronizes constantly; received by polling, and by interrupt;
--   enum (firmware/udm/apps/enum.c): every position of the 21-hole triangle peg puzzle,
--     breadth first, each successor a message to its owner node: 291,987 positions, about
--     1.7 million unacknowledged messages, one synchronization per level (20).
--
--   lanaikit run lua-scripts/udm/fig7.lua [--quick] [--app barrier|enum|both] [--barriers N] [--levels N]
--
-- Everything is simulated time on the emulated nodes (deterministic). The paper's
-- "runtime" counts the cycles used on behalf of the application; here it is the time from
-- the first node's start to the last node's end (the null application's quanta included,
-- which is why a perfect schedule takes twice the standalone time, as in the paper).
local E = require "udm.udm_experiment"
local args = require "args"
local output = require "output"

local o = args.parse(arg, { quick = false, app = "both", barriers = 10000, levels = 20 },
  "usage: fig7.lua [--quick] [--app barrier|enum|both] [--barriers N] [--levels N]")
if o.app ~= "barrier" and o.app ~= "enum" and o.app ~= "both" then
  error("fig7.lua: --app is barrier, enum or both, not " .. o.app, 0)
end
local SKEWS = o.quick and { 0, 0.2 } or { 0, 0.05, 0.1, 0.2, 0.3, 0.4 }
local NODES = 8

-- Every message an application's nodes received (results word 1 of both applications).
local function received(r)
  local n = 0
  for _, node in ipairs(r.nodes) do n = n + node.app[2] end
  return n
end

local function figure(app, params, check, staggered)
  local alone = E.run(app, NODES, { params = params, limit_ms = 20000 })
  check(alone)
  local rows, base = {}, nil
  for _, skew in ipairs(SKEWS) do
    local r = E.run(app, NODES, { params = params, null = true, skew = skew, limit_ms = 20000 })
    check(r)
    base = base or r.runtime_cycles
    local row = {
      skew_pct = skew * 100, buffered_pct = 100 * r.buffered / received(r),
      runtime_mcycles = r.runtime_cycles / 1e6, relative = r.runtime_cycles / base,
      vs_alone = r.runtime_cycles / alone.runtime_cycles, max_pages = r.max_pages,
    }
    if staggered then
      -- The same staggered timer interrupts with no null application: what the barrier
      -- loses to the interruptions alone (see the note below its table).
      local s = E.run(app, NODES, { params = params, skew = skew })
      row.alone_staggered = s.runtime_cycles / alone.runtime_cycles
    end
    rows[#rows + 1] = row
  end
  local cols = { "skew_pct", "buffered_pct", "runtime_mcycles", "relative", "vs_alone" }
  if staggered then cols[#cols + 1] = "alone_staggered" end
  cols[#cols + 1] = "max_pages"
  print(("standalone: %.2f M cycles, %d messages"):format(alone.runtime_cycles / 1e6, received(alone)))
  print(output.table(rows, cols,
    { skew_pct = "skew (% of timeslice)", buffered_pct = "buffered (%)", runtime_mcycles = "runtime (M cycles)",
      relative = "relative runtime (Fig. 8)", vs_alone = "vs standalone",
      alone_staggered = "alone, staggered timer", max_pages = "max pages/node" }))
end

if o.app ~= "enum" then
  local barriers = o.quick and 600 or o.barriers
  for _, polled in ipairs { 1, 0 } do
    print(("UDM barrier, %s (%d barriers, %d nodes, 3 messages per node per barrier), gang scheduled against a null application")
          :format(polled == 1 and "polled" or "by interrupt", barriers, NODES))
    figure("barrier", { barriers, polled }, function(r)
      assert(received(r) == NODES * barriers * 3, "barrier: messages lost: " .. received(r))
    end, true)
  end
  print("paper: Figure 7, barrier buffers a roughly constant fraction of its messages at every skew;")
  print("Figure 8, its slowdown is almost exactly the inverse of the skew (1.05, 1.11, 1.25, 1.43, 1.67);")
  print("fewer than 7 pages per node")
  print("note: 'alone, staggered timer' runs the barrier with no null application but the same")
  print("skewed timer interrupts: a barrier that falls into a slower steady state once one node")
  print("is interrupted while the others run shows it there (docs/udm.md, \"The experiments\").\n")
end
if o.app ~= "barrier" then
  local levels = o.quick and 8 or o.levels
  -- the positions of levels 0 .. levels - 1 (all of them from 20 on)
  local POSITIONS = { [8] = 15616, [20] = 291987 }
  print(("UDM enum (the 21-hole triangle peg puzzle, %d levels, %d nodes), gang scheduled against a null application")
        :format(levels, NODES))
  figure("enum", { levels }, function(r)
    local sent, owned = 0, 0
    for _, n in ipairs(r.nodes) do
      sent, owned = sent + n.app[1], owned + n.app[3]
      assert(n.app[6] == 0, "enum: a node's tables overflowed")
    end
    assert(sent == received(r), ("enum: %d messages sent, %d received"):format(sent, received(r)))
    local want = POSITIONS[math.min(levels, 20)]
    assert(not want or owned == want, ("enum: %d positions, not %d"):format(owned, want or 0))
  end, false)
  print("paper: Figure 7, enum buffers in proportion to the skew (a message is likelier to arrive while")
  print("its receiver is descheduled); Figure 8, its runtime barely grows (it tolerates latency); fewer")
  print("than 7 pages per node")
end
