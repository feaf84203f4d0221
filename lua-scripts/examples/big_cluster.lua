-- big_cluster.lua -- a large cluster (default 1,024 nodes) built and run for a short
-- experiment: raw messages (firmware/raw/raw.fw, lua-scripts/raw/raw.lua) between every
-- node and its partner across the network, each message checked byte by byte.
--
--   lanaikit run lua-scripts/examples/big_cluster.lua [--nodes 1024] [--messages 4]
--                [--bytes 256]
--
-- Node i's partner is i XOR nodes/2 (the other half of the cluster: with a Clos network
-- every message crosses a spine). raw's route table holds 64 routes; each node's holds the
-- one to its partner (raw.setup's `peers`). Every node sends --messages messages of
-- --bytes bytes to its partner and receives as many from it; the payload is a function of
-- the sender, the message's index and the offset.
--
-- Prints the nodes, the messages delivered and checked (all must be), the simulated time,
-- the wall time and the process's peak resident memory (Linux: VmHWM). Exit status 1 on
-- any loss or corruption. bench/cluster_memory/run.py runs it at several sizes and prints
-- the host memory per node (docs/sim.md, "Memory per node").
local args = require "args"
local raw = require "raw.raw"

local o = args.parse(arg, { nodes = 1024, messages = 4, bytes = 256 },
                     "usage: big_cluster.lua [--nodes N] [--messages N] [--bytes N]")
local N, M, BYTES = math.floor(o.nodes), math.floor(o.messages), math.floor(o.bytes)
assert(N >= 2 and N % 2 == 0, "big_cluster: an even number of nodes, at least 2")
assert(BYTES >= 1 and BYTES <= 4096, "big_cluster: --bytes in 1..4096")

local clock0 = os.clock()
local platform = lk.platform("vmmc")
local fw = lk.firmware { sources = { "firmware/raw/raw.fw" }, opt = "O2" }
local c = lk.cluster { platform = platform, nodes = N }
local half = N // 2
local function partner(i) return i ~ half end
local net = raw.setup(c, fw, { platform = platform, slots = 8, peers = function(i) return { partner(i) } end })
local built = os.clock()

local function payload(src, k)
  local t = {}
  for b = 0, BYTES - 1 do t[#t + 1] = string.char((src * 7 + k * 13 + b) & 0xFF) end
  return table.concat(t)
end

local delivered, bad = 0, 0
for i = 0, N - 1 do
  c:spawn(i, "peer" .. i, function(p)
    local ep = raw.endpoint(p)
    for k = 1, M do ep:send(0, payload(i, k)) end
    for k = 1, M do
      local src, data = ep:recv()
      if src == partner(i) and data == payload(src, k) then delivered = delivered + 1 else bad = bad + 1 end
    end
    ep:flush()
  end)
end
local t_ns = c:run { for_ns = 5e6 }

local function peak_rss_kb()
  local f = io.open("/proc/self/status")
  if not f then return nil end
  local kb
  for line in f:lines() do kb = kb or tonumber(line:match("^VmHWM:%s+(%d+)")) end
  f:close()
  return kb
end

local expected = N * M
io.write(("nodes %d  messages %d/%d delivered and checked  bad %d  simulated %.1f us\n")
  :format(N, delivered, expected, bad, t_ns / 1e3))
io.write(("cpu time: build %.2f s, run %.2f s;  peak RSS %s KB\n")
  :format(built - clock0, os.clock() - built, tostring(peak_rss_kb())))
if delivered ~= expected or bad ~= 0 then
  io.stderr:write("big_cluster: messages lost or corrupted\n")
  os.exit(1)
end
