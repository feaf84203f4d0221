-- bip_bench.lua -- the BIP experiments' common part: a cluster with lk.bip, buffers, and the
-- paper's measurement (../shared/seeds/003, section 5): round trips of one size, each
-- timed, one-way time = round trip / 2, the median of them.
--
--   local B = require "bip.bip_bench"
--   local ctx = B.setup { nodes = 2, max_bytes = 1 << 20 }          -- BIP's testbed
--   local r = B.pingpong(ctx, 4, { iters = 1000 })                 -- {median_us=, ...}
--
-- Ready mode: a long message needs its receive posted before it is sent. The ping-pong
-- below posts each receive before the message that answers it can leave: the ponger posts
-- its next receive before replying, the pinger before sending, and a short "ready" message
-- on its own tag starts the exchange once the first receive is posted.
local stats = require "stats"

local B = {}

-- The paper's numbers (PLATFORMS.md, "BIP (003)").
B.paper = { latency_us = 4.3, peak_mb_s = 126, half_mb_s = 63, half_bytes = 4096 }

local DATA_TAG, REPLY_TAG, READY_TAG = 0, 1, 2

-- setup{ platform (name or table, default "bip"), nodes (2), max_bytes (largest message,
-- default 1 MB), opts (lk.bip's: credits, copy_max, direct_min, packet), opt ("O2") }
function B.setup(o)
  o = o or {}
  local platform = type(o.platform) == "table" and o.platform or lk.platform(o.platform or "bip")
  local fw = lk.firmware { sources = { "firmware/bip/bip.fw" }, opt = o.opt or "O2", defines = o.defines, debug = o.debug }
  local c = lk.cluster { platform = platform, nodes = o.nodes or 2 }
  local bip = lk.bip(c, fw, o.opts)
  local ctx = { platform = platform, fw = fw, c = c, bip = bip, eps = {}, send = {}, recv = {},
                max_bytes = o.max_bytes or (1 << 20) }
  local cap = math.max(ctx.max_bytes, 4096)
  for i = 0, c:size() - 1 do
    local e = bip:endpoint(i)
    ctx.eps[i] = e
    ctx.send[i] = e:alloc(cap)
    ctx.recv[i] = e:alloc(cap)
  end
  return ctx
end

-- A payload of `size` bytes, different per size and seed.
function B.payload(size, seed)
  local t = {}
  for i = 1, size do t[i] = string.char((i * 131 + (seed or 0) * 7 + i // 251) % 256) end
  return table.concat(t)
end

-- Round trips of `size` bytes between nodes a and b: {samples_us (one-way), median_us,
-- mean_us, min_us, max_us, size, mb_s (size / median)}. opts: iters (1000), warmup (2),
-- verify (check every byte received), a (0), b (1), run (function(cluster) that runs the
-- cluster instead of c:run{}, e.g. under a debugger).
function B.pingpong(ctx, size, opts)
  opts = opts or {}
  local iters, warmup = opts.iters or 1000, opts.warmup or 2
  local a, b = opts.a or 0, opts.b or 1
  local ea, eb = ctx.eps[a], ctx.eps[b]
  local sa, ra, sb, rb = ctx.send[a], ctx.recv[a], ctx.send[b], ctx.recv[b]
  local cap = math.max(size, 4)
  local data
  if opts.verify then
    data = B.payload(size, 1)
    ea:write(sa, data)
  end
  local samples = {}
  local fail
  local function check(r, what)
    if not r.ok and not fail then fail = what .. ": " .. tostring(r.error) end
    return r.ok
  end
  ctx.c:spawn(a, "ping", function(p)
    check(ea:recv(p, READY_TAG, ra, 4), "ready")
    for i = 1, warmup + iters do
      ea:irecv(p, REPLY_TAG, ra, cap)
      local t0 = p:now_ns()
      if not check(ea:send(p, b, DATA_TAG, sa, size), "ping send") then return end
      local m = ea:wait_recv(p)
      if not check(m, "ping recv") then return end
      if i > warmup then samples[#samples + 1] = (p:now_ns() - t0) / 2 / 1000 end
    end
  end)
  ctx.c:spawn(b, "pong", function(p)
    eb:irecv(p, DATA_TAG, rb, cap)
    check(eb:send(p, a, READY_TAG, sb, 4), "ready")
    for i = 1, warmup + iters do
      local m = eb:wait_recv(p)
      if not check(m, "pong recv") then return end
      if data and i == 1 then
        if m.len ~= size or eb:read(rb, size) ~= data then fail = ("size %d: the data received differs"):format(size) end
      end
      if i < warmup + iters then eb:irecv(p, DATA_TAG, rb, cap) end
      if not check(eb:send(p, a, REPLY_TAG, rb, size), "pong send") then return end
    end
  end)
  if opts.run then opts.run(ctx.c) else ctx.c:run {} end -- opts.run: e.g. a debugger session
  if fail then error(("bip pingpong of %d bytes: %s"):format(size, fail), 2) end
  if #samples ~= iters then error(("bip pingpong of %d bytes: %d of %d round trips finished"):format(size, #samples, iters), 2) end
  local s = stats.summary(samples)
  return { size = size, samples_us = samples, median_us = s.median, mean_us = s.mean, min_us = s.min,
           max_us = s.max, mb_s = size > 0 and size / s.median or 0 }
end

-- Sums the MCP counters of every node.
function B.counters(ctx)
  local sum = {}
  for i = 0, ctx.c:size() - 1 do
    for k, v in pairs(ctx.eps[i]:counters()) do sum[k] = (sum[k] or 0) + v end
  end
  return sum
end

-- Fails if any node counted an error.
function B.check_clean(ctx)
  local k = B.counters(ctx)
  for _, name in ipairs { "bad_send", "bad_crc", "bad_magic", "bad_len", "lost", "stale", "not_posted",
                          "dropped", "ring_overflow", "nacked" } do
    if k[name] ~= 0 then error(("bip: %s = %d after a clean run"):format(name, k[name]), 2) end
  end
  return k
end

return B
