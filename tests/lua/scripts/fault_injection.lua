-- Fault injection: the first packet node 0 sends is corrupted on its link into the switch;
-- the receiver's CRC check catches it, the echo firmware rejects it, and the next message
-- goes through.
local E = require "echo_setup"
local c, bufs = E.cluster(2)
local tx = c:node_tx(0)
tx:set_faults{ corrupt = { 0 } }

c:spawn(0, "sender", function(p)
  E.send(p, 1, "bad!")
  p:advance_ns(50000)          -- let the first one go before posting the second
  E.send(p, 1, "good")
  p:advance_ns(50000)
  p:sync()
end)
c:run{ until_ns = 1e6 }

local link = tx:counters()
lk.assert(link.packets_sent == 2, "packets sent on the link: " .. link.packets_sent)
lk.assert(link.corrupted == 1, "packets corrupted: " .. link.corrupted)
local rx = c:node(1):counters()
lk.assert(rx.crc_errors == 1, "CRC errors at node 1: " .. rx.crc_errors)
lk.assert(rx.packets_received == 2, "packets at node 1: " .. rx.packets_received)
lk.assert(c:node(1):sram_read32(E.CTL + E.CTL_REJECTED) == 1, "the firmware rejects the bad packet")
lk.assert(E.seq(c:node(1), bufs[1]) == 1, "exactly one message delivered")
lk.assert(c:node(1):host_read(bufs[1], 4) == "good", "the good message arrived")
print("fault injection: 1 of 2 packets corrupted and rejected; counters agree")
