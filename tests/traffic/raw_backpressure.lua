-- Many-to-one saturation: four senders stream to one node whose receiving process is slow
-- (30 us of host time per message) and whose receive ring has only 4 slots. The ring fills,
-- raw stops re-arming the receive DMA, the links STOP the senders: nothing is lost, every
-- payload arrives intact and in order per source.
local common = require "common"
local traffic = common.traffic

local n = 5
local c, net, t = common.raw_cluster(n, { slots = 4 })
local rows = traffic.manytoone(t, { sizes = { 1024, 4096 }, count = 25, warmup = 2,
                                    recv_cost_ns = 30000 })
io.write(traffic.format(rows, "raw many-to-one, 4 senders, slow receiver, 4-slot ring"))
common.check_rows(rows, "manytoone")
local tot = common.check_clean(net, n, "backpressure")
lk.assert(tot.delivered == 2 * (n - 1) * 27, ("expected %d deliveries, got %d"):format(2 * (n - 1) * 27, tot.delivered))

-- The receiver's firmware saw a full ring, and the network pushed back: the link into node 0
-- was stopped, and the senders' links too (the switch's buffers filled behind it).
local root = net:counters(0)
lk.assert(root.ring_full > 0, "node 0's ring never filled (ring_full = 0)")
local into = c:node_rx(0):counters()
lk.assert(into.stops > 0 and into.time_stopped_ns > 0,
  ("the link into node 0 was never stopped (stops %d)"):format(into.stops))
local stopped_senders = 0
for i = 1, n - 1 do
  if c:node_tx(i):counters().stops > 0 then stopped_senders = stopped_senders + 1 end
end
lk.assert(stopped_senders > 0, "no sender's link was ever stopped")
lk.assert(c:node(0):counters().receive_stalls > 0, "node 0's receive engine never stalled")
-- The consumer's 30 us per message bounds what node 0 can take: the 1 KB row must not beat
-- 1024 B / 30 us (34 MB/s); flow control slows the senders down instead of dropping.
lk.assert(rows[1].mb_per_s <= 1024 / 30000 * 1e3,
  ("1 KB many-to-one at %.1f MB/s, faster than the receiver consumes"):format(rows[1].mb_per_s))
print(("ring_full %d, link into node 0: %d stops, %.1f us stopped; senders stopped: %d of %d")
  :format(root.ring_full, into.stops, into.time_stopped_ns / 1e3, stopped_senders, n - 1))
print("ok")
