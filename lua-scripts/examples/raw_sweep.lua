-- raw_sweep.lua -- latency and bandwidth of raw messages (firmware/raw/raw.fw) on the
-- simulated VMMC testbed (lua-scripts/platforms/vmmc.lua), with the generators of
-- lua-scripts/lib/traffic.lua (the host library: lua-scripts/raw/raw.lua).
--
--   lanaikit run lua-scripts/examples/raw_sweep.lua [out.csv]
--
-- Prints one Markdown table per pattern; with an argument, also writes every row as CSV.
local raw = require "raw.raw"
local traffic = require "traffic"
local counters = require "counters"

local platform = lk.platform("vmmc")
local fw = lk.firmware { sources = { "firmware/raw/raw.fw" }, opt = "O2" }
local cluster = lk.cluster { platform = platform, nodes = 4 }
local net = raw.setup(cluster, fw, { platform = platform })
local t = net:transport()

local latency_sizes = { 0, 4, 16, 64, 256, 1024, 4096 }
local bandwidth_sizes = { 64, 256, 1024, 4096 }
local all = {}
local function show(title, rows)
  io.write(traffic.format(rows, "### " .. title), "\n")
  for _, r in ipairs(rows) do all[#all + 1] = r end
end

io.write(("raw messages on the %s platform: %s, %d nodes on one switch\n\n")
  :format(platform.name, platform.description, cluster:size()))
show("ping-pong, node 0 <-> 1 (latency = half the round trip; MB/s = bytes / latency)",
     traffic.pingpong(t, { sizes = latency_sizes, count = 50, warmup = 5 }))
show("one-way stream, node 0 -> 1", traffic.stream(t, { sizes = bandwidth_sizes, count = 200, warmup = 10 }))
show("bidirectional, 0 <-> 1 (MB/s: both directions)",
     traffic.bidirectional(t, { sizes = bandwidth_sizes, count = 100, warmup = 10 }))
show("many-to-one, 1..3 -> 0 (MB/s: what node 0 receives)",
     traffic.manytoone(t, { sizes = bandwidth_sizes, count = 100, warmup = 5 }))
show("all-to-all (MB/s: aggregate)", traffic.alltoall(t, { sizes = bandwidth_sizes, count = 30, warmup = 2 }))
show("uniform random, seed 1 (MB/s: aggregate)",
     traffic.random(t, { sizes = bandwidth_sizes, count = 60, warmup = 5, seed = 1 }))
show("dissemination barrier, 4 nodes (8-byte messages)", traffic.barrier(t, { count = 50, warmup = 5 }))

local list = {}
for i = 0, cluster:size() - 1 do list[#list + 1] = net:counters(i) end
local sum = counters.check("raw", list, { zero = { "bad_send", "bad_crc", "bad_magic", "bad_len" },
                                          equal = { { "sent", "delivered" } } })
local bad = sum.bad_send + sum.bad_crc + sum.bad_magic + sum.bad_len
io.write(("firmware: %d bad packets or descriptors; handlers: %s\n")
  :format(bad, table.concat(fw:handlers(), ", ")))
if arg and arg[1] then
  lk.write_csv(arg[1], all, traffic.columns)
  io.write("rows written to ", arg[1], "\n")
end
