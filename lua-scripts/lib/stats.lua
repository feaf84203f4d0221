-- stats.lua -- summaries of measured samples (latencies, per-send times).
local stats = {}

-- The q-quantile of a sorted list (nearest rank: the smallest sample with at least q of
-- the samples at or below it); nil for an empty list.
function stats.percentile(sorted, q)
  if #sorted == 0 then return nil end
  return sorted[math.max(1, math.ceil(q * #sorted))]
end

-- stats.summary(samples [, scale]) -> { n, mean, median, min, max, p99 }, every value
-- divided by scale (default 1; e.g. 1e6 for picoseconds to microseconds). The median is
-- the lower middle sample for an even count, so it is always a measured value. An empty
-- list gives n = 0 and nil for the rest.
function stats.summary(samples, scale)
  scale = scale or 1
  local s = {}
  local sum = 0
  for i, v in ipairs(samples) do
    s[i] = v
    sum = sum + v
  end
  table.sort(s)
  local n = #s
  local function sc(v) return v and v / scale end
  return { n = n, mean = n > 0 and sum / n / scale or nil, median = sc(s[(n + 1) // 2]), min = sc(s[1]),
           max = sc(s[n]), p99 = sc(stats.percentile(s, 0.99)) }
end

return stats
