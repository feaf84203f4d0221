-- Same inputs and seed, same results: a mixed workload (random traffic, many-to-one into a
-- small ring, a barrier, corrupted packets) run twice on fresh clusters gives the same
-- event-trace hash, the same rows and the same firmware counters.
local common = require "common"
local traffic = common.traffic

local function workload()
  local n = 4
  local c, net, t = common.raw_cluster(n, { slots = 8 })
  local rows = {}
  for _, r in ipairs(traffic.manytoone(t, { sizes = { 256, 4096 }, count = 10, warmup = 1, root = 1,
                                            recv_cost_ns = 5000 })) do rows[#rows + 1] = r end
  for _, r in ipairs(traffic.random(t, { sizes = { 64, 2048 }, count = 10, warmup = 1, seed = 11 })) do
    rows[#rows + 1] = r
  end
  for _, r in ipairs(traffic.barrier(t, { count = 10, warmup = 1 })) do rows[#rows + 1] = r end
  -- Then node 1's link corrupts packets at random (seeded): raw drops them, so this last
  -- phase is unchecked traffic, run for a fixed simulated time.
  c:node_tx(1):set_faults { seed = 5, corrupt_probability = 0.1 }
  c:spawn(0, "sink", function(p)
    local ep = common.raw.endpoint(p)
    while true do ep:recv() end
  end, c:now_ns())
  c:spawn(1, "lossy", function(p)
    local ep = common.raw.endpoint(p)
    for _ = 1, 40 do ep:send(0, 128) end
    ep:flush()
  end, c:now_ns())
  c:run { for_ns = 2e5, stop_when_processes_done = false }
  local counters = {}
  for i = 0, n - 1 do counters[i + 1] = net:counters(i) end
  return c:trace_hash(), rows, counters
end

local function same(a, b, path)
  if type(a) ~= "table" then
    lk.assert(a == b, ("%s differs between runs: %s vs %s"):format(path, tostring(a), tostring(b)))
    return
  end
  for k, v in pairs(a) do same(v, b[k], path .. "." .. tostring(k)) end
  for k in pairs(b) do lk.assert(a[k] ~= nil, path .. "." .. tostring(k) .. " only in the second run") end
end

local h1, rows1, k1 = workload()
local h2, rows2, k2 = workload()
io.write(traffic.format(rows1, "raw, mixed workload (first of two runs)"))
print(("trace hashes %016x %016x; lk.trace_hash() %016x"):format(h1, h2, lk.trace_hash()))
lk.assert(h1 == h2, "the two runs' trace hashes differ")
same(rows1, rows2, "rows")
same(k1, k2, "counters")
-- The faulty link did corrupt something, and the firmware counted it instead of delivering it.
local crc = 0
for _, k in ipairs(k1) do crc = crc + k.bad_crc end
lk.assert(crc > 0, "no packet was corrupted: the fault plan did nothing")
print(("%d corrupted packets counted and dropped in each run"):format(crc))
print("ok")
