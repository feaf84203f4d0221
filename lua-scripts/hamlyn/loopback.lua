-- loopback.lua -- the Hamlyn paper's Figure 10: a message whose source and destination are
-- the same process on the same host (out through the switch and back), so sending and
-- receiving compete for one LANai and one I/O bus. Per size: the time from the send call
-- to the process seeing its own message (mean of --iters), and size / time. The paper:
-- 19.1 us for 4 bytes, 22 MB/s asymptotic (28 MB/s between two hosts).
--
--   lanaikit run lua-scripts/hamlyn/loopback.lua [--sizes 4,...] [--iters 20] [--packet 4096]
local args = require "args"
local output = require "output"
local stats = require "stats"
local H = require "hamlyn.hamlyn_bench"

local o = args.parse(arg, { sizes = { 4, 64, 256, 1024, 4096, 8192, 16384, 32768, 40960 }, iters = 20,
                            packet = 4096, platform = "hamlyn", csv_dir = "" },
  "usage: loopback.lua [--sizes 4,...] [--iters N] [--packet BYTES] [--csv-dir DIR]")

local ctx = H.setup { platform = o.platform, packet = o.packet, nodes = 1, opts = { direct_max = 0 },
                      area = 64 * 1024, send_bytes = 64 * 1024 }
local a = ctx.apps[0]
local rows = {}
for _, size in ipairs(o.sizes) do
  local data = H.payload(size, 3)
  ctx.c:node(0):host_write(ctx.send[0], data)
  local t = a:ticket(ctx.slot[0], 0, 0, size)
  local samples = {}
  ctx.c:spawn(0, "loop", function(p)
    for i = 1, o.iters + 2 do
      local t0 = p:now_ns()
      a:send(p, t, ctx.send[0], size, ctx.meta[0], 0)
      assert(a:recv_block(p, 1e9), "no message")
      if i > 2 then samples[#samples + 1] = (p:now_ns() - t0) / 1000 end
    end
  end)
  ctx.c:run {}
  assert(ctx.c:node(0):host_read(ctx.area[0], size) == data, "loopback bytes differ at " .. size)
  local s = stats.summary(samples)
  rows[#rows + 1] = { size = size, mean_us = s.mean, mb_s = size / s.mean }
end
H.check_clean(ctx)
io.write(("Hamlyn loopback on one host (%d-byte packets, DMA sends; mean of %d)\n\n"):format(o.packet, o.iters))
io.write(output.table(rows, { "size", "mean_us", "mb_s" }, { size = "bytes", mean_us = "us", mb_s = "MB/s" }))
io.write(("\npaper: %.1f us for 4 bytes, %.0f MB/s asymptotic\n"):format(H.paper.loopback_4_us, H.paper.loopback_mb_s))
output.csv(o.csv_dir, "hamlyn_loopback", rows, { "size", "mean_us", "mb_s" })
