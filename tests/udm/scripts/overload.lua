-- UDM under overload: synth-K (firmware/udm/apps/synth.c) on 4 FUGU nodes, gang scheduled
-- against a null application at 1% skew, with the buffer-insert handler made so slow
-- (udm_delayed_table) that the kernel's inserts hold a node's CPU for more than a timeslice
-- and the request handlers' replies block behind full networks. Every request must still be
-- answered, every message delivered exactly once (udm_experiment.run and the counts below
-- check it), and the scheduler must have taken its timer late at least once (the case it
-- survives by skipping the quanta it missed).
--
-- Before its fixes the first runs failed twice over: the scheduler armed its timer in the past and
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

-- Overflow control's global suspension (udm.h, docs/udm.md): with a one-page budget the
-- buffers overflow; the overflowing node tells the others to hold the application (they
-- give its quanta to the null application) and releases it once its buffer drained.
-- Every hold is released, every kernel message sent is received, nothing is lost.
do
  local r = E.run("synth", NODES, { params = { REQUESTS, 1000, 0, 110, 1 }, null = true, skew = 0.01,
                                    insert_delay = 20000, budget = 1, limit_ms = 4000 })
  local fw, c = r.firmware, r.cluster
  local received, holds, sent, got, held = 0, 0, 0, 0, 0
  for i, n in ipairs(r.nodes) do
    received = received + n.app[2] + n.app[3] + n.app[4]
    local node = c:node(i - 1)
    local a = node:sram_read32(fw:symbol("experiment_app_struct"))
    local kc, sc = fw:symbol("udm_kernel_counters"), fw:symbol("udm_sched_counters")
    -- struct udm_app words 21..24: hold_told, hold_wanted, hold_next, holds
    assert(node:sram_read32(a + 4 * 21) == 0 and node:sram_read32(a + 4 * 22) == 0, "a hold was never released")
    holds = holds + node:sram_read32(a + 4 * 24)
    got, sent = got + node:sram_read32(kc), sent + node:sram_read32(kc + 20)
    held = held + node:sram_read32(sc + 16)
    assert(n.max_pages <= 1, "a buffer went past its budget")
  end
  assert(received == 2 * NODES * REQUESTS + NODES * (NODES - 1), "messages lost or duplicated: " .. received)
  assert(holds > 0 and held > 0, "no application was held: the run does not test overflow control")
  assert(sent == got and sent == 2 * holds * (NODES - 1), ("kernel messages: %d sent, %d received, %d holds"):format(sent, got, holds))
  print(("one-page budget: %d holds (each released), %d kernel messages, %d quanta given to the null application instead, %.1f M cycles")
        :format(holds, sent, held, r.runtime_cycles / 1e6))
end
