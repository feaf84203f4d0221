-- vmmc_bench.lua -- the VMMC paper's micro-benchmarks (section 5.3, Figures 2-4) on lk.vmmc,
-- shared by fig2_latency.lua, fig3_bandwidth.lua, fig4_overhead.lua and main.lua.
--
--   local B = require "vmmc_bench"
--   local ctx = B.setup { nodes = 2, max_bytes = 65536 }     -- LCP, cluster, endpoints, imports
--   local rows = B.pingpong(ctx, { 4, 64, 1024 }, { iters = 20, warmup = 2 })
--   io.write(B.table(rows, B.columns.pingpong))
--
-- Every benchmark runs as host processes on the simulated cluster, one phase per message
-- size (spawn, c:run until they end), so every number is simulated time: deterministic,
-- independent of the machine. A message's last 32-bit word is its flag: the receiver
-- spins on it (ep:wait_word), as VMMC programs do ("no receive call"); each flag value is
-- used once, so a stale word never matches. Node 0 is the sender ("A"), node 1 the
-- receiver ("B"); with more nodes, the others stay idle.
local B = {}

-- The paper's numbers (../shared/design/PLATFORMS.md, "VMMC on Myrinet (004)").
B.paper = {
  latency_us = 9.8,        -- one-word one-way latency (Figure 2)
  bandwidth_mb_s = 108.4,  -- one-way peak (Figure 3)
  bidir_mb_s = 91,         -- bidirectional total (Figure 3)
  dma_limit_mb_s = 110,    -- host-to-LANai DMA with 4 KB blocks (Figure 1): the model's ceiling
  sync_overhead_us = 3,    -- synchronous send overhead up to 128 bytes (Figure 4)
  short_max = 128,         -- short sends up to 32 words
}

B.handlers = { "vmmc_send_short", "vmmc_send_chunk", "vmmc_recv" }

-- ---- arguments ----------------------------------------------------------------------------

