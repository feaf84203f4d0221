-- The echo experiment (sim/echo_experiment.cpp) in Lua: node 0 pings node 1 through one
-- switch with the echo firmware (firmware/echo/echo.c, layout in firmware/echo/echo.h).
-- Arguments: [size [warmup [iterations]]]. Leaves `result` (median one-way ps and the
-- trace hash) for tests/lua/lua_test.cpp, which compares it with `lanaikit echo`.
local size = tonumber(arg and arg[1]) or 4
local warmup = tonumber(arg and arg[2]) or 2
local iterations = tonumber(arg and arg[3]) or 10

local CTL, SEND_DATA, MAX_DATA = 0x10000, 0x11040, 65536
local CTL_NODE, CTL_SEND_LEN, CTL_SEND_DEST, CTL_HOST_BUF = 0x00, 0x04, 0x08, 0x0C
local CTL_ROUTE_LEN, CTL_ROUTES, MAX_ROUTE = 0x40, 0x80, 8

local fw = lk.firmware{ sources = { "firmware/echo/echo.c" } }
local c = lk.cluster{ platform = lk.platform("vmmc"), nodes = 2 }
-- Counting what bounds the chips' batches changes nothing: the trace hash below must still
-- match the C++ run's, which does not count.
c:bound_census(true)
local host_buf = {}
for i = 0, 1 do
  local n = c:node(i)
  n:load(fw)
  host_buf[i] = n:host_alloc(MAX_DATA + 12)
  n:sram_write32(CTL + CTL_NODE, i)
  n:sram_write32(CTL + CTL_HOST_BUF, host_buf[i])
  for j = 0, 1 do
    local route = c:route(i, j)
    n:sram_write32(CTL + CTL_ROUTE_LEN + 4 * j, #route)
    n:sram_write(CTL + CTL_ROUTES + MAX_ROUTE * j, route)
  end
end
c:start()

local function be32(p, addr) return (string.unpack(">I4", p:read(addr, 4))) end
local function pattern(n, message)
  local b = {}
  for k = 0, n - 1 do b[k + 1] = string.char((message * 131 + k * 7 + n) % 256) end
  return table.concat(b)
end

local one_way = {}
c:spawn(0, "pinger", function(p)
  local done_at = host_buf[0] + MAX_DATA
  for it = 1, warmup + iterations do
    local payload = pattern(size, it)
    local t0 = p:now_ps()
    p:pio_write(SEND_DATA, payload)
    p:pio_write32(CTL + CTL_SEND_LEN, size)
    p:pio_write32(CTL + CTL_SEND_DEST, 1)
    p:pio_write_reg("HOST_SIG", 1)
    p:wait_memory(function() return be32(p, done_at) == it end)
    local rtt = p:now_ps() - t0
    assert(p:read(host_buf[0], size) == payload, "message " .. it .. " came back different")
    if it > warmup then one_way[#one_way + 1] = rtt // 2 end
  end
  c:stop()
end)
c:spawn(1, "echoer", function(p)
  local done_at = host_buf[1] + MAX_DATA
  local seq = 0
  while true do
    seq = seq + 1
    p:wait_memory(function() return be32(p, done_at) == seq end)
    local len = be32(p, done_at + 4)
    p:pio_write(SEND_DATA, p:read(host_buf[1], len))
    p:pio_write32(CTL + CTL_SEND_LEN, len)
    p:pio_write32(CTL + CTL_SEND_DEST, 0)
    p:pio_write_reg("HOST_SIG", 1)
  end
end)
c:run{ until_ns = 1e9 }

assert(#one_way == iterations, "only " .. #one_way .. " round trips finished")
-- Every batch has one bound; the census names each near or distant one.
local st = c:stats()
local b = st.batch_bounds
assert(b.limit + b.near_event + b.distant_event + b.other_agent == st.agent_batches,
       "batch bounds do not add up to the batches")
assert(b.near_event > 0 and b.distant_event > 0, "a switched run has near and distant bounds")
local census = 0
for _, n in pairs(st.bound_census) do census = census + n end
assert(census == b.near_event + b.distant_event, "the census misses bounding events")
table.sort(one_way)
result = { median_ps = one_way[#one_way // 2 + 1], trace_hash = lk.trace_hash() }
print(string.format("%d bytes: one-way %.3f us (median of %d), trace hash %016x",
                    size, result.median_ps / 1e6, iterations, result.trace_hash))
