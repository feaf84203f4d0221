-- stress.lua -- Hamlyn under load: several applications (send termini) per node, every one
-- sending random messages to random others (sizes, fast mode or metadata entries, direct
-- I/O or DMA, all drawn from a seeded generator), with adaptive routing on a Clos when
-- asked; every byte of every message and its metadata checked at the receiver, every
-- message acknowledged, and every card's rejection counters zero at the end.
--
--   lanaikit run lua-scripts/hamlyn/stress.lua [--nodes 4] [--apps 2] [--messages 4000]
--                [--max-bytes 4096] [--seed 1] [--topology switch|clos] [--multipath] [--quiet]
--
-- Sender-based memory management does the flow control: each (sender, receiver) pair owns
-- WINDOWS windows of the receiver's message area and as many metadata entries; message seq
-- of a pair goes to window seq % WINDOWS, and the sender reuses a window only after the
-- receiver acknowledged the message that last used it (a fast-mode message back carrying
-- its seq). Acknowledgements are per window, not cumulative: with adaptive routing,
-- messages complete, and acknowledgements arrive, out of order. Payload: src app, seq and length (12 bytes) then a byte derived from
-- them, repeated; normal messages also carry the same 12 bytes as metadata.
local args = require "args"
local B = require "hamlyn.hamlyn_bench"

local o = args.parse(arg, { nodes = 4, apps = 2, messages = 4000, max_bytes = 4096, seed = 1,
                            topology = "switch", multipath = false, quiet = false, platform = "hamlyn" },
  "usage: stress.lua [--nodes N] [--apps N] [--messages N] [--max-bytes B] [--seed N]\n" ..
  "                  [--topology switch|clos] [--multipath] [--quiet]")

local WINDOWS = 8
local fw = lk.firmware { sources = { "firmware/hamlyn/hamlyn.fw" } }
local c = lk.cluster { platform = o.platform, nodes = o.nodes, topology = o.topology }
local H = lk.hamlyn(c, fw, { multipath = o.multipath })
local rng = lk.rng(o.seed)
local napps = o.nodes * o.apps
local win = (o.max_bytes + 12 + 7) // 8 * 8

-- Applications: app i on node i // apps. Each has a data slot (a window per (sender,
-- seq % WINDOWS)), an acknowledgement slot (fast mode only), and send buffers.
local apps = {}
for i = 0, napps - 1 do
  local node = i // o.apps
  local a = H:open(node)
  local data_slot = a:open_slot(napps * WINDOWS * win, napps * WINDOWS)
  local ack_slot = a:open_slot(64, 0)
  apps[i] = { app = a, node = node, data_slot = data_slot, ack_slot = ack_slot,
              area = a:slot(data_slot).area, send = a:alloc_send(napps * WINDOWS * win),
              meta = a:alloc_send(napps * WINDOWS * 16), plan = {}, next = {}, busy = {}, got = {},
              expect = 0, received = 0, inflight = 0 }
  -- busy[dest][w]: the seq that last used window w to dest and is not acknowledged yet.
  for j = 0, napps - 1 do apps[i].next[j], apps[i].busy[j], apps[i].got[j] = 0, {}, 0 end
end

-- The plan: what each application sends, in order.
for _ = 1, o.messages do
  local s = rng:uniform(0, napps - 1)
  local d = rng:uniform(0, napps - 2)
  if d >= s then d = d + 1 end
  local len = rng:uniform(12, o.max_bytes + 12)
  local fast = len <= 256 and rng:uniform(0, 1) == 0
  table.insert(apps[s].plan, { dest = d, len = len, fast = fast })
  apps[d].expect = apps[d].expect + 1
end

local function header(src, seq, len) return string.pack(">I4I4I4", src, seq, len) end
local function payload(src, seq, len)
  return header(src, seq, len) .. string.rep(string.char((src * 31 + seq * 7 + len) % 251), len - 12)
end

local failures = {}
local function fail(msg) if #failures < 10 then failures[#failures + 1] = msg end end

