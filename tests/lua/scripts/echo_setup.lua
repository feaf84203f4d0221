-- Shared by the test scripts: a cluster running the echo firmware with routes and host
-- buffers set up. Returns the cluster, the host buffers and the firmware's layout.
local M = {
  CTL = 0x10000, SEND_DATA = 0x11040, MAX_DATA = 65536,
  CTL_NODE = 0x00, CTL_SEND_LEN = 0x04, CTL_SEND_DEST = 0x08, CTL_HOST_BUF = 0x0C,
  CTL_SENT = 0x10, CTL_RECEIVED = 0x14, CTL_REJECTED = 0x18,
  CTL_ROUTE_LEN = 0x40, CTL_ROUTES = 0x80, MAX_ROUTE = 8,
}

function M.cluster(nodes)
  local fw = lk.firmware{ sources = { "firmware/echo/echo.c" } }
  local c = lk.cluster{ platform = "vmmc", nodes = nodes }
  local bufs = {}
  for i = 0, nodes - 1 do
    local n = c:node(i)
    n:load(fw)
    bufs[i] = n:host_alloc(M.MAX_DATA + 12)
    n:sram_write32(M.CTL + M.CTL_NODE, i)
    n:sram_write32(M.CTL + M.CTL_HOST_BUF, bufs[i])
    for j = 0, nodes - 1 do
      local route = c:route(i, j)
      n:sram_write32(M.CTL + M.CTL_ROUTE_LEN + 4 * j, #route)
      n:sram_write(M.CTL + M.CTL_ROUTES + M.MAX_ROUTE * j, route)
    end
  end
  c:start()
  return c, bufs
end

-- Posts one message from the process's node to `dest`.
function M.send(p, dest, payload)
  p:pio_write(M.SEND_DATA, payload)
  p:pio_write32(M.CTL + M.CTL_SEND_LEN, #payload)
  p:pio_write32(M.CTL + M.CTL_SEND_DEST, dest)
  p:pio_write_reg("HOST_SIG", 1)
end

-- The completion record's sequence number at host buffer `buf` (big-endian).
function M.seq(node, buf)
  return (string.unpack(">I4", node:host_read(buf + M.MAX_DATA, 4)))
end

return M
