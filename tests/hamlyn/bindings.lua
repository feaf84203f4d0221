-- lk.hamlyn's constructor: costs from the cluster's platform, another platform, or fields
-- over the cluster's; errors name the argument and field (the binding kit's costs_platform,
-- shared with lk.vmmc and lk.bip).
local fw = lk.firmware { sources = { "firmware/hamlyn/hamlyn.fw" } }
local function cluster() return lk.cluster { platform = "hamlyn", nodes = 2 } end
local function fails(want, ...)
  local ok, e = pcall(...)
  assert(not ok, "expected an error: " .. want)
  assert(tostring(e):find(want, 1, true), "expected '" .. want .. "' in: " .. tostring(e))
end

local own = lk.hamlyn(cluster(), fw):costs()
local other = lk.hamlyn(cluster(), fw, { costs = "bip" }):costs()
assert(own.context_switch_ns == 31000, own.context_switch_ns)
assert(other.context_switch_ns == 30000, other.context_switch_ns) -- bip.lua's host.costs
local fields = lk.hamlyn(cluster(), fw, { costs = { trw_send = 7 } }):costs()
assert(fields.trw_send_ns == 7 and fields.context_switch_ns == own.context_switch_ns)
local table_platform = lk.hamlyn(cluster(), fw, { costs = lk.platform("bip") }):costs()
assert(table_platform.context_switch_ns == other.context_switch_ns)

fails("lk.hamlyn: argument 3 field 'costs': expected a platform name or table, or a table of costs, got number 7",
      lk.hamlyn, cluster(), fw, { costs = 7 })
fails("lk.hamlyn: argument 3 field 'costs': cannot open ", lk.hamlyn, cluster(), fw, { costs = "no-such-platform" })
fails("lk.hamlyn: argument 3 field 'costs.trw_sent': unknown field", lk.hamlyn, cluster(), fw,
      { costs = { trw_sent = 1 } })
fails("lk.hamlyn: argument 1: expected a Cluster", lk.hamlyn, 3, fw)
local c = cluster()
lk.hamlyn(c, fw)
fails("lk.hamlyn: argument 1: ", lk.hamlyn, c, fw) -- one Hamlyn per cluster
print("lk.hamlyn bindings: ok")
