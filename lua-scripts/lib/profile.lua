-- profile.lua -- a control program's instructions per packet, for any protocol.
--
--   local counts, packets, result = profile.handlers(t, { 0, 1 }, { "send", "recv" }, fn)
--
-- Runs fn() with c:profile on the named handlers of the transport's firmware attached to
-- `nodes`, with the control programs idle in their main loops at attach and read time
-- (t.quiesce(), or t.phase:quiesce()), and returns
--   counts  { [handler] = { calls =, insns =, mean =, min =, max = } } summed over the nodes
--           (insns: all the handler's instructions; mean, min, max: per invocation),
--   packets { sent =, received = } by the nodes meanwhile (t.packets(node) -> sent, received),
--   and fn's result.
-- A handler invocation may serve more than one packet (a control program's tight loops),
-- so per-packet figures divide `insns` by packets, not calls: profile.per_packet.
-- The transport needs: cluster, firmware, packets, and quiesce or phase (lib/phase.lua).
local profile = {}

-- The handlers of `wanted` the image has, in wanted's order.
function profile.present(fw, wanted)
  local have, out = {}, {}
  for _, h in ipairs(fw:handlers()) do have[h] = true end
  for _, h in ipairs(wanted) do if have[h] then out[#out + 1] = h end end
  return out
end

local function packets(t, nodes)
  local sent, received = 0, 0
  for _, n in ipairs(nodes) do
    local s, r = t.packets(n)
    sent, received = sent + s, received + r
  end
  return sent, received
end

-- Lets the control programs go idle: the transport's own way (t.quiesce) or its phase's.
local function quiesce(t)
  if t.quiesce then t.quiesce() else t.phase:quiesce() end
end

function profile.handlers(t, nodes, wanted, fn)
  local handlers = profile.present(t.firmware, wanted)
  quiesce(t)
  local prof = t.cluster:profile { firmware = t.firmware, handlers = handlers, nodes = nodes }
  local sent0, recv0 = packets(t, nodes)
  local result = fn()
  quiesce(t)
  local sent1, recv1 = packets(t, nodes)
  local out = {}
  for _, n in ipairs(nodes) do
    for _, s in ipairs(prof:summary(n)) do
      local o = out[s.name] or { calls = 0, insns = 0, min = math.huge, max = 0 }
      if s.calls > 0 then
        o.insns = o.insns + s.insns.mean * s.calls
        o.calls = o.calls + s.calls
        o.min = math.min(o.min, s.insns.min)
        o.max = math.max(o.max, s.insns.max)
      end
      out[s.name] = o
    end
  end
  for _, o in pairs(out) do
    o.mean = o.calls > 0 and o.insns / o.calls or nil
    if o.calls == 0 then o.min, o.max = nil, nil end
  end
  prof:detach()
  -- Kept until the script ends: a Profile collected later would detach, as it is
  -- finalized, whatever profile the chips carry then (lua/instruments.cpp).
  t.profiles = t.profiles or {}
  t.profiles[#t.profiles + 1] = prof
  return out, { sent = sent1 - sent0, received = recv1 - recv0 }, result
end

-- A handler's instructions per packet: its instructions over `npackets` (nil when it never
-- ran or no packet went).
function profile.per_packet(counts, handler, npackets)
  local k = counts[handler]
  if not k or k.calls == 0 or npackets == 0 then return nil end
  return k.insns / npackets
end

return profile
