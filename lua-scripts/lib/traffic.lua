-- traffic.lua -- traffic patterns over any protocol's transport adapter (docs/scripting.md,
-- "The experiment harness"; docs/raw.md, "Traffic generators").
--
-- A transport adapter is what a protocol's host library provides so these patterns can
-- drive it:
--   { name = "raw", size = <nodes>, max_bytes = <largest message>, cluster = <Cluster>,
--     endpoint = function(p) -> ep,
--     phase = <phase.new(...)>,     -- optional: how phases are scheduled (lib/phase.lua);
--                                   -- default: at the cluster's time, stuck after phase_limit_ns
--     receives = "each" | "last",   -- optional (default "each"): "last" for a protocol with
--                                   -- no receive call, whose receiver can only watch for the
--                                   -- last message of a stream (VMMC)
--     before_size = function(pattern, size) }  -- optional: untimed set-up per size
--   ep:send(dest, data_or_length [, { async =, last = }]) -> the protocol's result
--   ep:recv(length_only [, { src =, size = }]) -> src, data_or_length
-- (raw's net:transport() and vmmc_bench's transport are two.) Each pattern runs one phase
-- per message size, so sizes never overlap and the network is idle between them, and
-- returns a list of rows:
--   { pattern =, size =, count =, lat_mean_us =, lat_median_us =, lat_min_us =,
--     lat_max_us =, lat_p99_us =, mb_per_s =, us_per_msg = }
-- count is the number of timed messages (after warm-up); latencies are per message, from
-- the moment the sender starts ep:send to the moment the receiver's ep:recv returns (so
-- under load they include queueing); mb_per_s is timed payload bytes over the time from the
-- first timed send to the last timed receive (10^6 bytes per second). Times are taken in
-- integer picoseconds (p:now_ps), so no rounding accumulates.
--
-- Common options: sizes (list of bytes), count (timed messages per flow, or a function of
-- the size), warmup (untimed messages per flow first), verify (payloads from
-- payload.pattern, checked byte for byte, in order per source; default true),
-- recv_cost_ns (host time the receiving process spends per message, to model a slow
-- consumer), phase_limit_ns (simulated time a phase may take before it is declared stuck,
-- default 1 s; for transports without their own phase).
local payload = require "payload"
local phase = require "phase"
local stats = require "stats"

local traffic = {}

traffic.pattern = payload.pattern -- kept under its old name for scripts that use it

local PS_PER_US = 1e6

-- A row from latency samples (ps), timed bytes and the time they took (ps).
local function row(pattern, size, lat_ps, bytes, elapsed_ps, count)
  local s = stats.summary(lat_ps, PS_PER_US)
  local ok = bytes and elapsed_ps and elapsed_ps > 0
  return {
    pattern = pattern,
    size = size,
    count = count or s.n,
    lat_mean_us = s.mean,
    lat_median_us = s.median,
    lat_min_us = s.min,
    lat_max_us = s.max,
    lat_p99_us = s.p99,
    mb_per_s = ok and bytes / (elapsed_ps / 1e12) / 1e6 or nil,
    us_per_msg = ok and elapsed_ps / (count or s.n) / PS_PER_US or nil,
  }
end
traffic.row = row

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

local function count_of(o, size)
  if type(o.count) == "function" then return o.count(size) end
  return o.count
end

-- Spawns bodies = { {node =, name =, fn = function(p, ep) ... end}, ... } as one phase of
-- the transport and runs the cluster until every one has returned.
function traffic.phase(t, bodies, limit_ns, what)
  local wrapped = {}
  for i, b in ipairs(bodies) do
    local fn = b.fn
    wrapped[i] = { node = b.node, name = b.name, fn = function(p) fn(p, t.endpoint(p)) end }
  end
  if t.phase then return t.phase:run(wrapped, what) end
  t.default_phase = t.default_phase or phase.new(t.cluster)
  return t.default_phase:run(wrapped, "traffic: " .. (what or "a phase"), { limit_ns = limit_ns or 1e9 })
end

