-- args.lua -- command-line options of an experiment script (`lanaikit run x.lua --name v`).
--
--   local args = require "args"
--   local o = args.parse(arg, { quick = false, iters = 20, sizes = { 4, 64 }, csv_dir = "" },
--                        "usage: x.lua [--quick] [--iters N] [--sizes 4,64,...] [--csv-dir DIR]")
--
-- The spec's defaults give the types: false is a flag ("--quick" alone), a number takes a
-- number, a table takes a comma-separated list of numbers, a string takes any word.
-- "--csv-dir" sets csv_dir. Anything else is a usage error naming the script, the
-- offending argument and the known options (followed by `usage`), raised without a Lua
-- position so `lanaikit run` prints it as it is.
local args = {}

local function fail(argv, msg, usage)
  error(("%s: %s%s"):format(argv and argv[0] or "script", msg, usage and ("\n" .. usage) or ""), 0)
end

function args.parse(argv, spec, usage)
  local o = {}
  for k, v in pairs(spec) do o[k] = v end
  local i = 1
  while argv and argv[i] do
    local a = argv[i]
    local name = a:match("^%-%-([%w_%-]+)$")
    if not name then fail(argv, ("unexpected argument '%s'"):format(a), usage) end
    local key = name:gsub("%-", "_")
    local d = spec[key]
    if d == nil then
      local known = {}
      for k in pairs(spec) do known[#known + 1] = "--" .. k:gsub("_", "-") end
      table.sort(known)
      fail(argv, ("unknown option --%s (known: %s)"):format(name, table.concat(known, " ")), usage)
    end
    if d == false then
      o[key] = true
      i = i + 1
    else
      local v = argv[i + 1]
      if v == nil then fail(argv, ("--%s needs a value"):format(name)) end
      if type(d) == "number" then
        o[key] = tonumber(v) or fail(argv, ("--%s: expected a number, got '%s'"):format(name, v))
      elseif type(d) == "table" then
        local list = {}
        for item in v:gmatch("[^,]+") do
          list[#list + 1] = tonumber(item) or fail(argv, ("--%s: '%s' is not a number"):format(name, item))
        end
        o[key] = list
      else
        o[key] = v
      end
      i = i + 2
    end
  end
  return o
end

-- Powers of two from lo to hi: a size sweep.
function args.pow2(lo, hi)
  local t, s = {}, lo
  while s <= hi do
    t[#t + 1] = s
    s = s * 2
  end
  return t
end

-- The largest number of a list (0 for an empty one).
function args.max(list)
  local m = 0
  for _, v in ipairs(list) do m = math.max(m, v) end
  return m
end

return args
