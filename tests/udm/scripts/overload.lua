-- UDM under overload: synth-K (firmware/udm/apps/synth.c) on 4 FUGU nodes, gang scheduled
-- against a null application at 1% skew, with the buffer-insert handler made so slow
-- (udm_delayed_table) that the kernel's inserts hold a node's CPU for more than a timeslice
-- and the request handlers' replies block behind full networks. Every request must still be
-- answered, every message delivered exactly once (udm_experiment.run and the counts below
-- check it), and the scheduler must have taken its timer late at least once (the case it
-- survives by skipping the quanta it missed).
--
-- Before its fixes this run failed twice over: the scheduler armed its timer in the past and
-- never switched again (a node never finished), and an application switched out inside an
-- atomic section with a buffered delivery deferred to the section's end was taken, back in,
-- for one inside a handler: the section's ENDATOM resumed a stale handler's stream (a fault
-- at a garbage pc).
--   lanaikit run tests/udm/scripts/overload.lua
local E = require "udm.udm_experiment"

local NODES, REQUESTS = 4, 3000
for _, delay in ipairs { 3000, 20000 } do
  local r = E.run("synth", NODES, { params = { REQUESTS, 1000, 0, 110, 1 }, null = true, skew = 0.01,
                                    insert_delay = delay, limit_ms = 4000 })
  local received, missed = 0, 0
  for _, n in ipairs(r.nodes) do
    assert(n.app[1] == REQUESTS and n.app[3] == REQUESTS, "a node's requests were not all answered")
    received = received + n.app[2] + n.app[3] + n.app[4]
    missed = missed + n.sched_missed
  end
  assert(received == 2 * NODES * REQUESTS + NODES * (NODES - 1), "messages lost or duplicated: " .. received)
  assert(r.buffered > 0, "nothing was buffered: no overload")
  print(("insert + %d cycles: %.1f M cycles, %d messages buffered, %d pages at most, %d quanta skipped")
        :format(delay, r.runtime_cycles / 1e6, r.buffered, r.max_pages, missed))
  if delay == 20000 then assert(missed > 0, "the timer was never taken late: the run does not test that") end
end
