-- bounds.lua -- what ends the chips' batches: a diagnostic of the simulator's own speed.
--
--   bounds.start(c)   -- before the run: count the bounding near events by tag
--   bounds.report(c)  -- after it: a table on standard output
--
-- Every batch a chip's CPU runs is given a horizon by the kernel: the run's limit, the
-- next near event (anything at a chip or a host), a distant event (inside a switch) plus
-- the smallest link latency, or another runnable chip's time plus the lookahead
-- (sim::Kernel::batch_bounds). The fewer instructions a batch runs, the more of the run
-- goes to choosing and starting batches (docs/sim.md, "Cluster speed"); this says which
-- events to look at first. The names are those of the components' trace tags.
local bounds = {}

local TAGS = {
  [0x4c01] = "link: chunk sent", [0x4c02] = "link: chunk arrived", [0x4c03] = "link: STOP/GO",
  [0x4c04] = "link: delivery", [0x5301] = "switch: route", [0x5302] = "switch: arbitrate",
  [0x50430001] = "PCI: PIO read done", [0x50430002] = "PCI: PIO write done",
  [0x50430003] = "PCI: DMA burst done", [0x4E4F0001] = "node: PIO posted",
  [0x4E4F0002] = "node: interrupt", [0x48500001] = "host: process resumed",
  [0x43480001] = "chip: timer", [0x43480002] = "chip: host DMA",
}

function bounds.start(c) c:bound_census(true) end

function bounds.report(c)
  local s = c:stats()
  local b = s.batch_bounds
  local total = b.limit + b.near_event + b.distant_event + b.other_agent
  local function row(name, n)
    io.write(("  %-40s %12d %6.1f%%\n"):format(name, n, total > 0 and 100 * n / total or 0))
  end
  local ran = s.instructions - s.dozed_instructions
  io.write(("batches %d, %.2f instructions each (dozed ones not counted); bounded by:\n")
    :format(s.agent_batches, s.agent_batches > 0 and ran / s.agent_batches or 0))
  row("the run's limit", b.limit)
  row("another chip + lookahead", b.other_agent)
  -- The census's keys: a near event's tag, or a distant one's with bit 32 set.
  local function by_tag(distant)
    local list = {}
    for key, n in pairs(s.bound_census or {}) do
      if (key >> 32 == 1) == distant then list[#list + 1] = { tag = key & 0xffffffff, n = n } end
    end
    table.sort(list, function(x, y) return x.n > y.n or (x.n == y.n and x.tag < y.tag) end)
    for _, e in ipairs(list) do row("  " .. (TAGS[e.tag] or ("tag 0x%x"):format(e.tag)), e.n) end
  end
  row("a distant event + reach", b.distant_event)
  by_tag(true)
  row("a near event", b.near_event)
  by_tag(false)
end

return bounds
