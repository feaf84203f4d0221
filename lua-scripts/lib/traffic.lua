-- traffic.lua -- transport-agnostic traffic generators (docs/raw.md, "Traffic generators").
--
-- A transport is a table:
--   { name = "raw", size = <nodes>, max_bytes = <largest message>, cluster = <Cluster>,
--     endpoint = function(p) -> ep }      -- ep:send(dest, string_or_length)
--                                         -- ep:recv([length_only]) -> src, data_or_length
-- (raw.lua's net:transport() is one). Each generator runs one phase per message size on
-- the transport's cluster: it spawns its processes at the current simulated time and runs
-- the cluster until they are done, so sizes never overlap and the network is idle between
-- them. Every generator returns a list of rows:
--   { pattern =, size =, count =, lat_median_us =, lat_min_us =, lat_max_us =,
--     lat_p99_us =, mb_per_s = }
-- count is the number of timed messages (after warm-up); latencies are per message, from
-- the moment the sender starts ep:send to the moment the receiver's ep:recv returns (so
-- under load they include queueing); mb_per_s is timed payload bytes over the time from the
-- first timed send to the last timed receive (10^6 bytes per second).
--
-- Common options: sizes (list of bytes), count (timed messages per flow), warmup (untimed
-- messages per flow first), verify (payloads from traffic.pattern, checked byte for byte,
-- in order per source; default true), recv_cost_ns (host time the receiving process
-- spends per message, to model a slow consumer), phase_limit_ns (simulated time a phase
-- may take before it is declared stuck, default 1 s).
local traffic = {}

local NS_PER_US = 1000

