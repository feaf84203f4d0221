-- vmmc_bench.lua -- what is VMMC's own in its experiments: set-up (LCP, cluster, endpoints,
-- exports and imports), the transport adapter that lets the shared harness
-- (lua-scripts/lib/: traffic, sendcost, profile, phase) drive VMMC, the handlers profiled
-- per packet, the paper's numbers, and the VMMC names of the paper's benchmarks (section
-- 5.3, Figures 2-4) used by fig2_latency.lua, fig3_bandwidth.lua, fig4_overhead.lua,
-- main.lua and headline.lua.
--
--   local B = require "vmmc.vmmc_bench"
--   local ctx = B.setup { nodes = 2, max_bytes = 65536 }     -- LCP, cluster, endpoints, imports
--   local rows = B.pingpong(ctx, { 4, 64, 1024 }, { iters = 20, warmup = 2 })
--
-- Every benchmark runs as host processes on the simulated cluster, one phase per message
-- size, so every number is simulated time: deterministic, independent of the machine.
-- VMMC has no receive call: a message's last 32-bit word is its flag, and the receiver
-- spins on it (ep:wait_word), as VMMC programs do. Flags are numbered per sender and
-- receiver and never reused, so a stale word never matches. Node 0 is the sender ("A"),
-- node 1 the receiver ("B"); with more nodes, the others stay idle.
local phase = require "phase"
local profile = require "profile"
local sendcost = require "sendcost"
local traffic = require "traffic"
local counters = require "counters"

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

-- ---- set-up -------------------------------------------------------------------------------

local function round_page(n) return (n + 4095) // 4096 * 4096 end

local function be32(v) return string.pack(">I4", v) end

local function check_send(r, what)
  if not r.ok then error(what .. ": send refused: " .. tostring(r.error)) end
  return r
end

-- Runs one phase of host processes `procs` ({ {node, name, fn}, ... }) after the previous
-- phase's processes have ended, plus gap_ns (default 20 us, so the interfaces are idle).
function B.phase(ctx, procs, gap_ns)
  local bodies = {}
  for i, pr in ipairs(procs) do bodies[i] = { node = pr[1], name = pr[2], fn = pr[3] } end
  return ctx.phase:run(bodies, nil, { gap_ns = gap_ns })
end

-- A fresh flag value for set-up's warm-up words (never 0: buffers start zeroed).
local function next_flag(ctx)
  local f = ctx.flag
  ctx.flag = (ctx.flag % 0xFFFFFFF0) + 1
  return f
end

