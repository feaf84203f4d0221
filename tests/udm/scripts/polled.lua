-- UDM user code that polls its messages inside one long atomic section (barrier.c, mode 1),
-- gang scheduled against a null application on 8 nodes: in buffered mode it drains its own
-- buffer through the base register, with the kernel's deliveries deferred to the section's
-- end. Every message must be handled once and the run must end without a trap.
--
-- Before the fix in buffer.c's to_fast, draining the buffer that way left the deferral's
-- atomicity-extend set in the fast case: the section's ENDATOM then trapped into the fast
-- vector 44, which resumed a stale handler stream (address 0, then main in user mode: a
-- privileged-register trap on node 0).
--   lanaikit run tests/udm/scripts/polled.lua
local E = require "udm.udm_experiment"

local NODES, BARRIERS = 8, tonumber(arg[1]) or 5000
for _, skew in ipairs { 0, 0.3 } do
  local r = E.run("barrier", NODES, { params = { BARRIERS, 1 }, null = true, skew = skew })
  local received, to_fast = 0, 0
  for _, n in ipairs(r.nodes) do received = received + n.app[2] end
  assert(received == NODES * BARRIERS * 3, "messages lost or repeated: " .. received)
  assert(r.buffered > 0, "nothing was buffered: the run does not test the buffered case")
  print(("skew %.0f%%: %d messages, %d buffered, %.2f M cycles"):format(skew * 100, received, r.buffered, r.runtime_cycles / 1e6))
end
