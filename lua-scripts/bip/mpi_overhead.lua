-- mpi_overhead.lua -- the MPI-style layer's cost over raw BIP (issue 12, beyond the paper;
-- the paper reports only a small loss for its MPICH port). docs/bip.md, "An MPI-style layer".
--
--   lanaikit run lua-scripts/bip/mpi_overhead.lua [--quick] [--sizes 0,4,...] [--iters N]
--                [--nodes 4,8] [--coll-iters N] [--csv-dir DIR]
--
-- Ping-pong between nodes 0 and 1 on BIP's testbed, the paper's method (median of the round
-- trips / 2, bip_bench.pingpong): raw BIP (its ready-mode ping-pong) and MPI's blocking
-- send/recv, per size from 0 to 1 MB; the table gives both, the overhead (us and %) and the
-- bandwidths. Then barrier, bcast and allreduce on 4 and 8 nodes: per operation, the time
-- from the first rank entering to the last leaving (each iteration starts after a barrier),
-- the median over --coll-iters.
local args = require "args"
local output = require "output"
local stats = require "stats"
local B = require "bip.bip_bench"
local mpi = require "bip.mpi"

local o = args.parse(arg, { quick = false, sizes = {}, iters = 0, nodes = { 4, 8 }, coll_iters = 0, csv_dir = "" },
  "usage: mpi_overhead.lua [--quick] [--sizes 0,4,...] [--iters N] [--nodes 4,8] [--coll-iters N] [--csv-dir DIR]")
local sizes = #o.sizes > 0 and o.sizes
  or (o.quick and { 0, 4, 1008, 4096, 65536 }
    or { 0, 4, 16, 64, 256, 1008, 1024, 4096, 16384, 65536, 262144, 1 << 20 })
for _, s in ipairs(sizes) do
  if math.type(s) ~= "integer" or s < 0 or s > (1 << 20) or s % 4 ~= 0 then
    error(("mpi_overhead.lua: size %s: expected a multiple of 4 in 0..1048576 (raw BIP's rule)"):format(s), 0)
  end
end
-- Round trips per size: the paper's 1000 are many for 1 MB (8 ms each); fewer above 64 KB.
local function iters_for(size)
  if o.iters > 0 then return o.iters end
  if o.quick then return 10 end
  return size > 65536 and 20 or 200
end
local coll_iters = o.coll_iters > 0 and o.coll_iters or (o.quick and 5 or 50)

