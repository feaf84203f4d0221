-- phase.lua -- experiments as phases: spawn a set of host processes, run the cluster until
-- they have all returned, then the next phase. Sizes never overlap and each phase starts
-- from interfaces its predecessor left idle.
--
--   local phase = require "phase"
--   local ph = phase.new(cluster, { gap_ns = 20000, after_processes = true })
--   ph:run({ { node = 0, name = "ping", fn = function(p) ... end }, ... }, "ping-pong at 4 bytes")
--
-- Two clocks for a phase's start, because host processes run ahead of the cluster
-- (temporal decoupling): a process's last act may leave its local clock past the
-- cluster's time.
--  * after_processes = false (default): the next phase starts at the cluster's time when
--    the run returned (raw's traffic generators).
--  * after_processes = true: it starts after the latest process clock of the previous
--    phase (VMMC's benchmarks: a send's own cost counts to the phase that made it).
-- gap_ns (default 0) is added to the start: time for the interfaces to go idle.
-- limit_ns: simulated time a phase may take before it is declared stuck (an error naming
-- the phase and how many processes still wait); nil runs until every process has returned.
local phase = {}

local Phase = {}
Phase.__index = Phase

function phase.new(cluster, opts)
  opts = opts or {}
  return setmetatable({ cluster = cluster, gap_ns = opts.gap_ns or 0, after_processes = opts.after_processes or false,
                        limit_ns = opts.limit_ns, t_end = 0 }, Phase)
end

-- The time the next phase starts at.
function Phase:next_start(gap_ns)
  local now = self.cluster:now_ns()
  if self.after_processes then now = math.max(now, self.t_end) end
  return now + (gap_ns or self.gap_ns)
end

-- Runs bodies = { { node =, name =, fn = function(p) end }, ... } as one phase; returns its
-- start time (ns). opts.gap_ns and opts.limit_ns override the phase object's for this one.
function Phase:run(bodies, what, opts)
  opts = opts or {}
  local c = self.cluster
  local start = self:next_start(opts.gap_ns)
  local left = #bodies
  for _, b in ipairs(bodies) do
    local fn = b.fn
    c:spawn(b.node, b.name, function(p)
      fn(p)
      left = left - 1
      self.t_end = math.max(self.t_end, p:now_ns())
    end, start)
  end
  local limit_ns = opts.limit_ns or self.limit_ns
  if limit_ns then
    c:run { for_ns = limit_ns }
    if left > 0 then
      error(("%s did not finish within %g us of simulated time (%d of %d processes still waiting)")
        :format(what or "a phase", limit_ns / 1e3, left, #bodies), 2)
    end
  else
    c:run {}
  end
  return start
end

-- Lets the simulation run `ns` (default 20 us) past the last phase, so the control
-- programs finish what they were doing (e.g. before attaching or reading a profile).
function Phase:quiesce(ns)
  local t = math.max(self.cluster:now_ns(), self.t_end) + (ns or 20000)
  self.cluster:run { until_ns = t }
  self.t_end = t
end

return phase
