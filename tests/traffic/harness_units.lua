-- The shared harness's pure parts (lua-scripts/lib/): argument parsing and its usage
-- errors, statistics, counter checks, Markdown cells. No cluster needed.
local args = require "args"
local stats = require "stats"
local counters = require "counters"
local output = require "output"

local function fails(fn, pattern, what)
  local ok, err = pcall(fn)
  lk.assert(not ok, what .. ": expected an error, got none")
  lk.assert(tostring(err):find(pattern, 1, true) ~= nil,
    ("%s: expected the error to contain '%s', got: %s"):format(what, pattern, tostring(err)))
end

-- args
local spec = { quick = false, iters = 20, sizes = { 4 }, csv_dir = "" }
local o = args.parse({ [0] = "x.lua", "--quick", "--iters", "7", "--sizes", "4,64,1024", "--csv-dir", "d" }, spec)
lk.assert(o.quick == true and o.iters == 7 and #o.sizes == 3 and o.sizes[3] == 1024 and o.csv_dir == "d",
  "args.parse: flags, numbers, lists and dashed names")
local d = args.parse({ [0] = "x.lua" }, spec)
lk.assert(d.quick == false and d.iters == 20 and d.sizes[1] == 4, "args.parse: defaults kept")
fails(function() args.parse({ [0] = "x.lua", "--itres", "3" }, spec, "usage: x") end,
  "x.lua: unknown option --itres (known: --csv-dir --iters --quick --sizes)", "unknown option")
fails(function() args.parse({ [0] = "x.lua", "--iters" }, spec) end, "x.lua: --iters needs a value", "missing value")
fails(function() args.parse({ [0] = "x.lua", "--iters", "many" }, spec) end,
  "--iters: expected a number, got 'many'", "not a number")
fails(function() args.parse({ [0] = "x.lua", "--sizes", "4,x" }, spec) end, "--sizes: 'x' is not a number", "bad list")
fails(function() args.parse({ [0] = "x.lua", "loose" }, spec) end, "unexpected argument 'loose'", "positional")
local p = args.pow2(4, 64)
lk.assert(#p == 5 and p[1] == 4 and p[5] == 64 and args.max(p) == 64, "args.pow2 / args.max")

-- stats: nearest-rank percentiles, lower median, scale
local s = stats.summary({ 5, 1, 4, 2, 3, 100 }, 1)
lk.assert(s.n == 6 and s.min == 1 and s.max == 100 and s.median == 3 and s.mean == 115 / 6 and s.p99 == 100,
  ("stats.summary: got n %d min %s max %s median %s mean %s"):format(s.n, s.min, s.max, s.median, s.mean))
local big = {}
for i = 1, 200 do big[i] = i * 1000000 end
local b = stats.summary(big, 1e6)
lk.assert(b.p99 == 198 and b.median == 100 and b.min == 1, "stats.summary: p99 of 1..200 is 198 (nearest rank)")
lk.assert(stats.summary({}).n == 0 and stats.summary({}).mean == nil, "stats.summary: empty")

-- counters
local sum = counters.check("P", { { sent = 3, received = 2, bad_crc = 0 }, { sent = 0, received = 1, bad_crc = 0 } },
  { zero = { "bad_crc" }, equal = { { "sent", "received" } } })
lk.assert(sum.sent == 3 and sum.received == 3, "counters.check: sums")
fails(function() counters.check("P", { { bad_crc = 2 } }, { zero = { "bad_crc" } }) end,
  "P counters: bad_crc = 2, expected 0", "a rejection counter")
counters.check("P", { { bad_len = 1 } }, { zero = { "bad_len" }, expect = { bad_len = 1 } })
fails(function() counters.check("P", { { sent = 2, received = 1 } }, { equal = { { "sent", "received" } } }) end,
  "P counters: 2 sent, 1 received, expected equal", "a lost packet")

-- output cells
lk.assert(output.cell(nil) == "-" and output.cell(true) == "yes" and output.cell(3) == "3"
  and output.cell(1.5) == "1.500" and output.cell(123.45) == "123.5" and output.cell(0 / 0) == "-", "output.cell")
local md = output.table({ { size = 4, v = 1.25 } }, { "size", "v" }, { size = "bytes" })
lk.assert(md == "| bytes | v |\n|---:|---:|\n| 4 | 1.250 |\n", "output.table: " .. md)
io.write("harness units OK\n")
