-- packet_size.lua -- the BIP paper's transmission-time figure (section 5.2, "this curve
-- illustrates the adaptive packet size strategy"): one-way time of long messages with the
-- packet size the pipeline model picks (host/bip/pipeline.h) beside one sweep per fixed
-- packet size, and the model's own prediction.
--
--   lanaikit run lua-scripts/bip/packet_size.lua [--sizes 2048,...] [--packets 256,...]
--                [--iters 5] [--platform bip] [--csv-dir DIR]
--
-- Each cell is the median one-way time (round trip / 2) in us; "best" names the fastest
-- fixed size; "adaptive / best" is how far the model's choice is from it. The model is
-- also printed for every cell the sweep measured, and the largest error of the model over
-- all cells (tests/bip checks it stays small).
local args = require "args"
local output = require "output"
local B = require "bip.bip_bench"

local o = args.parse(arg, { sizes = { 2048, 4096, 8192, 16384, 32768, 65536, 262144, 1048576 },
                            packets = { 256, 512, 1024, 2048, 4096 }, iters = 5, platform = "bip", csv_dir = "" },
  "usage: packet_size.lua [--sizes 2048,...] [--packets 256,...] [--iters N] [--platform NAME] [--csv-dir DIR]")

local max = args.max(o.sizes)
local function run(opts, size)
  local ctx = B.setup { platform = o.platform, max_bytes = max, opts = opts }
  local r = B.pingpong(ctx, size, { iters = o.iters })
  B.check_clean(ctx)
  return r.median_us, ctx
end

local rows, worst = {}, 0
local columns = { "size", "adaptive_packet", "adaptive_us", "model_us" }
for _, p in ipairs(o.packets) do columns[#columns + 1] = "p" .. p .. "_us" end
columns[#columns + 1] = "best"
columns[#columns + 1] = "ratio"
for _, size in ipairs(o.sizes) do
  local t, ctx = run(nil, size)
  local bip = ctx.bip
  local chosen = bip:best_packet(size)
  local row = { size = size, adaptive_packet = chosen, adaptive_us = t, model_us = bip:model_time(size, chosen) / 1000 }
  local best, best_t = nil, math.huge
  for _, p in ipairs(o.packets) do
    local tp = run({ packet = p }, size)
    row["p" .. p .. "_us"] = tp
    if tp < best_t then best, best_t = p, tp end
    worst = math.max(worst, math.abs(bip:model_time(size, p) / 1000 / tp - 1))
  end
  row.best = best
  row.ratio = t / best_t
  rows[#rows + 1] = row
end

local headers = { size = "bytes", adaptive_packet = "adaptive packet", adaptive_us = "adaptive us",
                  model_us = "model us", best = "best fixed", ratio = "adaptive / best" }
for _, p in ipairs(o.packets) do headers["p" .. p .. "_us"] = p .. " B us" end
io.write(("BIP transmission time by packet size on %s: one-way us (median of %d round trips / 2)\n\n")
  :format(o.platform, o.iters))
io.write(output.table(rows, columns, headers))
io.write(("\nthe model's largest error over the fixed-size cells: %.1f%%\n"):format(100 * worst))
output.csv(o.csv_dir, "bip_packet_size", rows, columns)
return { rows = rows, worst = worst }
