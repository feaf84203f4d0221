-- counters.lua -- the check every experiment ends with: nothing dropped or refused.
--
--   local sum = counters.check("VMMC", { node0_counters, node1_counters, ... },
--                              { zero = { "bad_crc", "bad_len" }, equal = { { "sent", "received" } } })
--
-- Sums the tables key by key; every counter named in `zero` must be 0 (or the value given
-- in `expect`, for a run that provokes rejections on purpose), and each pair in `equal`
-- must match. The first violation is an error naming the protocol, the counter and both
-- values. Returns the sums.
local counters = {}

function counters.sum(list)
  local sum = {}
  for _, t in ipairs(list) do
    for k, v in pairs(t) do sum[k] = (sum[k] or 0) + v end
  end
  return sum
end

function counters.check(what, list, rules)
  local sum = counters.sum(list)
  local expect = rules.expect or {}
  for _, k in ipairs(rules.zero or {}) do
    local want = expect[k] or 0
    if (sum[k] or 0) ~= want then
      error(("%s counters: %s = %d, expected %d"):format(what, k, sum[k] or 0, want), 2)
    end
  end
  for _, pair in ipairs(rules.equal or {}) do
    local a, b = sum[pair[1]] or 0, sum[pair[2]] or 0
    if a ~= b then
      error(("%s counters: %d %s, %d %s, expected equal"):format(what, a, pair[1], b, pair[2]), 2)
    end
  end
  return sum
end

return counters