-- The general flow engine: sends[i] = list of destinations node i sends to, in order; the
-- first warm[i] of them are warm-up. Receivers expect exactly what the senders send (or,
-- with receives = "last", watch for each source's last message only).
local function flows(t, o, name, size, sends, warm)
  local n = t.size
  local last_only = t.receives == "last"
  local expect = {}  -- expect[j][i] = messages node j receives from node i
  for j = 0, n - 1 do expect[j] = {} end
  for i = 0, n - 1 do
    for _, d in ipairs(sends[i] or {}) do expect[d][i] = (expect[d][i] or 0) + 1 end
  end
  local sent_at = {}   -- sent_at[i][d][seq] = time; negative = warm-up
  local lat, bytes = {}, 0
  local t_start, t_end = math.huge, -math.huge
  local bodies = {}
  for i = 0, n - 1 do
    local list = sends[i]
    if list and #list > 0 then
      sent_at[i] = {}
      local last_to = {}
      for k, d in ipairs(list) do last_to[d] = k end
      bodies[#bodies + 1] = { node = i, name = name .. "-tx" .. i, fn = function(p, ep)
        local seq = {}
        for k, d in ipairs(list) do
          local s = seq[d] or 0
          seq[d] = s + 1
          local times = sent_at[i][d]
          if not times then times = {}; sent_at[i][d] = times end
          local now = p:now_ps()
          if k > warm[i] then
            times[s] = now
            if now < t_start then t_start = now end
          else
            times[s] = -1
          end
          ep:send(d, o.verify and payload.pattern(i, s, size) or size, { async = true, last = last_to[d] == k })
        end
      end }
    end
  end
  for j = 0, n - 1 do
    local total = 0
    for _, c in pairs(expect[j]) do total = total + c end
    if total > 0 and last_only then
      bodies[#bodies + 1] = { node = j, name = name .. "-rx" .. j, fn = function(p, ep)
        for i = 0, n - 1 do
          local c = expect[j][i]
          if c then
            ep:recv(true, { src = i, size = size })
            local now = p:now_ps()
            local timed = 0
            for s = 0, c - 1 do if sent_at[i][j][s] >= 0 then timed = timed + 1 end end
            bytes = bytes + timed * size
            if now > t_end then t_end = now end
          end
        end
      end }
    elseif total > 0 then
      bodies[#bodies + 1] = { node = j, name = name .. "-rx" .. j, fn = function(p, ep)
        local next_seq = {}
        for _ = 1, total do
          local src, data = ep:recv(not o.verify, { size = size })
          local now = p:now_ps()
          local s = next_seq[src] or 0
          next_seq[src] = s + 1
          local times = sent_at[src] and sent_at[src][j]
          local at = times and times[s]
          if not at then
            error(("traffic %s: node %d got message %d from node %d, which never sent it")
              :format(name, j, s, src))
          end
          if o.verify then
            local want = payload.pattern(src, s, size)
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
  if t.before_size then t.before_size(name, size) end
  traffic.phase(t, bodies, o.phase_limit_ns, ("%s at %d bytes"):format(name, size))
  local timed = 0
  for i = 0, n - 1 do timed = timed + math.max(0, #(sends[i] or {}) - (warm[i] or 0)) end
  return row(name, size, lat, bytes, t_end - t_start, not last_only and #lat or timed)
end
traffic.flows = flows

local function repeat_dest(d, times)
  local l = {}
  for k = 1, times do l[k] = d end
  return l
end

-- ---------------------------------------------------------------------------------------
-- The patterns.

-- Ping-pong between nodes a and b (default 0 and 1): a sends, b echoes back what it got.
-- Latency = half the round trip; mb_per_s = size / the median latency.
function traffic.pingpong(t, opts)
  local o = defaults(t, opts, { 0, 4, 64, 256, 1024, 4096 })
  local a, b = o.a or 0, o.b or 1
  local rows = {}
  for _, size in ipairs(o.sizes) do
    local lat = {}
    local total = o.warmup + count_of(o, size)
    if t.before_size then t.before_size("pingpong", size) end
    traffic.phase(t, {
      { node = a, name = "ping", fn = function(p, ep)
        for k = 1, total do
          local msg = o.verify and payload.pattern(a, k, size) or size
          local t0 = p:now_ps()
          ep:send(b, msg)
          local src, data = ep:recv(not o.verify, { src = b, size = size })
          local rtt = p:now_ps() - t0
          if src ~= b or data ~= msg then
            error(("traffic pingpong: round trip %d of %d bytes came back different (from node %s)")
              :format(k, size, tostring(src)))
          end
          if k > o.warmup then lat[#lat + 1] = rtt / 2 end
        end
      end },
      { node = b, name = "pong", fn = function(p, ep)
        for _ = 1, total do
          local src, data = ep:recv(not o.verify, { src = a, size = size })
          if src ~= a then error("traffic pingpong: pong got a message from node " .. src) end
          ep:send(a, data)
        end
      end },
    }, o.phase_limit_ns, ("pingpong at %d bytes"):format(size))
    local r = row("pingpong", size, lat)
    r.mb_per_s = r.lat_median_us and r.lat_median_us > 0 and size / r.lat_median_us or nil
    r.us_per_msg = nil
    rows[#rows + 1] = r
  end
  return rows
end

-- One-way stream from node `from` (0) to node `to` (1); the sends are asynchronous where
-- the protocol has that.
function traffic.stream(t, opts)
  local o = defaults(t, opts, { 64, 256, 1024, 4096 })
  local from, to = o.from or 0, o.to or 1
  local rows = {}
  for _, size in ipairs(o.sizes) do
    rows[#rows + 1] = flows(t, o, "stream", size,
      { [from] = repeat_dest(to, o.warmup + count_of(o, size)) }, { [from] = o.warmup })
  end
  return rows
end

-- Both directions between a (0) and b (1) at once, each a stream; mb_per_s is the sum.
function traffic.bidirectional(t, opts)
  local o = defaults(t, opts, { 64, 256, 1024, 4096 })
  local a, b = o.a or 0, o.b or 1
  local rows = {}
  for _, size in ipairs(o.sizes) do
    local n = o.warmup + count_of(o, size)
    rows[#rows + 1] = flows(t, o, "bidirectional", size,
      { [a] = repeat_dest(b, n), [b] = repeat_dest(a, n) }, { [a] = o.warmup, [b] = o.warmup })
  end
  return rows
end

-- Exchange: a (0) and b (1) each send one message and wait for the peer's before the next
-- (the VMMC paper's "synchronous send, bidirectional traffic"). mb_per_s is the total of
-- both directions, 2 x count x size over the time from the first send to the last
-- arrival; us_per_msg is that time per iteration.
function traffic.exchange(t, opts)
  local o = defaults(t, opts, { 1024, 4096 })
  local a, b = o.a or 0, o.b or 1
  local rows = {}
  for _, size in ipairs(o.sizes) do
    local n = count_of(o, size)
    local t0, t1 = math.huge, 0
    local function side(me, peer)
      return { node = me, name = "exchange", fn = function(p, ep)
        t0 = math.min(t0, p:now_ps())
        for k = 1, n do
          local msg = o.verify and payload.pattern(me, k, size) or size
          ep:send(peer, msg)
          local src, data = ep:recv(not o.verify, { src = peer, size = size })
          if src ~= peer or data ~= (o.verify and payload.pattern(peer, k, size) or size) then
            error(("traffic exchange: node %d, iteration %d of %d bytes: wrong message from node %s")
              :format(me, k, size, tostring(src)))
          end
        end
        t1 = math.max(t1, p:now_ps())
      end }
    end
    if t.before_size then t.before_size("exchange", size) end
    traffic.phase(t, { side(a, b), side(b, a) }, o.phase_limit_ns, ("exchange at %d bytes"):format(size))
    rows[#rows + 1] = row("exchange", size, {}, 2 * n * size, t1 - t0, n)
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
      for _ = 1, o.warmup + count_of(o, size) do
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
      for k = 1, o.warmup + count_of(o, size) do
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
      if i ~= root then sends[i], warm[i] = repeat_dest(root, o.warmup + count_of(o, size)), o.warmup end
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
-- iteration no node left before the last one entered. Needs receives = "each".
function traffic.barrier(t, opts)
  local o = defaults(t, opts, { 8 })
  if t.receives == "last" then error(("traffic barrier: the %s transport cannot receive every message"):format(t.name), 2) end
  local n = t.size
  local rounds = 0
  while (1 << rounds) < n do rounds = rounds + 1 end
  local total = o.warmup + count_of(o, 8)
  local enter, exit = {}, {}
  for it = 1, total do enter[it], exit[it] = {}, {} end
  local bodies = {}
  for i = 0, n - 1 do
    bodies[#bodies + 1] = { node = i, name = "barrier" .. i, fn = function(p, ep)
      local seen = {} -- seen[it * 64 + r] = true
      for it = 1, total do
        enter[it][i] = p:now_ps()
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
        exit[it][i] = p:now_ps()
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
        :format(it, first_out / PS_PER_US, last_in / PS_PER_US))
    end
  end
  return { row("barrier", 8, lat) }
end

-- ---------------------------------------------------------------------------------------
-- Output (lib/output.lua has the general table, CSV and SVG writers).
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
