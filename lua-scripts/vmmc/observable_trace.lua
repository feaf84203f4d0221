-- observable_trace.lua -- the exactness oracle of issue 16: the observable trace
-- (sim/observable_trace.h: every packet's head and tail on every link, every chip event
-- with its time and instruction count) of a fixed set of runs, one hash per run.
--
--   lanaikit run lua-scripts/vmmc/observable_trace.lua [--only NAME] [--expect FILE]
--
-- A change to the models' event structure (fewer link events, a cheaper kernel) must
-- leave every hash here unchanged; the event-level trace hash (lk.trace_hash) may move.
-- Runs: VMMC ping-pong and one-way bandwidth (vmmc_bench.lua), vmmc/stress.lua on 2 and 4
-- nodes, the echo experiment (examples/echo.lua) and raw messages (examples/raw_sweep.lua).
-- Prints "NAME HASH RECORDS" per run (the scripts' own output is suppressed). With
-- --expect FILE (lines "NAME HASH RECORDS"), exits with an error naming every run whose
-- hash or record count differs from the file's.
local args = require "args"
local o = args.parse(arg, { only = "", expect = "" },
  "usage: observable_trace.lua [--only NAME] [--expect FILE]")

-- The lua-scripts folder (as main.lua finds it).
local root
for entry in package.path:gmatch("[^;]+") do
  local dir = entry:match("^(.*/lua%-scripts)/%?%.lua$")
  if dir then root = dir break end
end
assert(root, "observable_trace.lua: package.path has no <source>/lua-scripts/?.lua entry")

-- Runs `fn` with print and io.write silenced.
local function quietly(fn)
  local p, w = print, io.write
  print, io.write = function() end, function() return io.stdout end
  local ok, err = pcall(fn)
  print, io.write = p, w
  if not ok then error(err, 0) end
end

-- Runs a script with the given arguments, as `lanaikit run` would.
local function script(path, argv)
  return function()
    local chunk = assert(loadfile(root .. "/" .. path))
    local saved = arg
    arg = argv
    local ok, err = pcall(chunk, table.unpack(argv))
    arg = saved
    if not ok then error(err, 0) end
  end
end

local runs = {
  { "vmmc_pingpong", function()
      local B = require "vmmc.vmmc_bench"
      local ctx = B.setup { nodes = 2, max_bytes = 16384 }
      B.pingpong(ctx, { 4, 64, 256, 4096, 16384 }, { iters = 4, warmup = 1 })
      B.check_clean(ctx)
    end },
  { "vmmc_bandwidth", function()
      local B = require "vmmc.vmmc_bench"
      local ctx = B.setup { nodes = 2, max_bytes = 65536 }
      local opts = { bytes = 256 << 10, min_count = 4, max_count = 64 }
      B.stream(ctx, { 64, 1024, 16384, 65536 }, opts)
      B.bidirectional(ctx, { 1024, 65536 }, opts)
      B.check_clean(ctx)
    end },
  { "vmmc_stress_2", script("vmmc/stress.lua", { "--nodes", "2", "--messages", "1000", "--quiet" }) },
  { "vmmc_stress_4", script("vmmc/stress.lua", { "--nodes", "4", "--messages", "1000", "--quiet" }) },
  { "echo", script("examples/echo.lua", { "4", "64", "1024", "8192" }) },
  { "raw_sweep", script("examples/raw_sweep.lua", {}) },
}

local expect = {}
if o.expect ~= "" then
  for line in io.lines(o.expect) do
    local name, hash, records = line:match("^(%S+)%s+(%x+)%s+(%d+)")
    if name then expect[name] = { hash = hash, records = records } end
  end
end

local bad = {}
for _, r in ipairs(runs) do
  local name, fn = r[1], r[2]
  if o.only == "" or o.only == name then
    lk.observe()
    quietly(fn)
    collectgarbage() -- clusters gone: their traces are final
    local hash, records = lk.observable()
    local line = string.format("%s %016x %d", name, hash, records)
    print(line)
    local e = expect[name]
    if o.expect ~= "" then
      if not e then
        bad[#bad + 1] = name .. ": not in " .. o.expect
      elseif e.hash ~= string.format("%016x", hash) or e.records ~= tostring(records) then
        bad[#bad + 1] = string.format("%s: expected %s %s, got %016x %d", name, e.hash, e.records, hash, records)
      end
    end
  end
end
if #bad > 0 then error("observable trace changed:\n  " .. table.concat(bad, "\n  "), 0) end
