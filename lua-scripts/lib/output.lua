-- output.lua -- results as Markdown tables, CSV files and SVG plots.
local output = {}

-- One table cell: "-" for nothing (nil, NaN, infinity), yes/no for booleans, integers as
-- they are, other numbers with three decimals below 100 and one from 100 up.
function output.cell(v)
  if v == nil then return "-" end
  if type(v) == "boolean" then return v and "yes" or "no" end
  if math.type(v) == "integer" then return tostring(v) end
  if type(v) == "number" then
    if v ~= v or v == math.huge then return "-" end
    if v >= 100 then return ("%.1f"):format(v) end
    return ("%.3f"):format(v)
  end
  return tostring(v)
end

-- A Markdown table of rows, columns in order; `headers` renames columns; `align` is
-- "right" (default: every column numeric) or a list of "l"/"r" per column.
function output.table(rows, columns, headers, align)
  local out = {}
  local head = {}
  for i, c in ipairs(columns) do head[i] = headers and headers[c] or c end
  out[#out + 1] = "| " .. table.concat(head, " | ") .. " |"
  local sep = {}
  for i = 1, #columns do sep[i] = (type(align) == "table" and align[i] == "l") and "---" or "---:" end
  out[#out + 1] = "|" .. table.concat(sep, "|") .. "|"
  for _, r in ipairs(rows) do
    local cells = {}
    for i, c in ipairs(columns) do cells[i] = output.cell(r[c]) end
    out[#out + 1] = "| " .. table.concat(cells, " | ") .. " |"
  end
  return table.concat(out, "\n") .. "\n"
end

local function mkdir(dir) os.execute(("mkdir -p '%s'"):format(dir:gsub("'", "'\\''"))) end

-- Writes rows as CSV (columns in order; booleans as 1/0) into dir/name.csv when dir is
-- given and not empty; returns the path.
function output.csv(dir, name, rows, columns)
  if not dir or dir == "" then return nil end
  mkdir(dir)
  local path = dir .. "/" .. name .. ".csv"
  local plain = {}
  for i, r in ipairs(rows) do
    local t = {}
    for _, c in ipairs(columns) do
      local v = r[c]
      if type(v) == "boolean" then v = v and 1 or 0 end
      t[c] = v
    end
    plain[i] = t
  end
  lk.write_csv(path, plain, columns)
  return path
end

-- An SVG plot into dir/name.svg of series { {name =, rows =, y =} } against the rows'
-- size (log x); returns the path.
function output.svg(dir, name, title, y_label, series, log_y)
  if not dir or dir == "" then return nil end
  mkdir(dir)
  local path = dir .. "/" .. name .. ".svg"
  local ss = {}
  for _, s in ipairs(series) do
    local pts = {}
    for _, r in ipairs(s.rows) do
      if r[s.y] then pts[#pts + 1] = { r.size, r[s.y] } end
    end
    ss[#ss + 1] = { name = s.name, points = pts }
  end
  lk.plot_svg(path, { title = title, x_label = "message size (bytes)", y_label = y_label,
                      log_x = true, log_y = log_y or false, series = ss })
  return path
end

return output
