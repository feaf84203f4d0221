-- A powered-off node: packets addressed to it are discarded by the switch (its port is
-- down), so they neither arrive nor block traffic to the other nodes.
local E = require "echo_setup"
local c, bufs = E.cluster(3)
c:set_powered(1, false)
lk.assert(not c:node(1):powered(), "node 1 is off")

c:spawn(0, "sender", function(p)
  E.send(p, 1, "lost")         -- to the dead node
  p:advance_ns(50000)
  E.send(p, 2, "kept")         -- to a live one, after it
  p:advance_ns(50000)
  p:sync()
end)
c:run{ until_ns = 1e6 }

lk.assert(c:node(0):counters().packets_sent == 2, "node 0 sent both")
lk.assert(c:node(1):counters().packets_received == 0, "the powered-off node received nothing")
lk.assert(E.seq(c:node(1), bufs[1]) == 0, "nothing reached node 1's host")
lk.assert(E.seq(c:node(2), bufs[2]) == 1, "node 2 got its message")
lk.assert(c:node(2):host_read(bufs[2], 4) == "kept", "node 2 got the right bytes")
print("powered off: node 1 got nothing, node 2 got its message")