-- B.setup{ nodes = 2, max_bytes = 65536, platform = "vmmc" (name or table), opt = "O2",
--          pairs = {{0, 1}, {1, 0}} } -> ctx
-- Builds the LCP (firmware/vmmc/vmmc.fw), the cluster and lk.vmmc, opens one endpoint per
-- node, and connects the pairs (sender, receiver): the receiver exports a buffer of
-- max_bytes (+ a page) and the sender imports it (the daemons' control path: set-up, before
-- the first measurement); then one warm-up word per pair.
-- ctx: c, V, fw, platform, phase, eps[i], sbuf[i] (two send buffers: sbuf[i], sbuf2[i]),
-- rbuf[i], proxy[s][r] (proxy address of r's buffer as imported by s), transport.
function B.setup(o)
  o = o or {}
  local platform = type(o.platform) == "table" and o.platform or lk.platform(o.platform or "vmmc")
  local fw = lk.firmware { sources = { "firmware/vmmc/vmmc.fw" }, opt = o.opt or "O2" }
  local nodes = o.nodes or 2
  local c = lk.cluster { platform = platform, nodes = nodes }
  local V = lk.vmmc(c, fw, platform)
  local bytes = round_page(o.max_bytes or 65536) + 4096
  local ctx = { c = c, V = V, fw = fw, platform = platform, nodes = nodes, max_bytes = o.max_bytes or 65536,
                phase = phase.new(c, { gap_ns = 20000, after_processes = true }),
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
    local flag = next_flag(ctx)
    ctx.eps[s]:write(ctx.sbuf2[s], be32(flag))
    procs[#procs + 1] = { s, "warm", function(p)
      local res = ctx.eps[s]:send(p, ctx.sbuf2[s], ctx.proxy[s][r] + bytes - 4, 4)
      if not res.ok then error("warm-up send refused: " .. tostring(res.error)) end
    end }
    procs[#procs + 1] = { r, "warm", function(p) ctx.eps[r]:wait_word(p, ctx.rbuf[r] + bytes - 4, flag) end }
  end
  B.phase(ctx, procs, 0)
  ctx.setup_us = ctx.phase.t_end / 1000
  ctx.transport = B.transport(ctx)
  return ctx
end

-- ---- the transport adapter (lua-scripts/lib/traffic.lua) ------------------------------------

-- The flag of the k-th watched message from s to r: a per-pair number in the low 24
-- bits, the pair above, so no value repeats in a receive buffer.
local function flag_of(s, r, k) return ((s * 16 + r + 1) << 24) | (k & 0xFFFFFF) end

-- ep:send(dest, data_or_length, opts) sends from the node's first send buffer into the
-- destination's exported buffer, the message's last word carrying the next flag; with
-- opts.last == false (a stream's earlier messages, which nobody watches) the flag is 0;
-- with opts.last (a stream's last message) it goes from the second buffer and, if
-- asynchronous, waits for its completion. ep:recv(_, { src =, size = }) spins on the flag
-- of the next message from src. ep:complete(result) waits for an asynchronous send.
function B.transport(ctx)
  local sent, seen = {}, {} -- watched messages per (sender, receiver) pair
  for i = 0, ctx.nodes - 1 do sent[i], seen[i] = {}, {} end
  local t = { name = "vmmc", size = ctx.nodes, max_bytes = ctx.max_bytes, cluster = ctx.c, firmware = ctx.fw,
              phase = ctx.phase, receives = "last" }
  function t.packets(n)
    local k = ctx.V:counters(n)
    return k.sent, k.received
  end
  -- A stream is measured with the translations of both source buffers in the LANai's TLB
  -- (the paper: "we make sure that it is present"), so TLB misses stay out of the figure:
  -- one untimed synchronous send of each first.
  function t.before_size(pattern, size)
    if pattern ~= "stream" then return end
    local ep = ctx.eps[0]
    ep:write(ctx.sbuf[0] + size - 4, be32(0))
    ep:write(ctx.sbuf2[0] + size - 4, be32(0))
    B.phase(ctx, { { 0, "warm", function(p)
      for _, buf in ipairs { ctx.sbuf[0], ctx.sbuf2[0] } do
        check_send(ep:send(p, buf, ctx.proxy[0][1], size), "stream warm-up")
      end
    end } })
  end
  function t.endpoint(p)
    local me = p:node():index()
    local ep = ctx.eps[me]
    local e = {}
    function e.send(_, dest, data, opts)
      opts = opts or {}
      local size = type(data) == "number" and data or #data
      assert(size >= 4 and size % 4 == 0 and size <= ctx.max_bytes, "vmmc transport: sizes are words up to max_bytes")
      local buf = opts.last and ctx.sbuf2[me] or ctx.sbuf[me]
      if type(data) == "string" then ep:write(buf, data) end
      local flag = 0
      if opts.last ~= false then
        local k = (sent[me][dest] or 0) + 1
        sent[me][dest] = k
        flag = flag_of(me, dest, k)
      end
      ep:write(buf + size - 4, be32(flag))
      local r
      if opts.async then
        r = check_send(ep:send(p, buf, ctx.proxy[me][dest], size, { async = true }), "vmmc transport")
        if opts.last then check_send(ep:wait(p, r.seq), "vmmc transport") end
      else
        r = check_send(ep:send(p, buf, ctx.proxy[me][dest], size), "vmmc transport")
      end
      ctx.last_short = r.short
      return r
    end
    function e.recv(_, _, want)
      local k = (seen[me][want.src] or 0) + 1
      seen[me][want.src] = k
      ep:wait_word(p, ctx.rbuf[me] + want.size - 4, flag_of(want.src, me, k))
      return want.src, want.size
    end
    function e.complete(_, r) check_send(ep:wait(p, r.seq), "vmmc transport") end
    return e
  end
  return t
end

-- ---- the paper's benchmarks under VMMC's names ---------------------------------------------

-- Figure 2. One-way latency = round trip / 2 (synchronous send, alternating traffic):
-- lib/traffic.lua's ping-pong. opts: iters (timed round trips, default 20), warmup
-- (default 2), profile (default true: instructions per packet of the three handlers,
-- profiled per size). Row: size, one_way_us (mean), one_way_min_us, one_way_max_us,
-- round_trips, short (sent as a short request), and with profile: packets (per message and
-- direction) and the LCP's instructions per packet: insns_send_short (short sizes) or
-- insns_send_chunk (long sizes: per chunk) on the sending side, insns_recv on the
-- receiving side.
function B.pingpong(ctx, sizes, opts)
  opts = opts or {}
  local iters, warmup = opts.iters or 20, opts.warmup or 2
  local t = ctx.transport
  local rows = {}
  for _, size in ipairs(sizes) do
    local function run()
      return traffic.pingpong(t, { sizes = { size }, count = iters, warmup = warmup, verify = false })[1]
    end
    local r, counts, pk
    if opts.profile ~= false then
      counts, pk, r = profile.handlers(t, { 0, 1 }, B.handlers, run)
    else
      r = run()
    end
    local row = { size = size, one_way_us = r.lat_mean_us, one_way_min_us = r.lat_min_us,
                  one_way_max_us = r.lat_max_us, round_trips = r.count, short = ctx.last_short }
    if counts then
      if row.short then row.insns_send_short = profile.per_packet(counts, "vmmc_send_short", pk.sent)
      else row.insns_send_chunk = profile.per_packet(counts, "vmmc_send_chunk", pk.sent) end
      row.insns_recv = profile.per_packet(counts, "vmmc_recv", pk.received)
      row.packets = pk.sent / (2 * (warmup + iters))
    end
    rows[#rows + 1] = row
  end
  return rows
end

-- Where one message's one-way time goes (lib/sendcost.lua's breakdown).
function B.breakdown(ctx, size) return sendcost.breakdown(ctx.transport, size) end

-- Messages per size: at least `min_count`, and enough for `bytes` bytes.
local function count_for(opts)
  return function(size)
    return math.max(opts.min_count or 8, math.min(opts.max_count or 1024, (opts.bytes or (1 << 20)) // size))
  end
end

-- Figure 3, one-way (asynchronous send, one-way traffic): lib/traffic.lua's stream; node 1
-- watches the last message's flag. MB/s = 10^6 bytes/s over the time from A's first post
-- to B seeing the flag. opts: bytes (per size, default 1 MB), min_count (8), max_count
-- (1024). Row: size, count, mb_s, us (per message), pct_limit (of the 110 MB/s 4 KB-DMA
-- limit).
function B.stream(ctx, sizes, opts)
  opts = opts or {}
  local rows = {}
  for i, r in ipairs(traffic.stream(ctx.transport, { sizes = sizes, count = count_for(opts), warmup = 0, verify = false })) do
    rows[i] = { size = r.size, count = r.count, mb_s = r.mb_per_s, us = r.us_per_msg,
                pct_limit = 100 * r.mb_per_s / B.paper.dma_limit_mb_s }
  end
  return rows
end

-- Figure 3, bidirectional (synchronous send, bidirectional traffic): lib/traffic.lua's
-- exchange; MB/s is the total of both senders. opts.bytes is split between the directions.
function B.bidirectional(ctx, sizes, opts)
  opts = opts or {}
  local count = count_for { bytes = (opts.bytes or (1 << 20)) // 2, min_count = opts.min_count, max_count = opts.max_count }
  local rows = {}
  for i, r in ipairs(traffic.exchange(ctx.transport, { sizes = sizes, count = count, verify = false })) do
    rows[i] = { size = r.size, count = r.count, mb_s = r.mb_per_s, us = r.us_per_msg,
                pct_limit = 100 * r.mb_per_s / B.paper.dma_limit_mb_s }
  end
  return rows
end

-- Figure 4: send overhead, lib/sendcost.lua's. The median leaves out the send that finds
-- all SQ_SLOTS used and reads `consumed` by PIO: the paper's figure assumes the send
-- queue's slots are preallocated.
function B.overhead(ctx, sizes, opts)
  return sendcost.overhead(ctx.transport, sizes, { iters = (opts or {}).iters or 10 })
end

B.columns = {
  pingpong = { "size", "short", "one_way_us", "one_way_min_us", "one_way_max_us", "packets",
               "insns_send_short", "insns_send_chunk", "insns_recv" },
  bandwidth = { "size", "count", "us", "mb_s", "pct_limit" },
  overhead = { "size", "short", "sync_us", "async_us", "sync_mean_us", "async_mean_us" },
}

-- Interface counters summed over the nodes (the LCPs' and the endpoints' rejections), and
-- the check that nothing was dropped or refused.
function B.check_clean(ctx)
  local list = {}
  for i = 0, ctx.nodes - 1 do
    list[#list + 1] = ctx.V:counters(i)
    local bad = {}
    for k, v in pairs(ctx.eps[i]:counters()) do
      if k:match("^bad_") or k == "notify_overflow" then bad[k] = v end
    end
    list[#list + 1] = bad
  end
  return counters.check("VMMC", list, { zero = { "bad_crc", "bad_magic", "bad_len", "bad_dest", "bad_proxy", "bad_vaddr" },
                                        equal = { { "sent", "received" } } })
end

return B
