-- payload.lua -- message contents that show where a byte went wrong.
local payload = {}

-- Byte k of message `seq` from `src` is
--   (src * 131 + seq * 7 + 3 * (k // 256) + k) mod 256,
-- so a byte that lands at the wrong offset, in the wrong message or from the wrong source
-- differs from the expected one (the 3 * (k // 256) term breaks the 256-byte period).
local CYCLE
do
  local t = {}
  for i = 0, 255 do t[#t + 1] = string.char(i) end
  CYCLE = table.concat(t)
  CYCLE = CYCLE .. CYCLE
end

function payload.pattern(src, seq, len)
  local a = (src * 131 + seq * 7) % 256
  local parts, k, j = {}, 0, 0
  while k < len do
    local start = (a + 3 * j) % 256
    local n = math.min(256, len - k)
    parts[#parts + 1] = CYCLE:sub(start + 1, start + n)
    k, j = k + n, j + 1
  end
  return table.concat(parts)
end

return payload