-- ---------------------------------------------------------------------------------------
-- Payloads: byte k of message `seq` from `src` is
--   (src * 131 + seq * 7 + 3 * (k // 256) + k) mod 256,
-- so a byte that lands at the wrong offset, in the wrong message or from the wrong source
-- differs from the expected one (the 3 * (k // 256) term breaks the 256-byte period).
local CYCLE
do
  local t = {}
  for i = 0, 255 do t[#t + 1] = string.char(i) end
  CYCLE = table.concat(t)
  CYCLE = CYCLE .. CYCLE
end

function traffic.pattern(src, seq, len)
  local a = (src * 131 + seq * 7) % 256
  local parts, k, j = {}, 0, 0
  while k < len do
    local start = (a + 3 * j) % 256
    local n = math.min(256, len - k)
    parts[#parts + 1] = CYCLE:sub(start + 1, start + n)
    k, j = k + n, j + 1
  end
  return table.concat(parts)
end

-- ---------------------------------------------------------------------------------------
-- Statistics.
local function percentile(sorted, q)
  if #sorted == 0 then return nil end
  local i = math.max(1, math.ceil(q * #sorted))
  return sorted[i]
end

local function row(pattern, size, lat_ns, bytes, elapsed_ns)
  local s = {}
  for i, v in ipairs(lat_ns) do s[i] = v end
  table.sort(s)
  local us = function(v) return v and v / NS_PER_US end
  return {
    pattern = pattern,
    size = size,
    count = #s,
    lat_median_us = us(s[(#s + 1) // 2]),
    lat_min_us = us(s[1]),
    lat_max_us = us(s[#s]),
    lat_p99_us = us(percentile(s, 0.99)),
    mb_per_s = (bytes and elapsed_ns and elapsed_ns > 0) and bytes / elapsed_ns * 1e3 or nil,
  }
end
traffic.row = row

-- ---------------------------------------------------------------------------------------
-- Phases.
local function defaults(t, opts, sizes)
  opts = opts or {}
  local o = {}
  for k, v in pairs(opts) do o[k] = v end
  o.sizes = o.sizes or sizes
  o.count = o.count or 50
  o.warmup = o.warmup or 5
  if o.verify == nil then o.verify = true end
  o.recv_cost_ns = o.recv_cost_ns or 0
  o.phase_limit_ns = o.phase_limit_ns or 1e9
  for _, s in ipairs(o.sizes) do
    if s > t.max_bytes then
      error(("traffic: size %d is above the %s transport's %d-byte messages"):format(s, t.name, t.max_bytes), 3)
    end
  end
  return o
end

-- Spawns bodies = { {node =, name =, fn = function(p, ep) ... end}, ... } now and runs
-- the cluster until every one has returned.
function traffic.phase(t, bodies, limit_ns, what)
  local c = t.cluster
  local left = #bodies
  local start = c:now_ns()
  for _, b in ipairs(bodies) do
    c:spawn(b.node, b.name, function(p)
      b.fn(p, t.endpoint(p))
      left = left - 1
    end, start)
  end
  c:run { for_ns = limit_ns or 1e9 }
  if left > 0 then
    error(("traffic: %s did not finish within %g us of simulated time (%d of %d processes still waiting)")
      :format(what or "a phase", (limit_ns or 1e9) / 1e3, left, #bodies), 2)
  end
end

-- The general flow engine: sends[i] = list of destinations node i sends to, in order; the
-- first warm[i] of them are warm-up. Receivers expect exactly what the senders send.
local function flows(t, o, name, size, sends, warm)
  local n = t.size
  local expect = {}  -- expect[j] = messages node j receives
  for j = 0, n - 1 do expect[j] = 0 end
  for i = 0, n - 1 do
    for _, d in ipairs(sends[i] or {}) do expect[d] = expect[d] + 1 end
  end
  local sent_at = {}   -- sent_at[i][d][seq] = time; negative = warm-up
  local lat, bytes = {}, 0
  local t_start, t_end = math.huge, -math.huge
  local bodies = {}
  for i = 0, n - 1 do
    local list = sends[i]
    if list and #list > 0 then
      sent_at[i] = {}
      bodies[#bodies + 1] = { node = i, name = name .. "-tx" .. i, fn = function(p, ep)
        local seq = {}
        for k, d in ipairs(list) do
          local s = seq[d] or 0
          seq[d] = s + 1
          local times = sent_at[i][d]
          if not times then times = {}; sent_at[i][d] = times end
          local now = p:now_ns()
          if k > warm[i] then
            times[s] = now
            if now < t_start then t_start = now end
          else
            times[s] = -1
          end
          ep:send(d, o.verify and traffic.pattern(i, s, size) or size)
        end
      end }
    end
  end
  for j = 0, n - 1 do
    if expect[j] > 0 then
      bodies[#bodies + 1] = { node = j, name = name .. "-rx" .. j, fn = function(p, ep)
        local next_seq = {}
        for _ = 1, expect[j] do
          local src, data = ep:recv(not o.verify)
          local now = p:now_ns()
          local s = next_seq[src] or 0
          next_seq[src] = s + 1
          local times = sent_at[src] and sent_at[src][j]
          local at = times and times[s]
          if not at then
            error(("traffic %s: node %d got message %d from node %d, which never sent it")
              :format(name, j, s, src))
          end
          if o.verify then
            local want = traffic.pattern(src, s, size)
            if data ~= want then
              local bad = 1
              while bad <= #want and data:byte(bad) == want:byte(bad) do bad = bad + 1 end
              error(("traffic %s: node %d, message %d from node %d (%d bytes): %s at byte %d")
                :format(name, j, s, src, size,
                        #data ~= #want and ("length " .. #data) or "wrong data", bad - 1))
            end
          elseif data ~= size then
            error(("traffic %s: node %d, message %d from node %d: %d bytes, sent %d")
              :format(name, j, s, src, data, size))
          end
          if at >= 0 then
            lat[#lat + 1] = now - at
            bytes = bytes + size
            if now > t_end then t_end = now end
          end
          if o.recv_cost_ns > 0 then p:advance_ns(o.recv_cost_ns) end
        end
      end }
    end
  end
  traffic.phase(t, bodies, o.phase_limit_ns, ("%s at %d bytes"):format(name, size))
  return row(name, size, lat, bytes, t_end - t_start)
end
traffic.flows = flows

local function repeat_dest(d, times)
  local l = {}
  for k = 1, times do l[k] = d end
  return l
end

-- ---------------------------------------------------------------------------------------
-- The generators.

-- Ping-pong between nodes a and b (default 0 and 1): a sends, b echoes back what it got.
-- Latency = half the round trip; mb_per_s = size / that latency.
function traffic.pingpong(t, opts)
  local o = defaults(t, opts, { 0, 4, 64, 256, 1024, 4096 })
  local a, b = o.a or 0, o.b or 1
  local rows = {}
  for _, size in ipairs(o.sizes) do
    local lat = {}
    local total = o.warmup + o.count
    traffic.phase(t, {
      { node = a, name = "ping", fn = function(p, ep)
        for k = 1, total do
          local msg = o.verify and traffic.pattern(a, k, size) or size
          local t0 = p:now_ns()
          ep:send(b, msg)
          local src, data = ep:recv(not o.verify)
          local rtt = p:now_ns() - t0
          if src ~= b or data ~= msg then
            error(("traffic pingpong: round trip %d of %d bytes came back different (from node %s)")
              :format(k, size, tostring(src)))
          end
          if k > o.warmup then lat[#lat + 1] = rtt / 2 end
        end
      end },
      { node = b, name = "pong", fn = function(p, ep)
        for _ = 1, total do
          local src, data = ep:recv(not o.verify)
          if src ~= a then error("traffic pingpong: pong got a message from node " .. src) end
          ep:send(a, data)
        end
      end },
    }, o.phase_limit_ns, ("pingpong at %d bytes"):format(size))
    local r = row("pingpong", size, lat)
    r.mb_per_s = r.lat_median_us and r.lat_median_us > 0 and size / r.lat_median_us or nil
    rows[#rows + 1] = r
  end
  return rows
end

-- One-way stream from node `from` (0) to node `to` (1).
function traffic.stream(t, opts)
  local o = defaults(t, opts, { 64, 256, 1024, 4096 })
  local from, to = o.from or 0, o.to or 1
  local rows = {}
  for _, size in ipairs(o.sizes) do
    rows[#rows + 1] = flows(t, o, "stream", size,
      { [from] = repeat_dest(to, o.warmup + o.count) }, { [from] = o.warmup })
  end
  return rows
end

-- Both directions between a (0) and b (1) at once; mb_per_s is the sum of both.
function traffic.bidirectional(t, opts)
  local o = defaults(t, opts, { 64, 256, 1024, 4096 })
  local a, b = o.a or 0, o.b or 1
  local rows = {}
  for _, size in ipairs(o.sizes) do
    rows[#rows + 1] = flows(t, o, "bidirectional", size,
      { [a] = repeat_dest(b, o.warmup + o.count), [b] = repeat_dest(a, o.warmup + o.count) },
      { [a] = o.warmup, [b] = o.warmup })
  end
  return rows
end

-- Every node sends to every other node: round r sends one message to each of
-- i+1, i+2, ..., i+n-1 (mod n), so the nodes do not all pick the same destination at once.
-- count and warmup are rounds; mb_per_s is the aggregate.
function traffic.alltoall(t, opts)
  local o = defaults(t, opts, { 64, 256, 1024, 4096 })
  local n = t.size
  local rows = {}
  for _, size in ipairs(o.sizes) do
    local sends, warm = {}, {}
    for i = 0, n - 1 do
      local l = {}
      for _ = 1, o.warmup + o.count do
        for k = 1, n - 1 do l[#l + 1] = (i + k) % n end
      end
      sends[i], warm[i] = l, o.warmup * (n - 1)
    end
    rows[#rows + 1] = flows(t, o, "alltoall", size, sends, warm)
  end
  return rows
end

-- Uniform random: each node sends count (+ warmup) messages, each to a destination drawn
-- uniformly from the other nodes with lk.rng(seed) (default seed 1), drawn up front in
-- node order so that a seed gives one traffic matrix.
function traffic.random(t, opts)
  local o = defaults(t, opts, { 64, 256, 1024, 4096 })
  local n = t.size
  local rows = {}
  for _, size in ipairs(o.sizes) do
    local g = lk.rng(o.seed or 1)
    local sends, warm = {}, {}
    for i = 0, n - 1 do
      local l = {}
      for k = 1, o.warmup + o.count do
        local d = g:uniform(0, n - 2)
        l[k] = d >= i and d + 1 or d
      end
      sends[i], warm[i] = l, o.warmup
    end
    rows[#rows + 1] = flows(t, o, "random", size, sends, warm)
  end
  return rows
end

-- Many-to-one: every node but `root` (0) streams to root; mb_per_s is what root receives.
function traffic.manytoone(t, opts)
  local o = defaults(t, opts, { 64, 256, 1024, 4096 })
  local root = o.root or 0
  local rows = {}
  for _, size in ipairs(o.sizes) do
    local sends, warm = {}, {}
    for i = 0, t.size - 1 do
      if i ~= root then sends[i], warm[i] = repeat_dest(root, o.warmup + o.count), o.warmup end
    end
    rows[#rows + 1] = flows(t, o, "manytoone", size, sends, warm)
  end
  return rows
end

-- Dissemination barrier (Hensgen, Finkel and Manber 1988): ceil(log2 n) rounds; in round r
-- node i sends to (i + 2^r) mod n and waits for the message from (i - 2^r) mod n. No
-- central node, and every round is one message in and one out per node. Messages are 8
-- bytes (iteration, round) because a fast node's message of a later round or iteration may
-- arrive before the one a node is waiting for; it is remembered until needed.
-- Latency: per node and iteration, barrier exit minus entry. Also checks that in every
-- iteration no node left before the last one entered.
function traffic.barrier(t, opts)
  local o = defaults(t, opts, { 8 })
  local n = t.size
  local rounds = 0
  while (1 << rounds) < n do rounds = rounds + 1 end
  local total = o.warmup + o.count
  local enter, exit = {}, {}
  for it = 1, total do enter[it], exit[it] = {}, {} end
  local bodies = {}
  for i = 0, n - 1 do
    bodies[#bodies + 1] = { node = i, name = "barrier" .. i, fn = function(p, ep)
      local seen = {} -- seen[it * 64 + r] = true
      for it = 1, total do
        enter[it][i] = p:now_ns()
        for r = 0, rounds - 1 do
          local d = 1 << r
          ep:send((i + d) % n, string.pack(">I4I4", it, r))
          local key = it * 64 + r
          while not seen[key] do
            local src, data = ep:recv()
            local git, gr = string.unpack(">I4I4", data)
            if src ~= (i - (1 << gr)) % n then
              error(("traffic barrier: node %d got round %d from node %d"):format(i, gr, src))
            end
            seen[git * 64 + gr] = true
          end
          seen[key] = nil
        end
        exit[it][i] = p:now_ns()
      end
    end }
  end
  traffic.phase(t, bodies, o.phase_limit_ns, "barrier")
  local lat = {}
  for it = 1, total do
    local last_in, first_out = -math.huge, math.huge
    for i = 0, n - 1 do
      last_in = math.max(last_in, enter[it][i])
      first_out = math.min(first_out, exit[it][i])
      if it > o.warmup then lat[#lat + 1] = exit[it][i] - enter[it][i] end
    end
    if first_out < last_in then
      error(("traffic barrier: iteration %d: a node left at %.3f us, before the last entered at %.3f us")
        :format(it, first_out / 1e3, last_in / 1e3))
    end
  end
  return { row("barrier", 8, lat) }
end

-- ---------------------------------------------------------------------------------------
-- Output.
traffic.columns = { "pattern", "size", "count", "lat_median_us", "lat_min_us", "lat_max_us",
                    "lat_p99_us", "mb_per_s" }

-- A Markdown table of rows.
function traffic.format(rows, title)
  local out = {}
  if title then out[#out + 1] = title .. "\n" end
  out[#out + 1] = "| pattern | bytes | count | median us | min us | max us | p99 us | MB/s |"
  out[#out + 1] = "|---|---:|---:|---:|---:|---:|---:|---:|"
  local f = function(v, fmt) return v and (fmt):format(v) or "-" end
  for _, r in ipairs(rows) do
    out[#out + 1] = ("| %s | %d | %d | %s | %s | %s | %s | %s |"):format(
      r.pattern, r.size, r.count, f(r.lat_median_us, "%.2f"), f(r.lat_min_us, "%.2f"),
      f(r.lat_max_us, "%.2f"), f(r.lat_p99_us, "%.2f"), f(r.mb_per_s, "%.1f"))
  end
  return table.concat(out, "\n") .. "\n"
end

return traffic