-- B.args(arg, spec) -> options. spec: { name = default, ... }; "--name value" for numbers
-- and strings, "--name" alone for booleans (default false); "--sizes 4,64,1024" for lists.
-- Unknown options are errors listing the known ones.
function B.args(argv, spec, usage)
  local o = {}
  for k, v in pairs(spec) do o[k] = v end
  local i = 1
  while argv and argv[i] do
    local a = argv[i]
    local name = a:match("^%-%-([%w_%-]+)$")
    if not name then error(("%s: unexpected argument '%s'\n%s"):format(argv[0] or "script", a, usage or ""), 0) end
    local key = name:gsub("%-", "_")
    if spec[key] == nil then
      local known = {}
      for k in pairs(spec) do known[#known + 1] = "--" .. k:gsub("_", "-") end
      table.sort(known)
      error(("%s: unknown option --%s (known: %s)\n%s"):format(argv[0] or "script", name,
        table.concat(known, " "), usage or ""), 0)
    end
    local d = spec[key]
    if d == false then
      o[key] = true
      i = i + 1
    else
      local v = argv[i + 1]
      if v == nil then error(("%s: --%s needs a value"):format(argv[0] or "script", name), 0) end
      if type(d) == "number" then
        o[key] = tonumber(v) or error(("%s: --%s: expected a number, got '%s'"):format(argv[0] or "script", name, v), 0)
      elseif type(d) == "table" then
        local list = {}
        for item in v:gmatch("[^,]+") do
          list[#list + 1] = tonumber(item) or error(("%s: --%s: '%s' is not a number"):format(argv[0] or "script", name, item), 0)
        end
        o[key] = list
      else
        o[key] = v
      end
      i = i + 2
    end
  end
  return o
end

-- Powers of two from lo to hi.
function B.pow2(lo, hi)
  local t, s = {}, lo
  while s <= hi do
    t[#t + 1] = s
    s = s * 2
  end
  return t
end

-- ---- set-up -------------------------------------------------------------------------------

local function round_page(n) return (n + 4095) // 4096 * 4096 end

-- Runs one phase: spawns `procs` ({ {node, name, fn}, ... }) at the end of the previous
-- phase (plus `gap_ns`, default 20 us, so the interfaces are idle) and runs the cluster until
-- they have all finished. The processes' own end times move the phase clock: a process
-- whose last act advanced its local clock ends there.
function B.phase(ctx, procs, gap_ns)
  local c = ctx.c
  local start = math.max(c:now_ns(), ctx.t_end or 0) + (gap_ns or 20000)
  for _, pr in ipairs(procs) do
    local fn = pr[3]
    c:spawn(pr[1], pr[2], function(p)
      fn(p)
      ctx.t_end = math.max(ctx.t_end or 0, p:now_ns())
    end, start)
  end
  c:run {}
  return start
end

-- B.setup{ nodes = 2, max_bytes = 65536, platform = "vmmc" (name or table), opt = "O2",
--          pairs = {{0, 1}, {1, 0}} } -> ctx
-- Builds the LCP (firmware/vmmc/vmmc.fw), the cluster and lk.vmmc, opens one endpoint per
-- node, and connects the pairs (sender, receiver): the receiver exports a buffer of
-- max_bytes (+ a page) and the sender imports it (the daemons' control path: set-up, before
-- the first measurement); then one warm-up word per pair.
-- ctx: c, V, fw, platform, eps[i], sbuf[i] (two send buffers: sbuf[i], sbuf2[i]),
-- rbuf[i], proxy[s][r] (proxy address of r's buffer as imported by s), flag (next value).
function B.setup(o)
  o = o or {}
  local platform = type(o.platform) == "table" and o.platform or lk.platform(o.platform or "vmmc")
  local fw = lk.firmware { sources = { "firmware/vmmc/vmmc.fw" }, opt = o.opt or "O2" }
  local nodes = o.nodes or 2
  local c = lk.cluster { platform = platform, nodes = nodes }
  local V = lk.vmmc(c, fw, platform)
  local bytes = round_page(o.max_bytes or 65536) + 4096
  local ctx = { c = c, V = V, fw = fw, platform = platform, nodes = nodes, max_bytes = o.max_bytes or 65536,
                eps = {}, sbuf = {}, sbuf2 = {}, rbuf = {}, proxy = {}, export = {}, flag = 1 }
  for i = 0, nodes - 1 do
    local ep = V:open(i)
    ctx.eps[i] = ep
    ctx.sbuf[i] = ep:alloc(bytes)
    ctx.sbuf2[i] = ep:alloc(bytes)
    ctx.rbuf[i] = ep:alloc(bytes)
    ctx.proxy[i] = {}
  end
  local pairs_ = o.pairs or { { 0, 1 }, { 1, 0 } }
  local receivers, procs = {}, {}
  for _, pr in ipairs(pairs_) do
    local r = pr[2]
    if not receivers[r] then
      receivers[r] = true
      procs[#procs + 1] = { r, "export", function(p) ctx.export[r] = ctx.eps[r]:export(p, ctx.rbuf[r], bytes) end }
    end
  end
  B.phase(ctx, procs, 0)
  procs = {}
  for _, pr in ipairs(pairs_) do
    local s, r = pr[1], pr[2]
    procs[#procs + 1] = { s, "import", function(p)
      local proxy, err = ctx.eps[s]:import(p, r, ctx.export[r])
      if not proxy then error(("node %d cannot import node %d's buffer: %s"):format(s, r, err)) end
      ctx.proxy[s][r] = proxy
    end }
  end
  B.phase(ctx, procs, 0)
  -- Warm-up: one word per pair, waited for by the receiver. The LCP spends its first
  -- millisecond or so clearing its TLBs, and the first request of each endpoint waits for
  -- that; no measurement should see it.
  procs = {}
  for _, pr in ipairs(pairs_) do
    local s, r = pr[1], pr[2]
    local flag = B.next_flag(ctx)
    ctx.eps[s]:write(ctx.sbuf2[s], string.pack(">I4", flag))
    procs[#procs + 1] = { s, "warm", function(p)
      local res = ctx.eps[s]:send(p, ctx.sbuf2[s], ctx.proxy[s][r] + bytes - 4, 4)
      if not res.ok then error("warm-up send refused: " .. tostring(res.error)) end
    end }
    procs[#procs + 1] = { r, "warm", function(p) ctx.eps[r]:wait_word(p, ctx.rbuf[r] + bytes - 4, flag) end }
  end
  B.phase(ctx, procs, 0)
  ctx.setup_us = ctx.t_end / 1000
  return ctx
end

-- Lets the simulation run 20 us past the last phase (the LCPs finish what they were doing).
function B.quiesce(ctx)
  local t = math.max(ctx.c:now_ns(), ctx.t_end or 0) + 20000
  ctx.c:run { until_ns = t }
  ctx.t_end = t
end

-- A fresh flag value (never 0: buffers start zeroed).
function B.next_flag(ctx)
  local f = ctx.flag
  ctx.flag = (ctx.flag % 0xFFFFFFF0) + 1
  return f
end

local function be32(v) return string.pack(">I4", v) end

-- Writes `flag` as the last word of an S-byte message in buffer `buf` of endpoint ep.
local function set_flag(ep, buf, size, flag) ep:write(buf + size - 4, be32(flag)) end

local function check_send(r, what)
  if not r.ok then error(what .. ": send refused: " .. tostring(r.error)) end
  return r
end

-- ---- profiles -----------------------------------------------------------------------------

-- The handlers of B.handlers the image has (all of them, for firmware/vmmc/vmmc.fw).
function B.profiled_handlers(fw)
  local have, out = {}, {}
  for _, h in ipairs(fw:handlers()) do have[h] = true end
  for _, h in ipairs(B.handlers) do if have[h] then out[#out + 1] = h end end
  return out
end

-- Packets sent and received by the LCPs of `nodes` so far (Vmmc:counters).
local function packets(ctx, nodes)
  local sent, received = 0, 0
  for _, n in ipairs(nodes) do
    local k = ctx.V:counters(n)
    sent, received = sent + k.sent, received + k.received
  end
  return sent, received
end

-- Runs fn() with a profile of `handlers` on the given nodes attached; returns fn's result,
-- { [handler] = {calls =, insns =, mean =, min =, max =} } summed over the nodes (insns:
-- all the handler's instructions; mean: per invocation), and the packets the nodes' LCPs
-- sent and received meanwhile. A handler invocation may serve more than one packet (the
-- LCP's tight loops), so per-packet figures divide `insns` by packets, not calls.
function B.profiled(ctx, nodes, fn)
  local handlers = B.profiled_handlers(ctx.fw)
  -- Attach and read with the LCPs idle in their main loops (no handler half counted).
  B.quiesce(ctx)
  local prof = ctx.c:profile { firmware = ctx.fw, handlers = handlers, nodes = nodes }
  local sent0, recv0 = packets(ctx, nodes)
  local result = fn()
  B.quiesce(ctx)
  local sent1, recv1 = packets(ctx, nodes)
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
  ctx.profiles = ctx.profiles or {}
  ctx.profiles[#ctx.profiles + 1] = prof
  return result, out, { sent = sent1 - sent0, received = recv1 - recv0 }
end

-- ---- Figure 2: ping-pong ------------------------------------------------------------------

-- One-way latency = round trip / 2 (synchronous send, alternating traffic): A sends S
-- bytes to B, B waits for the message's flag and sends S bytes back, A waits for the
-- answer's flag. opts: iters (timed round trips, default 20), warmup (default 2),
-- profile (default true: instructions per packet of the three handlers).
-- Row: size, one_way_us (mean), one_way_min_us, one_way_max_us, round_trips, short
-- (sent as a short request), and with profile: packets (per message and direction) and
-- the LCP's instructions per packet: insns_send_short (short sizes) or insns_send_chunk
-- (long sizes: per chunk) on the sending side, insns_recv on the receiving side.
function B.pingpong(ctx, sizes, opts)
  opts = opts or {}
  local iters, warmup = opts.iters or 20, opts.warmup or 2
  local a, b = ctx.eps[0], ctx.eps[1]
  local rows = {}
  for _, size in ipairs(sizes) do
    assert(size >= 4 and size % 4 == 0 and size <= ctx.max_bytes, "pingpong: sizes are words up to max_bytes")
    local n = warmup + iters
    local flags = {}
    for i = 1, n do flags[i] = { B.next_flag(ctx), B.next_flag(ctx) } end
    local rtts, short = {}, nil
    local function run()
      B.phase(ctx, {
        { 0, "ping", function(p)
          for i = 1, n do
            set_flag(a, ctx.sbuf[0], size, flags[i][1])
            local t0 = p:now_ps()
            local r = check_send(a:send(p, ctx.sbuf[0], ctx.proxy[0][1], size), "ping")
            short = r.short
            a:wait_word(p, ctx.rbuf[0] + size - 4, flags[i][2])
            if i > warmup then rtts[#rtts + 1] = p:now_ps() - t0 end
          end
        end },
        { 1, "pong", function(p)
          for i = 1, n do
            b:wait_word(p, ctx.rbuf[1] + size - 4, flags[i][1])
            set_flag(b, ctx.sbuf[1], size, flags[i][2])
            check_send(b:send(p, ctx.sbuf[1], ctx.proxy[1][0], size), "pong")
          end
        end },
      })
    end
    local counts, pk
    if opts.profile ~= false then
      local _, c, k = B.profiled(ctx, { 0, 1 }, run)
      counts, pk = c, k
    else
      run()
    end
    local sum, mn, mx = 0, math.huge, 0
    for _, t in ipairs(rtts) do
      sum = sum + t
      mn, mx = math.min(mn, t), math.max(mx, t)
    end
    local row = { size = size, one_way_us = sum / #rtts / 2e6, one_way_min_us = mn / 2e6,
                  one_way_max_us = mx / 2e6, round_trips = #rtts, short = short }
    if counts then
      -- Per packet: the handler's instructions over the packets of its kind.
      local function per(h, npk)
        local k = counts[h]
        if not k or k.calls == 0 or npk == 0 then return nil end
        return k.insns / npk
      end
      if short then row.insns_send_short = per("vmmc_send_short", pk.sent)
      else row.insns_send_chunk = per("vmmc_send_chunk", pk.sent) end
      row.insns_recv = per("vmmc_recv", pk.received)
      row.packets = pk.sent / (2 * n)
    end
    rows[#rows + 1] = row
  end
  return rows
end

-- Where one message's one-way time goes (c:message_trace, docs/profiling.md): A sends S
-- bytes to an idle B, which spins on the message's last word. The parts add up to the total.
-- Returns the breakdown table (times in us; see MessageTrace:breakdown).
function B.breakdown(ctx, size)
  local a, b = ctx.eps[0], ctx.eps[1]
  local flag = B.next_flag(ctx)
  set_flag(a, ctx.sbuf[0], size, flag)
  local tr = ctx.c:message_trace { from = 0, to = 1 }
  B.phase(ctx, {
    { 0, "traced", function(p)
      tr:start(p)
      check_send(a:send(p, ctx.sbuf[0], ctx.proxy[0][1], size, { async = true }), "traced")
      tr:posted(p)
    end },
    { 1, "notice", function(p)
      b:wait_word(p, ctx.rbuf[1] + size - 4, flag)
      tr:seen(p)
    end },
  })
  local r = tr:breakdown()
  tr:detach()
  return r
end

-- ---- Figure 3: bandwidth ------------------------------------------------------------------

-- Messages per size: at least `min_count`, and enough for `bytes` bytes.
local function count_for(size, opts)
  return math.max(opts.min_count or 8, math.min(opts.max_count or 1024, (opts.bytes or (1 << 20)) // size))
end

local function mb_s(bytes, ps) return bytes / (ps / 1e12) / 1e6 end

-- One-way bandwidth: A posts `count` asynchronous sends of S bytes back-to-back (the send
-- queue throttles it), the last from a second buffer carrying the flag; B spins on the
-- flag. MB/s = 10^6 bytes/s over the time from A's first post to B seeing the flag.
-- opts: bytes (per size, default 1 MB), min_count (8), max_count (1024).
-- Row: size, count, mb_s, us (per message), pct_limit (of the 110 MB/s 4 KB-DMA limit).
function B.stream(ctx, sizes, opts)
  opts = opts or {}
  local a, b = ctx.eps[0], ctx.eps[1]
  local rows = {}
  for _, size in ipairs(sizes) do
    assert(size >= 4 and size % 4 == 0 and size <= ctx.max_bytes, "stream: sizes are words up to max_bytes")
    local n = count_for(size, opts)
    local flag = B.next_flag(ctx)
    set_flag(a, ctx.sbuf[0], size, 0)
    set_flag(a, ctx.sbuf2[0], size, 0)
    -- Both source buffers once, untimed: the paper measured with the translations in the
    -- LANai's TLB ("we make sure that it is present"), so TLB misses stay out of the figure.
    B.phase(ctx, { { 0, "warm", function(p)
      for _, buf in ipairs { ctx.sbuf[0], ctx.sbuf2[0] } do
        check_send(a:send(p, buf, ctx.proxy[0][1], size), "stream warm-up")
      end
    end } })
    set_flag(a, ctx.sbuf2[0], size, flag)
    local t0, t1
    B.phase(ctx, {
      { 0, "stream", function(p)
        t0 = p:now_ps()
        local last
        for i = 1, n do
          last = check_send(a:send(p, i < n and ctx.sbuf[0] or ctx.sbuf2[0], ctx.proxy[0][1], size,
                                   { async = true }), "stream")
        end
        check_send(a:wait(p, last.seq), "stream")
      end },
      { 1, "sink", function(p)
        b:wait_word(p, ctx.rbuf[1] + size - 4, flag)
        t1 = p:now_ps()
      end },
    })
    local mbs = mb_s(n * size, t1 - t0)
    rows[#rows + 1] = { size = size, count = n, mb_s = mbs, us = (t1 - t0) / n / 1e6,
                        pct_limit = 100 * mbs / B.paper.dma_limit_mb_s }
  end
  return rows
end

-- Bidirectional (synchronous send, bidirectional traffic): both send S bytes at once,
-- each waits for the peer's message, then the next iteration. MB/s is the total of both
-- senders: 2 x count x S over the time from the first send to the last arrival.
function B.bidirectional(ctx, sizes, opts)
  opts = opts or {}
  local rows = {}
  for _, size in ipairs(sizes) do
    assert(size >= 4 and size % 4 == 0 and size <= ctx.max_bytes, "bidirectional: sizes are words up to max_bytes")
    local n = count_for(size, { bytes = (opts.bytes or (1 << 20)) // 2, min_count = opts.min_count,
                                max_count = opts.max_count })
    local flags = {}
    for i = 1, n do flags[i] = B.next_flag(ctx) end
    local t0, t1 = math.huge, 0
    local function side(me, peer)
      local ep = ctx.eps[me]
      return { me, "bidir", function(p)
        t0 = math.min(t0, p:now_ps())
        for i = 1, n do
          set_flag(ep, ctx.sbuf[me], size, flags[i])
          check_send(ep:send(p, ctx.sbuf[me], ctx.proxy[me][peer], size), "bidirectional")
          ep:wait_word(p, ctx.rbuf[me] + size - 4, flags[i])
        end
        t1 = math.max(t1, p:now_ps())
      end }
    end
    B.phase(ctx, { side(0, 1), side(1, 0) })
    local mbs = mb_s(2 * n * size, t1 - t0)
    rows[#rows + 1] = { size = size, count = n, mb_s = mbs, us = (t1 - t0) / n / 1e6,
                        pct_limit = 100 * mbs / B.paper.dma_limit_mb_s }
  end
  return rows
end

-- ---- Figure 4: send overhead --------------------------------------------------------------

-- Time A's process spends in ep:send (one-way traffic to an idle B), synchronous (until the
-- send buffer may be reused) or asynchronous (until posted). Between sends A waits for the
-- request to complete (untimed) and lets the interfaces drain, so each send starts idle.
-- Row: size, sync_us, async_us (medians over iters: the paper's figure assumes the send
-- queue's slots are preallocated, and the median leaves out the send that finds all
-- SQ_SLOTS used and reads `consumed` by PIO), sync_mean_us, async_mean_us, short.
function B.overhead(ctx, sizes, opts)
  opts = opts or {}
  local iters = opts.iters or 10
  local a = ctx.eps[0]
  local rows = {}
  for _, size in ipairs(sizes) do
    assert(size >= 4 and size % 4 == 0 and size <= ctx.max_bytes, "overhead: sizes are words up to max_bytes")
    local row = { size = size }
    for _, mode in ipairs { "sync", "async" } do
      local times, short = {}, nil
      local drain_ns = size * 20 + 30000 -- S at 50 MB/s, + 30 us
      B.phase(ctx, {
        { 0, "overhead", function(p)
          for _ = 1, iters do
            local t0 = p:now_ps()
            local r = check_send(a:send(p, ctx.sbuf[0], ctx.proxy[0][1], size, { async = mode == "async" }),
                                 "overhead")
            times[#times + 1] = p:now_ps() - t0
            short = r.short
            if mode == "async" then check_send(a:wait(p, r.seq), "overhead") end
            p:advance_ns(drain_ns)
          end
        end },
      })
      table.sort(times)
      local sum = 0
      for _, t in ipairs(times) do sum = sum + t end
      row[mode .. "_us"] = times[(#times + 1) // 2] / 1e6
      row[mode .. "_mean_us"] = sum / #times / 1e6
      row.short = short
    end
    rows[#rows + 1] = row
  end
  return rows
end

-- ---- output -------------------------------------------------------------------------------

B.columns = {
  pingpong = { "size", "short", "one_way_us", "one_way_min_us", "one_way_max_us", "packets",
               "insns_send_short", "insns_send_chunk", "insns_recv" },
  bandwidth = { "size", "count", "us", "mb_s", "pct_limit" },
  overhead = { "size", "short", "sync_us", "async_us", "sync_mean_us", "async_mean_us" },
}

local function cell(v)
  if v == nil then return "-" end
  if type(v) == "boolean" then return v and "yes" or "no" end
  if math.type(v) == "integer" then return tostring(v) end
  if type(v) == "number" then
    if v ~= v or v == math.huge then return "-" end
    if v >= 100 then return ("%.1f"):format(v) end
    return ("%.3f"):format(v)
  end
  return tostring(v)
end

-- A Markdown table of rows (columns in order; headers may be renamed with `headers`).
function B.table(rows, columns, headers)
  local out = {}
  local head = {}
  for i, c in ipairs(columns) do head[i] = headers and headers[c] or c end
  out[#out + 1] = "| " .. table.concat(head, " | ") .. " |"
  local sep = {}
  for i = 1, #columns do sep[i] = "---:" end
  out[#out + 1] = "|" .. table.concat(sep, "|") .. "|"
  for _, r in ipairs(rows) do
    local cells = {}
    for i, c in ipairs(columns) do cells[i] = cell(r[c]) end
    out[#out + 1] = "| " .. table.concat(cells, " | ") .. " |"
  end
  return table.concat(out, "\n") .. "\n"
end

-- Writes rows as CSV (columns in order) into dir/name.csv when dir is given; returns the path.
function B.csv(dir, name, rows, columns)
  if not dir or dir == "" then return nil end
  os.execute(("mkdir -p '%s'"):format(dir:gsub("'", "'\\''")))
  local path = dir .. "/" .. name .. ".csv"
  local plain = {}
  for i, r in ipairs(rows) do
    local t = {}
    for _, c in ipairs(columns) do
      local v = r[c]
      if type(v) == "boolean" then v = v and 1 or 0 end
      t[c] = v
    end
    plain[i] = t
  end
  lk.write_csv(path, plain, columns)
  return path
end

-- An SVG plot of series { {name =, rows =, y =} } against size (log x).
function B.svg(dir, name, title, y_label, series, log_y)
  if not dir or dir == "" then return nil end
  os.execute(("mkdir -p '%s'"):format(dir:gsub("'", "'\\''")))
  local path = dir .. "/" .. name .. ".svg"
  local ss = {}
  for _, s in ipairs(series) do
    local pts = {}
    for _, r in ipairs(s.rows) do
      if r[s.y] then pts[#pts + 1] = { r.size, r[s.y] } end
    end
    ss[#ss + 1] = { name = s.name, points = pts }
  end
  lk.plot_svg(path, { title = title, x_label = "message size (bytes)", y_label = y_label,
                      log_x = true, log_y = log_y or false, series = ss })
  return path
end

-- Interface counters summed over the nodes, and a check that nothing was dropped or refused.
function B.check_clean(ctx)
  local sum = {}
  for i = 0, ctx.nodes - 1 do
    for k, v in pairs(ctx.V:counters(i)) do sum[k] = (sum[k] or 0) + v end
    for k, v in pairs(ctx.eps[i]:counters()) do
      if k:match("^bad_") or k == "notify_overflow" then sum[k] = (sum[k] or 0) + v end
    end
  end
  for _, k in ipairs { "bad_crc", "bad_magic", "bad_len", "bad_dest", "bad_proxy", "bad_vaddr" } do
    if (sum[k] or 0) ~= 0 then error(("VMMC counters: %s = %d, expected 0"):format(k, sum[k])) end
  end
  if sum.sent ~= sum.received then
    error(("VMMC counters: %d packets sent, %d received"):format(sum.sent, sum.received))
  end
  return sum
end

return B
