-- headline.lua -- raw's row of the main job (lua-scripts/main.lua): one-word latency,
-- peak one-way bandwidth and the firmware's instructions per packet on a platform. raw is
-- lanaikit's own plain-message layer: no paper, so its "home" testbed is the one it was
-- developed on, VMMC's.
local raw = require "raw.raw"
local traffic = require "traffic"
local profile = require "profile"
local counters = require "counters"

return function(platform_name)
  local platform = lk.platform(platform_name or "vmmc")
  local fw = lk.firmware { sources = { "firmware/raw/raw.fw" }, opt = "O2" }
  local cluster = lk.cluster { platform = platform, nodes = 2 }
  local net = raw.setup(cluster, fw, { platform = platform })
  local t = net:transport()
  local counts, pk, lat = profile.handlers(t, { 0, 1 }, { "raw_send", "raw_recv" }, function()
    return traffic.pingpong(t, { sizes = { 4 }, count = 10, warmup = 1 })[1]
  end)
  local peak = { mb_per_s = 0 }
  for _, r in ipairs(traffic.stream(t, { sizes = { 1024, 4096 }, count = 200, warmup = 10, verify = false })) do
    if r.mb_per_s > peak.mb_per_s then peak = r end
  end
  local list = {}
  for i = 0, cluster:size() - 1 do list[#list + 1] = net:counters(i) end
  counters.check("raw", list, { zero = { "bad_send", "bad_crc", "bad_magic", "bad_len" }, equal = { { "sent", "delivered" } } })
  local send = profile.per_packet(counts, "raw_send", pk.sent)
  local recv = profile.per_packet(counts, "raw_recv", pk.received)
  return { {
    protocol = "raw", testbed = platform.name, latency_us = lat.lat_mean_us,
    bandwidth_mb_s = peak.mb_per_s, bandwidth_bytes = peak.size,
    insns_per_packet = send and recv and send + recv,
    note = "lanaikit's own layer (docs/raw.md), measured on the VMMC testbed it was built on",
  } }
end
