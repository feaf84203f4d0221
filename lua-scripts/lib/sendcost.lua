-- sendcost.lua -- what one send costs: the time a process spends inside ep:send, and where
-- one message's one-way time goes part by part. Over a transport adapter (lib/traffic.lua).
local stats = require "stats"
local traffic = require "traffic"

local sendcost = {}

-- Send overhead (one-way traffic from node 0 to an idle node 1): the time node 0's process
-- spends in ep:send, synchronous (until the buffer may be reused) and asynchronous (until
-- posted; then ep:complete(result), untimed, if the protocol has it). Nobody waits for
-- these messages (opts.last = false). After each send the
-- process waits `drain_ns(size)` (default: the size at 50 MB/s + 30 us) so each send
-- starts with idle interfaces. Row: size, sync_us, async_us (medians over iters),
-- sync_mean_us, async_mean_us, short (the protocol result's `short`, if it has one).
function sendcost.overhead(t, sizes, opts)
  opts = opts or {}
  local iters = opts.iters or 10
  local drain = opts.drain_ns or function(size) return size * 20 + 30000 end
  local rows = {}
  for _, size in ipairs(sizes) do
    if size > t.max_bytes then
      error(("sendcost: size %d is above the %s transport's %d-byte messages"):format(size, t.name, t.max_bytes), 2)
    end
    local row = { size = size }
    for _, mode in ipairs { "sync", "async" } do
      local times, short = {}, nil
      traffic.phase(t, {
        { node = 0, name = "overhead", fn = function(p, ep)
          for _ = 1, iters do
            local t0 = p:now_ps()
            local r = ep:send(1, size, { async = mode == "async", last = false })
            times[#times + 1] = p:now_ps() - t0
            if type(r) == "table" then short = r.short end
            if mode == "async" and ep.complete then ep:complete(r) end
            p:advance_ns(drain(size))
          end
        end },
      }, nil, ("send overhead at %d bytes"):format(size))
      local s = stats.summary(times, 1e6)
      row[mode .. "_us"] = s.median
      row[mode .. "_mean_us"] = s.mean
      row.short = short
    end
    rows[#rows + 1] = row
  end
  return rows
end

-- Where one message's one-way time goes (c:message_trace, docs/profiling.md): node 0
-- sends `size` bytes asynchronously to an idle node 1, whose process waits for it. The
-- parts add up to the total. Returns the breakdown table (times in us; see
-- MessageTrace:breakdown).
function sendcost.breakdown(t, size)
  local tr = t.cluster:message_trace { from = 0, to = 1 }
  traffic.phase(t, {
    { node = 0, name = "traced", fn = function(p, ep)
      tr:start(p)
      ep:send(1, size, { async = true })
      tr:posted(p)
    end },
    { node = 1, name = "notice", fn = function(p, ep)
      ep:recv(true, { src = 0, size = size })
      tr:seen(p)
    end },
  }, nil, ("traced message of %d bytes"):format(size))
  local r = tr:breakdown()
  tr:detach()
  return r
end

return sendcost