local pending_acks = {} -- per app: list of {to, count}
local done_apps = 0
for i = 0, napps - 1 do
  local me = apps[i]
  local a = me.app
  pending_acks[i] = {}
  c:spawn(me.node, "app" .. i, function(p)
    local k = 1
    local function handle(n)
      if n.slot == me.ack_slot then
        local from, low = n.fast_word >> 16, n.fast_word & 0xFFFF
        local w = low % WINDOWS
        local b = me.busy[from][w]
        if b and (b & 0xFFFF) == low then
          me.busy[from][w] = nil
          me.inflight = me.inflight - 1
        else fail(("app %d: acknowledgement of %d from %d names no message in flight"):format(i, low, from)) end
        return
      end
      local src, seq, len
      if n.fast then
        src, seq = n.fast_word >> 16, n.fast_word & 0xFFFF
        local at = me.area + (src * WINDOWS + seq % WINDOWS) * win
        src, seq, len = string.unpack(">I4I4I4", c:node(me.node):host_read(at, 12))
      else
        src, seq, len = string.unpack(">I4I4I4", c:node(me.node):host_read(n.meta_addr, 12))
      end
      local at = me.area + (src * WINDOWS + seq % WINDOWS) * win
      if seq ~= me.got[src] + 1 and not o.multipath then
        -- one route per pair and one queue per terminus: in order
        fail(("app %d: from %d seq %d after %d"):format(i, src, seq, me.got[src]))
      end
      if c:node(me.node):host_read(at, len) ~= payload(src, seq, len) then
        fail(("app %d: message %d from %d (%d bytes) differs"):format(i, seq, src, len))
      end
      me.got[src] = math.max(me.got[src], seq)
      me.received = me.received + 1
      table.insert(pending_acks[i], { src, seq })
    end
    -- Until everything is sent and acknowledged, received and acknowledged.
    while k <= #me.plan or me.inflight > 0 or me.received < me.expect or #pending_acks[i] > 0 do
      local busy = false
      -- Acknowledge what arrived: a fast-mode message with the pair's count.
      while #pending_acks[i] > 0 do
        local ack = table.remove(pending_acks[i], 1)
        local to = apps[ack[1]]
        local t = to.app:ticket(to.ack_slot, "fast", 0, 0)
        a:send(p, t, me.send, 0, nil, 0, (i << 16) | (ack[2] & 0xFFFF))
        busy = true
      end
      -- The next send, when its window is free.
      local m = me.plan[k]
      if m and not me.busy[m.dest][(me.next[m.dest] + 1) % WINDOWS] then
        local seq = me.next[m.dest] + 1
        me.next[m.dest] = seq
        me.busy[m.dest][seq % WINDOWS] = seq
        me.inflight = me.inflight + 1
        local to = apps[m.dest]
        local w = (i * WINDOWS + seq % WINDOWS)
        local src_at = me.send + (m.dest * WINDOWS + seq % WINDOWS) * win
        c:node(me.node):host_write(src_at, payload(i, seq, m.len))
        if m.fast then
          a:send(p, to.app:ticket(to.data_slot, "fast", w * win, m.len), src_at, m.len, nil, 0, (i << 16) | (seq & 0xFFFF))
        else
          local meta_at = me.meta + (m.dest * WINDOWS + seq % WINDOWS) * 16
          c:node(me.node):host_write(meta_at, header(i, seq, m.len))
          a:send(p, to.app:ticket(to.data_slot, w, w * win, m.len), src_at, m.len, meta_at, 12)
        end
        k = k + 1
        busy = true
      end
      local n = a:recv(p)
      while n do
        handle(n)
        busy = true
        n = a:recv(p)
      end
      if not busy then
        n = a:recv_block(p, 50000)
        if n then handle(n) end
      end
    end
    done_apps = done_apps + 1
  end)
end
c:run {}
c:run { for_ns = 200000 } -- the last acknowledgements land

local total_rx, reordered = 0, 0
for i = 0, napps - 1 do
  total_rx = total_rx + apps[i].received
  for j = 0, napps - 1 do
    for w, seq in pairs(apps[i].busy[j]) do fail(("app %d: message %d to %d never acknowledged"):format(i, seq, j)) end
  end
  if apps[i].received ~= apps[i].expect then
    fail(("app %d received %d of %d"):format(i, apps[i].received, apps[i].expect))
  end
end
for n = 0, o.nodes - 1 do
  local bad, k = B.rejected(H, n)
  reordered = reordered + k.reordered
  for _, what in ipairs(bad) do fail(("node %d: %s"):format(n, what)) end
end
if done_apps ~= napps then fail(("%d of %d applications finished"):format(done_apps, napps)) end
if not o.quiet or #failures > 0 then
  print(("hamlyn stress: %d nodes (%s%s), %d applications, %d messages, %d received and checked, " ..
         "%d packets reordered, %.3f ms simulated"):format(o.nodes, o.topology, o.multipath and ", multipath" or "",
         napps, o.messages, total_rx, reordered, c:now_ns() / 1e6))
end
if #failures > 0 then error("stress failed:\n  " .. table.concat(failures, "\n  ")) end
