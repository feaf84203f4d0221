-- paper.lua -- "paper vs lanaikit": a protocol's headline numbers beside its paper's.
--
-- A headline row (what lua-scripts/<protocol>/headline.lua returns, one per protocol
-- variant):
--   { protocol = "VMMC", testbed = <platform name>,
--     latency_us =,        -- one-word one-way latency: mean of round trip / 2
--     bandwidth_mb_s =, bandwidth_bytes =,  -- peak one-way bandwidth and the size it was at
--     insns_per_packet =,  -- the control program's instructions per packet, send + receive
--     paper = { source =, testbed =, latency_us =, bandwidth_mb_s =, insns_per_packet = }
--             or nil (no paper: say why in `note`),
--     note = "..." }
-- A number the paper does not give is nil there and prints as "not given".
local paper = {}

local function num(v, fmt) return v and (fmt):format(v) or nil end

-- "lanaikit / paper" cells of one metric.
local function pair(ours, theirs, fmt, has_paper)
  local a = num(ours, fmt) or "-"
  if not has_paper then return a end
  return a .. " / " .. (num(theirs, fmt) or "not given")
end

-- The table of rows on their papers' testbeds, lanaikit beside the paper.
function paper.headline_table(rows)
  local out = { "| protocol | testbed | one-way latency us (lanaikit / paper) | peak MB/s (lanaikit / paper) | "
                .. "insns per packet (lanaikit / paper) | source |",
                "|---|---|---:|---:|---:|---|" }
  for _, r in ipairs(rows) do
    local p = r.paper or {}
    local bw = pair(r.bandwidth_mb_s, p.bandwidth_mb_s, "%.1f", r.paper ~= nil)
    if r.bandwidth_bytes then bw = bw .. (" (at %d B)"):format(r.bandwidth_bytes) end
    out[#out + 1] = ("| %s | %s | %s | %s | %s | %s |"):format(r.protocol, r.testbed,
      pair(r.latency_us, p.latency_us, "%.2f", r.paper ~= nil), bw,
      pair(r.insns_per_packet, p.insns_per_packet, "%.0f", r.paper ~= nil),
      r.paper and p.source or ("no paper: " .. (r.note or "")))
  end
  return table.concat(out, "\n") .. "\n"
end

-- The table of rows on one testbed (no paper column: the papers measured elsewhere).
function paper.common_table(rows)
  local out = { "| protocol | one-way latency us | peak MB/s | insns per packet |", "|---|---:|---:|---:|" }
  for _, r in ipairs(rows) do
    local bw = num(r.bandwidth_mb_s, "%.1f") or "-"
    if r.bandwidth_bytes then bw = bw .. (" (at %d B)"):format(r.bandwidth_bytes) end
    out[#out + 1] = ("| %s | %s | %s | %s |"):format(r.protocol, num(r.latency_us, "%.2f") or "-", bw,
                                                     num(r.insns_per_packet, "%.0f") or "-")
  end
  return table.concat(out, "\n") .. "\n"
end

return paper
