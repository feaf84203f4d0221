-- What the packet scenarios share (tests/fuzz/packet_fuzz.cpp runs them with PACKETS and
-- inject(link, bytes) defined): the cluster with sentinel host pages around the protocol's
-- own memory on the receiving node, injection of PACKETS, the check that the firmware's
-- counters account for them, the check that host memory nothing may write is unchanged,
-- and the legitimate message sent afterwards. Each protocol's scenario (raw.lua, echo.lua,
-- vmmc.lua, bip.lua) holds only its set-up, its counters and its own send and receive.
local M = {}

M.SENTINEL = 16384
-- Sent after the fuzzed packets; must arrive intact. 204 bytes (BIP sends multiples of 4).
M.LEGIT = "a legitimate message after the fuzzed ones: " .. string.rep("\1\2\3\254", 40)
-- The node the packets come from (its link into the switch) and the node they reach.
M.FROM, M.TO = 0, 1

-- Fresh host pages on `node` filled with a pattern; host_alloc hands out pages in order,
-- so sentinels allocated before and after a protocol's set-up bracket its host memory.
local function sentinel(node)
  local a = node:host_alloc(M.SENTINEL)
  local words = {}
  for i = 0, M.SENTINEL // 4 - 1 do words[#words + 1] = string.pack(">I4", 0xA5000000 | i) end
  node:host_write(a, table.concat(words))
  return a
end

-- M.cluster{firmware = path, platform = name, nodes = n, setup = function(s)}: builds the
-- firmware (-O2), makes the cluster, and calls setup(s) between two sentinels on node TO;
-- s holds fw, c (the cluster), node (node TO), lo (first byte of the low sentinel) and, after
-- setup, hi (first byte past the high sentinel); setup may add fields. Returns s.
function M.cluster(o)
  local s = {}
  s.fw = lk.firmware { sources = { o.firmware }, opt = "O2" }
  s.c = lk.cluster { platform = o.platform, nodes = o.nodes or 2 }
  s.node = s.c:node(M.TO)
  s.lo = sentinel(s.node)
  o.setup(s)
  s.hi = sentinel(s.node) + M.SENTINEL
  return s
end

-- Host memory of s.node in `ranges` ({addr, len} each; default: from the low sentinel to
-- the end of the high one) now, to compare later.
function M.snapshot(s, ranges)
  ranges = ranges or { { s.lo, s.hi - s.lo } }
  local snap = { node = s.node }
  for _, r in ipairs(ranges) do snap[#snap + 1] = { r[1], s.node:host_read(r[1], r[2]) } end
  return snap
end

-- Fails naming the first byte of the snapshot that changed outside `allowed` ({addr, len}
-- ranges: the receive buffers the firmware was given).
function M.compare(snap, allowed, what)
  for _, saved in ipairs(snap) do
    local lo, before = saved[1], saved[2]
    local now = snap.node:host_read(lo, #before)
    if now ~= before then
      for i = 1, #now do
        local b0, b1 = before:byte(i), now:byte(i)
        if b0 ~= b1 then
          local a = lo + i - 1
          local inside = false
          for _, r in ipairs(allowed or {}) do
            if a >= r[1] and a < r[1] + r[2] then inside = true break end
          end
          if not inside then
            error(("%s: host byte 0x%x changed (0x%02x -> 0x%02x) outside the receive buffers")
                  :format(what, a, b0, b1), 2)
          end
        end
      end
    end
  end
end

-- Runs the cluster in 10 us steps until cond() holds (at most 10 ms: then fails, saying
-- what it waited for).
function M.wait_until(s, cond, what)
  local t0 = s.c:now_ns()
  while not cond() do
    if s.c:now_ns() - t0 > 10e6 then error("waited 10 ms for " .. what, 2) end
    s.c:run { for_ns = 10e3 }
  end
end

-- Sends every packet of PACKETS on node FROM's link into the switch, the route to node TO
-- in front, and runs the cluster until they have surely arrived and been handled (160 MB/s
-- links, store and forward at worst, 20 us of firmware per packet).
function M.inject_all(s)
  local route = s.c:route(M.FROM, M.TO)
  local link = s.c:node_tx(M.FROM)
  local bytes = 0
  for _, p in ipairs(PACKETS) do
    inject(link, route .. p)
    bytes = bytes + #route + #p + 1
  end
  s.c:run { for_ns = 100e3 + bytes * 20 + #PACKETS * 20e3 }
end

-- Counters `names` of `after` minus those of `before` (nil: zeros) must add up to the
-- packets injected: each was delivered or counted as rejected, exactly once.
function M.accounted(what, names, after, before)
  local total, parts = 0, {}
  for _, k in ipairs(names) do
    local d = after[k] - (before and before[k] or 0)
    total = total + d
    parts[#parts + 1] = k .. " " .. d
  end
  if total ~= #PACKETS then
    error(("%s: %d packets injected, %d accounted for (%s)")
          :format(what, #PACKETS, total, table.concat(parts, ", ")), 2)
  end
end

-- Runs processes ({node, name, fn(p)} each) and the cluster until all have returned (at
-- most for_ns, default 5 ms: then the phase fails, naming what still waits). A phase starts
-- after the latest process clock of the one before (processes run ahead of the cluster:
-- docs/scripting.md).
function M.phase(s, bodies, for_ns)
  local start, running = math.max(s.c:now_ns(), s.t_end or 0), {}
  for _, b in ipairs(bodies) do
    local node, name, fn = b[1], b[2], b[3]
    running[name] = node
    s.c:spawn(node, name, function(p)
      fn(p)
      s.t_end = math.max(s.t_end or 0, p:now_ns())
      running[name] = nil
    end, start)
  end
  s.c:run { for_ns = for_ns or 5e6 }
  for _, b in ipairs(bodies) do
    if running[b[2]] then error(("process %s on node %d did not finish"):format(b[2], b[1]), 2) end
  end
end

return M
