-- Shared set-up for the tests in tests/traffic/ (run by `lanaikit run`, see CMakeLists.txt).
local raw = require "raw.raw"
local traffic = require "traffic"

local common = { raw = raw, traffic = traffic }

-- A cluster of n nodes on the VMMC platform running raw; returns cluster, net, transport.
-- opts go to raw.setup (slots, slot_bytes); opts.nodes_per_switch etc. to lk.cluster.
function common.raw_cluster(n, opts)
  opts = opts or {}
  local platform = lk.platform(opts.platform or "vmmc")
  local fw = lk.firmware { sources = { "firmware/raw/raw.fw" } }
  local c = lk.cluster { platform = platform, nodes = n, topology = opts.topology }
  local net = raw.setup(c, fw, { platform = platform, slots = opts.slots, slot_bytes = opts.slot_bytes })
  return c, net, net:transport(), fw
end

-- Sums raw's firmware counters over the nodes.
function common.totals(net, n)
  local sum = {}
  for i = 0, n - 1 do
    for k, v in pairs(net:counters(i)) do sum[k] = (sum[k] or 0) + v end
  end
  return sum
end

-- No bad packets or descriptors anywhere, and every packet sent was delivered.
function common.check_clean(net, n, what)
  local t = common.totals(net, n)
  lk.assert(t.bad_send == 0 and t.bad_crc == 0 and t.bad_magic == 0 and t.bad_len == 0,
    ("%s: bad counters send %d crc %d magic %d len %d, expected all 0")
      :format(what, t.bad_send, t.bad_crc, t.bad_magic, t.bad_len))
  lk.assert(t.sent == t.delivered,
    ("%s: %d packets sent but %d delivered"):format(what, t.sent, t.delivered))
  return t
end

function common.check_rows(rows, what)
  for _, r in ipairs(rows) do
    lk.assert(r.count > 0 and r.lat_min_us and r.lat_min_us > 0 and r.lat_max_us >= r.lat_median_us
      and r.lat_median_us >= r.lat_min_us and r.lat_p99_us <= r.lat_max_us,
      ("%s: implausible row at %d bytes"):format(what, r.size))
  end
end

return common
