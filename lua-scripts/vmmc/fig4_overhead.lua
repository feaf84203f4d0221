-- fig4_overhead.lua -- the VMMC paper's Figure 4: send overhead, synchronous and
-- asynchronous (one-way traffic).
--
--   lanaikit run lua-scripts/vmmc/fig4_overhead.lua [--sizes 4,...] [--iters 10] [--csv-dir DIR]
--
-- The time node 0's process spends inside ep:send: synchronous, until the send buffer may
-- be reused (short: posted by PIO; long: the last chunk in LANai SRAM); asynchronous, until
-- the request is posted. Each send starts with idle interfaces. Sizes default to
-- 4 B .. 8 KB. Prints the table beside the paper's "about 3 us up to 128 bytes"; writes
-- DIR/fig4_overhead.csv and .svg (default DIR: vmmc-results).
local args = require "args"
local output = require "output"
local B = require "vmmc.vmmc_bench"

local o = args.parse(arg, { sizes = args.pow2(4, 8192), iters = 10, csv_dir = "vmmc-results" },
  "usage: fig4_overhead.lua [--sizes 4,...] [--iters N] [--csv-dir DIR]")
local ctx = B.setup { nodes = 2, max_bytes = args.max(o.sizes) }
local rows = B.overhead(ctx, o.sizes, { iters = o.iters })
B.check_clean(ctx)
io.write(("VMMC Figure 4: send overhead, %s platform (median and mean of %d sends)\n\n"):format(ctx.platform.name, o.iters))
io.write(output.table(rows, B.columns.overhead, { size = "bytes", short = "short send",
  sync_us = "synchronous us", async_us = "asynchronous us", sync_mean_us = "sync mean us",
  async_mean_us = "async mean us" }))
local worst = 0
for _, r in ipairs(rows) do
  if r.size <= B.paper.short_max then worst = math.max(worst, r.sync_us) end
end
io.write(("\nsynchronous overhead up to 128 bytes: at most %.2f us (paper: about %d us)\n")
  :format(worst, B.paper.sync_overhead_us))
local csv = output.csv(o.csv_dir, "fig4_overhead", rows, B.columns.overhead)
local svg = output.svg(o.csv_dir, "fig4_overhead", "VMMC send overhead", "overhead (us)", {
  { name = "synchronous", rows = rows, y = "sync_us" },
  { name = "asynchronous", rows = rows, y = "async_us" },
}, true)
if csv then io.write(("wrote %s, %s\n"):format(csv, svg)) end
