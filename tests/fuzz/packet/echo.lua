-- Packet fuzzing of the echo control program (firmware/echo/echo.c, echo.h; set-up as in
-- lua-scripts/examples/echo.lua): every injected packet is received or counted rejected
-- (ECHO_CTL_RECEIVED, ECHO_CTL_REJECTED), node 1's host memory changes only in its receive
-- buffer and the completion record after it, and a message sent afterwards arrives intact.
local common = dofile((arg[0]:match("^(.*/)") or "./") .. "common.lua")

-- firmware/echo/echo.h
local CTL, SEND_DATA, MAX_DATA = 0x10000, 0x11000 + 0x40, 65536
local CTL_NODE, CTL_SEND_LEN, CTL_SEND_DEST, CTL_HOST_BUF = 0x00, 0x04, 0x08, 0x0C
local CTL_RECEIVED, CTL_REJECTED = 0x14, 0x18
local CTL_ROUTE_LEN, CTL_ROUTES, MAX_ROUTE = 0x40, 0x80, 8
local COMPLETION_BYTES = 12

local host_buf = {}
local s = common.cluster { firmware = "firmware/echo/echo.c", platform = "vmmc", setup = function(s)
  for i = 0, s.c:size() - 1 do
    local node = s.c:node(i)
    node:load(s.fw)
    host_buf[i] = node:host_alloc(MAX_DATA + COMPLETION_BYTES)
    node:sram_write32(CTL + CTL_NODE, i)
    node:sram_write32(CTL + CTL_HOST_BUF, host_buf[i])
    for j = 0, s.c:size() - 1 do
      local route = s.c:route(i, j)
      node:sram_write32(CTL + CTL_ROUTE_LEN + 4 * j, #route)
      node:sram_write(CTL + CTL_ROUTES + MAX_ROUTE * j, route)
    end
  end
  s.c:start()
end }
local snap = common.snapshot(s)

common.inject_all(s)
local n1 = s.node
local received = n1:sram_read32(CTL + CTL_RECEIVED)
common.accounted("echo", { "received", "rejected" },
                 { received = received, rejected = n1:sram_read32(CTL + CTL_REJECTED) })

-- The legitimate message is the next completion (sequence number received + 1).
local got
common.phase(s, {
  { common.FROM, "tx", function(p)
    p:pio_write(SEND_DATA, common.LEGIT)
    p:pio_write32(CTL + CTL_SEND_LEN, #common.LEGIT)
    p:pio_write32(CTL + CTL_SEND_DEST, common.TO)
    p:pio_write_reg("HOST_SIG", 1)
  end },
  { common.TO, "rx", function(p)
    local record = host_buf[common.TO] + MAX_DATA
    p:wait_memory(function() return (string.unpack(">I4", p:read(record, 4))) == received + 1 end)
    local _, len, src = string.unpack(">I4>I4>I4", p:read(record, COMPLETION_BYTES))
    if src == common.FROM then got = p:read(host_buf[common.TO], len) end
  end },
})
assert(got == common.LEGIT, "echo: the legitimate message did not arrive intact")
common.compare(snap, { { host_buf[common.TO], MAX_DATA + COMPLETION_BYTES } }, "echo")
