-- scale.lua -- CPU time per simulated message as a cluster grows (issue 16): raw messages
-- (firmware/raw/raw.fw) on the VMMC platform, every node sending --count messages of
-- --bytes to destinations drawn uniformly from the others (lib/traffic.lua's random
-- pattern, seed 1), checked byte for byte. bench/cluster_speed/scale.sh runs it for 2..64
-- nodes in separate processes (so peak RSS is per size) and prints the table.
--
--   lanaikit run bench/cluster_speed/scale.lua [--nodes 4] [--count 50] [--bytes 256]
local args = require "args"
local raw = require "raw.raw"
local traffic = require "traffic"

local o = args.parse(arg, { nodes = 4, count = 50, bytes = 256 },
  "usage: scale.lua [--nodes N] [--count MESSAGES_PER_NODE] [--bytes N]")
local platform = lk.platform("vmmc")
local fw = lk.firmware { sources = { "firmware/raw/raw.fw" }, opt = "O2" }
local c = lk.cluster { platform = platform, nodes = math.floor(o.nodes) }
local net = raw.setup(c, fw, { platform = platform })
local t = net:transport()

local cpu0, sim0 = os.clock(), c:now_ns()
local rows = traffic.random(t, { sizes = { math.floor(o.bytes) }, count = math.floor(o.count), warmup = 0, seed = 1 })
local cpu, sim = os.clock() - cpu0, c:now_ns() - sim0
local messages = c:size() * math.floor(o.count)
assert(rows[1].count == messages, "scale: not every message was timed")
local st = c:stats()
io.write(("nodes %d messages %d simulated_us %.1f mb_per_s %.1f guest_instructions %d events %d\n")
  :format(c:size(), messages, sim / 1000, rows[1].mb_per_s, st.instructions, st.events))
io.write(("cpu_s %.3f cpu_us_per_message %.2f sim_us_per_cpu_s %.0f dozed_instructions %d agent_batches %d\n")
  :format(cpu, cpu * 1e6 / messages, sim / 1000 / math.max(cpu, 1e-9), st.dozed_instructions or 0, st.agent_batches))