-- MPI ping-pong of `size` bytes between world ranks 0 and 1: one-way samples (us).
local function mpi_pingpong(ctx, world, size, iters, warmup)
  local data = B.payload(size, 3)
  local samples, bad = {}, nil
  ctx.c:spawn(0, "mpi-ping", function(p)
    local w = world[0]
    for i = 1, warmup + iters do
      local t0 = p:now_ns()
      w:send(p, 1, 7, data)
      local got = w:recv(p, 1, 7)
      if i > warmup then samples[#samples + 1] = (p:now_ns() - t0) / 2 / 1000 end
      if i == 1 and got ~= data then bad = "the data came back changed" end
    end
  end)
  ctx.c:spawn(1, "mpi-pong", function(p)
    local w = world[1]
    for _ = 1, warmup + iters do
      local got = w:recv(p, 0, 7)
      w:send(p, 0, 7, got)
    end
  end)
  ctx.c:run {}
  if bad then error(("mpi ping-pong of %d bytes: %s"):format(size, bad), 0) end
  if #samples ~= iters then error(("mpi ping-pong of %d bytes: %d of %d round trips"):format(size, #samples, iters), 0) end
  return stats.summary(samples).median
end

local raw = B.setup { nodes = 2, max_bytes = math.max(4, args.max(sizes)) }
local mctx = B.setup { nodes = 2, max_bytes = 4096 }
local world = mpi.world(mctx)
local rows = {}
for _, size in ipairs(sizes) do
  local n = iters_for(size)
  local r = B.pingpong(raw, size, { iters = n, warmup = 2 })
  local m = mpi_pingpong(mctx, world, size, n, 2)
  rows[#rows + 1] = {
    size = size, bip_us = r.median_us, mpi_us = m, over_us = m - r.median_us,
    over_pct = 100 * (m / r.median_us - 1), bip_mb_s = size / r.median_us, mpi_mb_s = size / m,
    protocol = size <= world[0].eng.eager_max and "eager" or "rendezvous", iters = n,
  }
end
B.check_clean(raw)
B.check_clean(mctx)

local c = mctx.bip:costs()
io.write(("MPI over BIP: ping-pong, one-way = median round trip / 2, %s platform\n"):format(mctx.platform.name))
io.write(("modelled MPI costs: %.0f ns per call, %.0f ns per message handled, copies at %g MB/s; eager up to %d bytes\n\n")
  :format(mpi.costs.call_ns, mpi.costs.match_ns, c.copy_mb_per_s, world[0].eng.eager_max))
local cols = { "size", "protocol", "bip_us", "mpi_us", "over_us", "over_pct", "bip_mb_s", "mpi_mb_s", "iters" }
io.write(output.table(rows, cols, { size = "bytes", bip_us = "BIP us", mpi_us = "MPI us", over_us = "overhead us",
  over_pct = "overhead %", bip_mb_s = "BIP MB/s", mpi_mb_s = "MPI MB/s", iters = "round trips" },
  { "r", "l", "r", "r", "r", "r", "r", "r", "r" }))
output.csv(o.csv_dir, "mpi_pingpong", rows, cols)

-- One collective, timed: every iteration starts after a barrier; its time is the last
-- rank's end minus the first rank's start.
local function time_collective(nodes, name, op)
  local ctx = B.setup { nodes = nodes, max_bytes = 4096 }
  local w = mpi.world(ctx)
  local starts, ends = {}, {}
  for i = 1, coll_iters do
    starts[i], ends[i] = math.huge, 0
  end
  for r = 0, nodes - 1 do
    ctx.c:spawn(r, name .. r, function(p)
      local comm = w[r]
      for i = 1, coll_iters do
        comm:barrier(p)
        local t0 = p:now_ns()
        op(p, comm)
        starts[i], ends[i] = math.min(starts[i], t0), math.max(ends[i], p:now_ns())
      end
    end)
  end
  ctx.c:run {}
  B.check_clean(ctx)
  local samples = {}
  for i = 1, coll_iters do samples[i] = (ends[i] - starts[i]) / 1000 end
  return stats.summary(samples).median
end

local big = B.payload(65536, 5)
local vec = {}
for i = 1, 1024 do vec[i] = i * 0.5 end
local ops = {
  { "barrier", function(p, comm) comm:barrier(p) end },
  { "bcast 4 B", function(p, comm) comm:bcast(p, comm.rank == 0 and "abcd" or nil, 0) end },
  { "bcast 64 KB", function(p, comm) comm:bcast(p, comm.rank == 0 and big or nil, 0) end },
  { "allreduce 1 number", function(p, comm) comm:allreduce(p, comm.rank, "sum") end },
  { "allreduce 1024 numbers", function(p, comm) comm:allreduce(p, vec, "max") end },
}
local crow = {}
for _, op in ipairs(ops) do
  local row = { op = op[1] }
  for _, n in ipairs(o.nodes) do row["n" .. n] = time_collective(n, op[1]:gsub("%W", "_"), op[2]) end
  crow[#crow + 1] = row
end
local ccols, heads, align = { "op" }, { op = "collective" }, { "l" }
for _, n in ipairs(o.nodes) do
  ccols[#ccols + 1] = "n" .. n
  heads["n" .. n] = ("%d nodes (us)"):format(n)
  align[#align + 1] = "r"
end
io.write(("\ncollectives (median of %d, first rank in to last rank out)\n\n"):format(coll_iters))
io.write(output.table(crow, ccols, heads, align))
output.csv(o.csv_dir, "mpi_collectives", crow, ccols)
