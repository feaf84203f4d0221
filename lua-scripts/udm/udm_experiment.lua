-- udm_experiment.lua -- running one of UDM's applications on a cluster of emulated FUGU
-- nodes (docs/udm.md), alone or gang scheduled against a null application with a schedule
-- skew: the node side is firmware/udm/apps/experiment.c with the kernel of
-- firmware/udm/{traps.s,fast.s,buffer.c,buffered.s,sched.c}.
local M = {}

local CTL = 0x80000 -- experiment.h: EXPERIMENT_CTL
local SLICE, SKEW, TIMEOUT, NULL, BUDGET, INSERT_DELAY, PARAM = 0, 1, 2, 3, 4, 5, 8
local R = 32 -- results start
local R_DONE, R_START, R_END, R_CAUSE, R_EPC, R_APP = 0, 1, 2, 3, 4, 8
local RTC_TICK_NS = 500
M.CLOCK_HZ = 100000000 -- the FUGU node's clock here (the paper gives none: it counts cycles)
-- struct udm_app (firmware/udm/udm.h): words
local A_INSERTED, A_TO_BUFFERED, A_MAX_PAGES = 13, 17, 19

M.TIMESLICE_CYCLES = 500000 -- the platform's (udm.lua) scheduler timeslice

-- UDM's kernel (firmware/udm): what every FUGU node's image links after its own sources.
M.KERNEL = { "firmware/udm/traps.s", "firmware/udm/fast.s", "firmware/udm/buffer.c",
             "firmware/udm/buffered.s", "firmware/udm/sched.c" }

-- An image of `own` sources, the kernel's, then `after` (optional).
function M.firmware(own, after)
  local sources = {}
  for _, list in ipairs { own, M.KERNEL, after or {} } do
    for _, s in ipairs(list) do sources[#sources + 1] = s end
  end
  return lk.firmware { sources = sources, opt = "O2" }
end

-- `nodes` FUGU nodes with 1 MB of SRAM: vmmc.lua's link and M.CLOCK_HZ, or a platform's
-- link and its NIC's clock (a platform table or name). Returns the cluster and the clock.
function M.cluster(nodes, platform)
  if type(platform) == "string" then platform = lk.platform(platform) end
  local clock_hz = platform and platform.nic.clock_hz or M.CLOCK_HZ
  return lk.cluster { platform = platform or "vmmc", nic = { clock_hz = clock_hz, sram_bytes = 1 << 20 },
                      nodes = nodes, fugu = true }, clock_hz
end

local images = {}
local function image(app)
  images[app] = images[app] or M.firmware({ "firmware/udm/apps/" .. app .. ".c" }, { "firmware/udm/apps/experiment.c" })
  return images[app]
end

-- Runs `app` (firmware/udm/apps/<app>.c) on `nodes` FUGU nodes. opts: params (the
-- application's words), null (multiprogram against a null application), skew (fraction of
-- the timeslice: node i's schedule is late by skew * i / (nodes - 1) of it), timeslice
-- (cycles), timeout (atomicity, user cycles), budget (pages), insert_delay (cycles added
-- to every buffer insert: Figure 10), limit_ms (simulated); platform (a platform table or name:
-- its link and its NIC's clock instead of vmmc.lua's link and M.CLOCK_HZ); on_start(c, fw)
-- (called once the nodes are loaded, before they start: instruments);
-- step_ns and on_step(c): a callback between steps of the run (progress sampling).
-- Returns runtime_cycles and runtime_us (from the first node's start to the last node's
-- end), buffered (the application's messages inserted into buffers), max_pages (the most
-- a node's buffer held), timeouts, nodes (per node: the application's result words `app`,
-- its buffer counters, the interface's `fugu` counters, sched_missed), and the cluster and
-- firmware.
function M.run(app, nodes, opts)
  local fw = image(app)
  local c, clock_hz = M.cluster(nodes, opts.platform)
  local tick_cycles = clock_hz * RTC_TICK_NS / 1e9
  local slice_cycles = opts.timeslice or M.TIMESLICE_CYCLES
  local slice = math.floor(slice_cycles / tick_cycles)
  for i = 0, nodes - 1 do
    local n = c:node(i)
    n:load(fw)
    local skew = nodes > 1 and math.floor((opts.skew or 0) * slice * i / (nodes - 1)) or 0
    n:sram_write32(CTL + 4 * SLICE, slice)
    n:sram_write32(CTL + 4 * SKEW, skew)
    n:sram_write32(CTL + 4 * TIMEOUT, opts.timeout or 20000)
    n:sram_write32(CTL + 4 * NULL, opts.null and 1 or 0)
    n:sram_write32(CTL + 4 * BUDGET, opts.budget or 16)
    n:sram_write32(CTL + 4 * INSERT_DELAY, opts.insert_delay or 0)
    for k, v in ipairs(opts.params or {}) do n:sram_write32(CTL + 4 * (PARAM + k - 1), v) end
  end
  if opts.on_start then opts.on_start(c, fw) end
  c:start()
  local limit_ns = (opts.limit_ms or 2000) * 1e6
  local step_ns = opts.step_ns or 1e6
  while c:now_ns() < limit_ns do
    c:run { for_ns = step_ns }
    if opts.on_step then opts.on_step(c) end
    local running = false
    for i = 0, nodes - 1 do running = running or c:node(i):running() end
    if not running then break end
  end
  local out = { nodes = {}, buffered = 0, max_pages = 0, timeouts = 0 }
  local first, last
  local app_struct = fw:symbol("experiment_app_struct")
  local sched = fw:symbol("udm_sched_counters") -- struct udm_sched_counters (udm.h): missed at 12
  for i = 0, nodes - 1 do
    local n = c:node(i)
    local function res(k) return n:sram_read32(CTL + 4 * (R + k)) end
    assert(res(R_CAUSE) == 0, ("node %d stopped on trap cause %d at 0x%x"):format(i, res(R_CAUSE), res(R_EPC)))
    assert(res(R_DONE) == 1, ("node %d did not finish in %d ms of simulated time"):format(i, opts.limit_ms or 2000))
    local a = n:sram_read32(app_struct)
    local function field(k) return n:sram_read32(a + 4 * k) end
    local app = {}
    for k = 0, 7 do app[k + 1] = res(R_APP + k) end
    local node = { app_ticks = res(5), app_quanta = res(6), timer_irqs = res(7), start = res(R_START), done = res(R_END), app = app,
                   inserted = field(A_INSERTED), max_pages = field(A_MAX_PAGES), to_buffered = field(A_TO_BUFFERED),
                   fugu = n:fugu(), sched_missed = n:sram_read32(sched + 12) }
    out.nodes[#out.nodes + 1] = node
    out.buffered = out.buffered + node.inserted
    out.max_pages = math.max(out.max_pages, node.max_pages)
    out.timeouts = out.timeouts + node.fugu.timeouts
    first = first and math.min(first, node.start) or node.start
    last = last and math.max(last, node.done) or node.done
  end
  out.runtime_cycles = (last - first) * tick_cycles
  out.runtime_us = (last - first) * RTC_TICK_NS / 1000
  out.cluster, out.firmware = c, fw
  return out
end

return M
