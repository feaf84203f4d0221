-- The echo experiment, in Lua: two nodes through one Myrinet switch on the VMMC testbed.
--
--   lanaikit run lua-scripts/examples/echo.lua [size ...]
--
-- Node 0's host process writes a message into its NIC's SRAM by PIO and rings the
-- doorbell; the echo firmware (firmware/echo/echo.c) sends it through the switch; node
-- 1's firmware DMAs it into host memory, followed by a completion record; node 1's
-- process, watching that record, sends the message back. Half the round trip is the
-- one-way latency. `lanaikit echo` runs the same experiment in C++ and reports the same
-- numbers.

-- The firmware's SRAM layout (firmware/echo/echo.h).
local CTL       = 0x10000            -- control block
local SEND_DATA = 0x11000 + 0x40     -- the payload goes here; the firmware adds route + header
local MAX_DATA  = 65536
local CTL_NODE, CTL_SEND_LEN, CTL_SEND_DEST, CTL_HOST_BUF = 0x00, 0x04, 0x08, 0x0C
local CTL_ROUTE_LEN, CTL_ROUTES, MAX_ROUTE = 0x40, 0x80, 8

local sizes = {}
for i = 1, #arg do sizes[#sizes + 1] = math.tointeger(tonumber(arg[i])) end
if #sizes == 0 then sizes = { 4, 64, 256, 1024 } end
local WARMUP, ITERATIONS = 2, 10

-- Build (or fetch from the cache) the firmware, and a two-node cluster of the platform.
local fw = lk.firmware{ sources = { "firmware/echo/echo.c" }, opt = "O2" }
local c = lk.cluster{ platform = lk.platform("vmmc"), nodes = 2 }

-- Set-up, untimed: load the firmware, give each node a host receive buffer, and tell
-- the firmware its node number, the buffer and the source routes to every node.
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
c:start()

-- The completion record after the receive buffer: sequence number, length, source
-- (big-endian words, as the firmware wrote them).
local function completion(p, node_index)
  return string.unpack(">I4>I4", p:read(host_buf[node_index] + MAX_DATA, 8))
end

-- Posts one message: payload, length and destination by PIO, then the doorbell. Posted
-- writes only advance the process's clock (0.121 us each on VMMC).
local function send(p, payload, dest)
  p:pio_write(SEND_DATA, payload)
  p:pio_write32(CTL + CTL_SEND_LEN, #payload)
  p:pio_write32(CTL + CTL_SEND_DEST, dest)
  p:pio_write_reg("HOST_SIG", 1)
end

local results = {}
c:spawn(0, "pinger", function(p)
  local seq = 0
  for _, size in ipairs(sizes) do
    local one_way = {}
    for it = 1, WARMUP + ITERATIONS do
      local payload = string.rep("x", size)
      local t0 = p:now_ps()
      send(p, payload, 1)
      seq = seq + 1
      -- A watch, not a busy loop: re-checked after every DMA into this host's memory.
      p:wait_memory(function() return completion(p, 0) == seq end)
      if it > WARMUP then one_way[#one_way + 1] = (p:now_ps() - t0) // 2 end
    end
    table.sort(one_way)
    results[#results + 1] = { bytes = size, median_ps = one_way[#one_way // 2 + 1],
                              min_ps = one_way[1], max_ps = one_way[#one_way] }
  end
  c:stop() -- the echoer never finishes; end the run here
end)

c:spawn(1, "echoer", function(p)
  local seq = 0
  while true do
    seq = seq + 1
    p:wait_memory(function() return completion(p, 1) == seq end)
    local _, len = completion(p, 1)
    send(p, p:read(host_buf[1], len), 0)
  end
end)

local t = c:run{ until_ns = 1e9 }

print(string.format("echo ping-pong on vmmc, node 0 <-> node 1 (%d round trips per size after %d warm-up)\n",
                    ITERATIONS, WARMUP))
print("| bytes | one-way us (median) | min | max | MB/s |")
print("|---:|---:|---:|---:|---:|")
for _, r in ipairs(results) do
  print(string.format("| %d | %.3f | %.3f | %.3f | %.1f |", r.bytes, r.median_ps / 1e6,
                      r.min_ps / 1e6, r.max_ps / 1e6, r.bytes / (r.median_ps / 1e6)))
end
print(string.format("\nsimulated %.1f us; trace hash %016x", t / 1e3, lk.trace_hash()))
