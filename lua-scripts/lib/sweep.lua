-- sweep.lua -- how a script reports the result of one point of `lanaikit sweep`
-- (docs/sweep.md).
--
--   local sweep = require "sweep"
--   sweep.result { latency_us = lat, bandwidth_mb_s = bw }
--
-- The point's values reach the script as `--name value` arguments (read them with
-- args.parse). sweep.result takes named numbers, strings and booleans, once per run. Under
-- `lanaikit sweep` they go, with lk.write_json (integers stay integers, other numbers are
-- written in their shortest exact form), to the file named by the environment variable
-- LANAIKIT_SWEEP_RESULT, which the sweep merges into its table once the run has ended
-- well; under a plain `lanaikit run` they are printed, one "name = value" line each,
-- sorted by name, so the same script serves both.
--
-- For plotting a finished sweep: sweep.read(dir) -> the rows of dir/results.csv, and
-- sweep.curves(rows, x, y, by) -> a family of curves for lk.plot_svg.
local sweep = {}

local VARIABLE = "LANAIKIT_SWEEP_RESULT"
local recorded = false

-- True when the script runs as a point of a sweep.
function sweep.active() return os.getenv(VARIABLE) ~= nil end

function sweep.result(values)
  if type(values) ~= "table" then
    error(("sweep.result: expected a table of named values, got %s"):format(type(values)), 2)
  end
  if recorded then error("sweep.result: called twice (a point has one result)", 2) end
  local names = {}
  for k, v in pairs(values) do
    if type(k) ~= "string" or not k:match("^[%a_][%w_]*$") then
      error(("sweep.result: the key %s is not a name (letters, digits, '_')"):format(tostring(k)), 2)
    end
    local t = type(v)
    if t ~= "number" and t ~= "string" and t ~= "boolean" then
      error(("sweep.result: '%s' is a %s (expected a number, a string or a boolean)"):format(k, t), 2)
    end
    if t == "number" and (v ~= v or v == math.huge or v == -math.huge) then
      error(("sweep.result: '%s' is %s (JSON has no spelling for it)"):format(k, tostring(v)), 2)
    end
    names[#names + 1] = k
  end
  if #names == 0 then error("sweep.result: no values", 2) end
  recorded = true
  local path = os.getenv(VARIABLE)
  if path then
    lk.write_json(path, values)
  else
    table.sort(names)
    for _, k in ipairs(names) do io.write(k, " = ", tostring(values[k]), "\n") end
  end
end

-- The fields of one CSV record (RFC 4180 as report/csv.h writes it: quoted fields with
-- "" for a quote; no line breaks inside fields, which a sweep's table never has).
local function fields(line)
  local out, i, n = {}, 1, #line
  while true do
    local f
    if line:sub(i, i) == '"' then
      f, i = "", i + 1
      while true do
        local q = line:find('"', i, true) or error("sweep.read: unterminated quote in: " .. line, 0)
        f = f .. line:sub(i, q - 1)
        if line:sub(q + 1, q + 1) == '"' then
          f, i = f .. '"', q + 2
        else
          i = q + 1
          break
        end
      end
    else
      local c = line:find(",", i, true) or n + 1
      f, i = line:sub(i, c - 1), c
    end
    out[#out + 1] = f
    if i > n then return out end
    i = i + 1 -- the comma
  end
end

-- The rows of a sweep's merged table (dir/results.csv), keyed by column name; a field
-- that reads as a number is a number, an empty one is absent.
function sweep.read(dir)
  local path = dir .. "/results.csv"
  local f = io.open(path, "rb") or error("sweep.read: cannot open " .. path, 2)
  local text = f:read("a")
  f:close()
  local rows, header = {}, nil
  for line in text:gmatch("([^\n]*)\n") do
    line = line:gsub("\r$", "")
    local fs = fields(line)
    if not header then
      header = fs
    else
      local row = {}
      for k, name in ipairs(header) do
        local v = fs[k]
        if v ~= nil and v ~= "" then row[name] = tonumber(v) or v end
      end
      rows[#rows + 1] = row
    end
  end
  return rows, header
end

-- A family of curves from a sweep's rows: one series per value of column `by` (in order
-- of first appearance), named "<by> = <value>", its points (row[x], row[y]) sorted by x.
-- Rows that lack x or y are left out.
function sweep.curves(rows, x, y, by)
  local series, of = {}, {}
  for _, r in ipairs(rows) do
    if r[x] ~= nil and r[y] ~= nil then
      local key = tostring(r[by])
      if not of[key] then
        of[key] = { name = ("%s = %s"):format(by, key), points = {} }
        series[#series + 1] = of[key]
      end
      local pts = of[key].points
      pts[#pts + 1] = { r[x], r[y] }
    end
  end
  for _, s in ipairs(series) do table.sort(s.points, function(a, b) return a[1] < b[1] end) end
  return series
end

return sweep
