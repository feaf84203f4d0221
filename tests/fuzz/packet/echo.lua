-- Packet fuzzing of the echo control program (firmware/echo/echo.c, echo.h): PACKETS
-- arrive at node 1; each is received or counted rejected (ECHO_CTL_RECEIVED /
-- ECHO_CTL_REJECTED), nothing outside the host receive buffer and its completion record
-- changes, and a message sent afterwards arrives intact.
local common = dofile((arg[0]:match("^(.*/)") or "./") .. "common.lua")

-- firmware/echo/echo.h
local CTL, SEND_DATA, MAX_DATA = 0x10000, 0x11000 + 0x40, 65536
local CTL_NODE, CTL_SEND_LEN, CTL_SEND_DEST, CTL_HOST_BUF = 0x00, 0x04, 0x08, 0x0C
local CTL_RECEIVED, CTL_REJECTED = 0x14, 0x18
local CTL_ROUTE_LEN, CTL_ROUTES, MAX_ROUTE = 0x40, 0x80, 8

local fw = lk.firmware { sources = { "firmware/echo/echo.c" }, opt = "O2" }
local c = lk.cluster { platform = "vmmc", nodes = 2 }
local n1 = c:node(1)
local lo = common.sentinel(n1)
local host_buf = {}
for i = 0, c:size() - 1 do
  local node = c:node(i)
  node:load(fw)
  host_buf[i] = node:host_alloc(MAX_DATA + 12)
  node:sram_write32(CTL + CTL_NODE, i)
  node:sram_write32(CTL + CTL_HOST_BUF, host_buf[i])
  for j = 0, c:size() - 1 do
    local route = c:route(i, j)
    node:sram_write32(CTL + CTL_ROUTE_LEN + 4 * j, #route)
    node:sram_write(CTL + CTL_ROUTES + MAX_ROUTE * j, route)
  end
end
local hi = common.sentinel(n1) + common.SENTINEL
c:start()
local snap = common.snapshot(n1, lo, hi)

c:run { for_ns = common.delivery_ns(common.inject_all(c, 0, 1)) }
local received, rejected = n1:sram_read32(CTL + CTL_RECEIVED), n1:sram_read32(CTL + CTL_REJECTED)
assert(received + rejected == #PACKETS, ("echo: %d packets injected, %d received + %d rejected")
       :format(#PACKETS, received, rejected))

local LEGIT = "a legitimate message after the fuzzed ones " .. string.rep("\1\2\3\254", 40)
local got
c:spawn(0, "tx", function(p)
  p:pio_write(SEND_DATA, LEGIT)
  p:pio_write32(CTL + CTL_SEND_LEN, #LEGIT)
  p:pio_write32(CTL + CTL_SEND_DEST, 1)
  p:pio_write_reg("HOST_SIG", 1)
end)
c:spawn(1, "rx", function(p)
  local seq = received + 1
  p:wait_memory(function() return (string.unpack(">I4", p:read(host_buf[1] + MAX_DATA, 4))) == seq end)
  local _, len, src = string.unpack(">I4>I4>I4", p:read(host_buf[1] + MAX_DATA, 12))
  if src == 0 then got = p:read(host_buf[1], len) end
end)
c:run { for_ns = 5e6 }
assert(got == LEGIT, "echo: the legitimate message did not arrive intact")
common.compare(snap, { { host_buf[1], MAX_DATA + 12 } }, "echo")
