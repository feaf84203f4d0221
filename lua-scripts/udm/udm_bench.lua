-- udm_bench.lua -- UDM's latency, bandwidth and instructions per message between two FUGU
-- nodes (firmware/udm/apps/pingpong.c, run alone by udm_experiment.lua), for the main job's
-- row (headline.lua). Times are the handlers' invocation start times in a profile of both
-- nodes (simulated, exact); instructions are the profile's counts of the message path:
-- fast.s (the message-available vector, the upcall entry, the return), the C handlers and
-- the send routine.
local E = require "udm.udm_experiment"
local B = {}

-- The paper's Table 4 (cycles on a Sparcle; no time unit, no bandwidth).
B.paper = { user_receive_cycles = 87, kernel_receive_cycles = 54, poll_receive_cycles = 9 }

local function starts(prof, node, handler)
  local t = {}
  for _, v in ipairs(prof:invocations(node)) do
    if v.handler == handler then t[#t + 1] = v.start_ns end
  end
  return t
end

local function insns(prof, node, handler)
  for _, s in ipairs(prof:summary(node)) do
    if s.name == handler then return s.insns.count * s.insns.mean, s.calls end
  end
  return 0, 0
end

-- One-word messages, one round trip at a time: one-way latency (mean round trip / 2, the
-- first `warmup` left out) and the instructions per message, send + receive (both nodes'
-- message paths over every message).
function B.pingpong(opts)
  local n, warmup = opts.round_trips or 100, opts.warmup or 5
  local prof
  local r = E.run("pingpong", 2, { params = { 0, n, 3 }, platform = opts.platform,
    on_start = function(c, fw)
      prof = c:profile { firmware = fw, handlers = { "pp_send", "pp_ping_handler", "pp_pong_handler" }, nodes = { 0, 1 } }
    end })
  assert(r.nodes[1].app[2] == n and r.nodes[2].app[2] == n, "round trips lost")
  local t = starts(prof, 0, "pp_pong_handler")
  assert(#t == n, "node 0's answers were not all profiled")
  local rtt_ns = (t[n] - t[warmup + 1]) / (n - warmup - 1)
  -- node 0: its sends (from the application) and answers; node 1: its handlers, which send
  -- the answers (pp_send nested in pp_ping_handler counts in the handler's invocations)
  local send0, sends = insns(prof, 0, "pp_send")
  local pong = insns(prof, 0, "pp_pong_handler")
  local ping = insns(prof, 1, "pp_ping_handler")
  local path = prof:range(0, "udm_fast_table", "udm_fast_end").insns + prof:range(1, "udm_fast_table", "udm_fast_end").insns
  assert(sends == n)
  local messages = 2 * n
  return { one_way_us = rtt_ns / 2 / 1000, rtt_us = rtt_ns / 1000,
           insns_per_message = (send0 + pong + ping + path) / messages,
           parts = { send = send0 / n, pong_handler = pong / n, ping_handler_and_send = ping / n,
                     fast_paths = path / messages } }
end

-- `count` messages of `words` words back to back, one way: the receiver's rate from its
-- first handler to its last, payload bytes ((words - 2) * 4: a message's first two words
-- are its destination and handler) per microsecond.
function B.stream(opts)
  local n, words = opts.count or 400, opts.words or 16
  local prof
  local r = E.run("pingpong", 2, { params = { 1, n, words }, platform = opts.platform,
    on_start = function(c, fw)
      prof = c:profile { firmware = fw, handlers = { "pp_sink_handler" }, nodes = { 1 } }
    end })
  assert(r.nodes[2].app[2] == n, "messages lost")
  local t = starts(prof, 1, "pp_sink_handler")
  local per_ns = (t[n] - t[1]) / (n - 1)
  local bytes = (words - 2) * 4
  return { mb_s = bytes / per_ns * 1000, bytes = bytes, ns_per_message = per_ns }
end

return B
