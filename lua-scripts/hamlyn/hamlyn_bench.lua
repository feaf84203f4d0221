-- hamlyn_bench.lua -- the Hamlyn experiments' common part: a cluster with lk.hamlyn, an
-- application per node with a slot, a send buffer and a tagged-remote-write pair, and the
-- paper's measurement (../shared/seeds/000, section 4): a message sent from one process to
-- a remote one which returns it; one-way time = round trip / 2.
--
--   local H = require "hamlyn.hamlyn_bench"
--   local ctx = H.setup { packet = 256 }                    -- Hamlyn's testbed, 2 nodes
--   local r = H.pingpong(ctx, 16, { mode = "fast" })        -- {mean_us=, median_us=, ...}
local stats = require "stats"

local H = {}

-- The paper's numbers (PLATFORMS.md, "Hamlyn (000)").
H.paper = {
  fast_raw_us = 12.7, fast_trw_us = 14.1,
  table4 = { dma = 3.3, lanai = 6.7, switch = 0.5, io_writes = 1.4, host_sw = 0.8, host_sw_trw = 2.2 },
  base_us = 17.4, per_byte_ns = 55.5, meta_extra_us = 7.7, recv_per_packet_us = 12.9,
  slope_4k_mb_s = 30.7, asymptotic_4k_mb_s = 28, loopback_4_us = 19.1, loopback_mb_s = 22,
  wakeup_us = 78, bad_key_us = 3,
}

-- setup{ platform (name or table, default "hamlyn"), nodes (2), packet (PACKET_BYTES: 256),
-- opts (lk.hamlyn's), area (message area bytes, 256 KB), send_bytes (send buffer, 256 KB),
-- loopback (one application sends to itself: node 0 only) }
function H.setup(o)
  o = o or {}
  local platform = type(o.platform) == "table" and o.platform or lk.platform(o.platform or "hamlyn")
  local fw = lk.firmware { sources = { "firmware/hamlyn/hamlyn.fw" }, opt = "O2",
                           defines = { PACKET_BYTES = o.packet or 256 } }
  local c = lk.cluster { platform = platform, nodes = o.nodes or 2 }
  local h = lk.hamlyn(c, fw, o.opts)
  local ctx = { platform = platform, fw = fw, c = c, h = h, apps = {}, slot = {}, area = {}, send = {},
                meta = {}, packet = o.packet or 256, trw_rx = {}, trw_tx = {}, mgr = {} }
  for i = 0, c:size() - 1 do
    local a = h:open(i)
    ctx.apps[i] = a
    ctx.slot[i] = a:open_slot(o.area or (256 * 1024), 16)
    ctx.area[i] = a:slot(ctx.slot[i]).area
    ctx.send[i] = a:alloc_send(o.send_bytes or (256 * 1024))
    ctx.meta[i] = a:alloc_send(4096)
    ctx.mgr[i] = a:manager(64 * 1024)
    ctx.trw_rx[i] = ctx.mgr[i]:trw_receiver(4096)
    ctx.trw_tx[i] = ctx.mgr[i]:trw_sender()
  end
  return ctx
end

-- A payload of `size` bytes, different per size and seed.
function H.payload(size, seed)
  local t = {}
  for i = 1, size do t[i] = string.char((i * 131 + (seed or 0) * 7 + i // 251) % 256) end
  return table.concat(t)
end

-- Round trips of `size` bytes between nodes a and b. opts: iters (1000), warmup (2),
-- mode ("fast": lower level, fast mode; "trw": the tagged-remote-write protocol;
-- "normal": a metadata entry and `meta` bytes of metadata), meta (bytes, normal mode),
-- verify (check the last message's bytes), a (0), b (1).
-- Returns {samples_us, mean_us, median_us, min_us, max_us, size, mb_s}.
function H.pingpong(ctx, size, opts)
  opts = opts or {}
  local iters, warmup = opts.iters or 1000, opts.warmup or 2
  local mode, meta = opts.mode or "normal", opts.meta or 0
  local a, b = opts.a or 0, opts.b or 1
  local n = ctx.c:node(a)
  local apps = ctx.apps
  local data = H.payload(size, 1)
  ctx.c:node(a):host_write(ctx.send[a], data)
  ctx.c:node(b):host_write(ctx.send[b], data)
  local function ticket(to, from)
    if mode == "trw" then return ctx.trw_rx[to]:ticket(0, math.max(size, 4)) end
    return apps[to]:ticket(ctx.slot[to], mode == "fast" and "fast" or 0, 0, math.max(size, 4))
  end
  local t_ab, t_ba = ticket(b, a), ticket(a, b)
  local function send(p, from, t)
    if mode == "trw" then
      ctx.trw_tx[from]:send(p, t, ctx.send[from], size, 0, 7)
    elseif mode == "fast" then
      apps[from]:send(p, t, ctx.send[from], size, nil, 0, 7)
    else
      apps[from]:send(p, t, ctx.send[from], size, ctx.meta[from], meta)
    end
  end
  local function recv(p, at)
    if mode == "trw" then
      assert(ctx.trw_rx[at]:get_tag(p, 1e9), "no message")
    else
      assert(apps[at]:recv_block(p, 1e9), "no message")
    end
  end
  local samples = {}
  local done = false
  ctx.c:spawn(b, "pong", function(p)
    for _ = 1, warmup + iters do
      recv(p, b)
      send(p, b, t_ba)
    end
  end)
  ctx.c:spawn(a, "ping", function(p)
    for i = 1, warmup + iters do
      local t0 = p:now_ns()
      send(p, a, t_ab)
      recv(p, a)
      if i > warmup then samples[#samples + 1] = (p:now_ns() - t0) / 2 / 1000 end
    end
    done = true
  end)
  ctx.c:run {}
  assert(done, "the ping-pong did not finish")
  if opts.verify then
    local where = mode == "trw" and ctx.trw_rx[b]:area() or ctx.area[b]
    assert(ctx.c:node(b):host_read(where, size) == data, "the message's bytes differ at node " .. b)
  end
  local s = stats.summary(samples)
  return { samples_us = samples, mean_us = s.mean, median_us = s.median, min_us = s.min, max_us = s.max,
           size = size, mb_s = size / s.median }
end

-- The card's rejection counters (docs/hamlyn.md): every one is zero in a clean run.
H.REJECTIONS = { "bad_crc", "bad_format", "bad_slot", "bad_key", "bad_bounds", "bad_index",
                 "bad_one_shot", "bad_nqcb", "discarded" }

-- Node i's nonzero rejection counters as "name = value" strings, and all its counters.
function H.rejected(h, i)
  local k, out = h:counters(i), {}
  for _, name in ipairs(H.REJECTIONS) do
    if k[name] ~= 0 then out[#out + 1] = ("%s = %d"):format(name, k[name]) end
  end
  return out, k
end

-- Every rejection counter of every node zero (a clean experiment).
function H.check_clean(ctx)
  for i = 0, ctx.c:size() - 1 do
    local bad = H.rejected(ctx.h, i)
    assert(#bad == 0, ("node %d: %s"):format(i, table.concat(bad, ", ")))
  end
end

return H
