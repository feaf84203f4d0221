-- protocol_stress.lua -- Hamlyn's three library protocols (paper 3.3) at once: on every node
-- a sending application and a receiving one; every ordered (sender, receiver) pair of nodes
-- is given one of datagram, stream and tagged remote write (TRW), and random messages of
-- random sizes go over random pairs, all drawn from a seeded generator. Every byte is
-- checked at the receiver; streams for order and completeness (small sends coalesced by
-- the sender, flushed at random points and at the end); each datagram and each TRW tag;
-- every expected message received exactly once; every card's rejection counters zero.
--
--   lanaikit run lua-scripts/hamlyn/protocol_stress.lua [--nodes 4] [--messages 3000]
--                [--max-bytes 4096] [--seed 1] [--topology switch|clos] [--multipath] [--quiet]
--
-- Flow control: a stream's is its own (sender-based memory management: the sender blocks
-- for ring space or tickets until the receiver releases records). Datagrams and TRWs have
-- none in the library (raw Hamlyn: a second message into a window overwrites the first),
-- so each pair owns WINDOWS windows of the receiver's area (and, for datagrams, as many
-- metadata entries); message seq goes to window seq % WINDOWS, and the sender reuses a
-- window only after the receiver acknowledged the message that last used it, by a
-- zero-length TRW whose tag is (receiver << 16 | seq). Acknowledgements are per window:
-- with adaptive routing messages complete out of order.
--
-- Payload: sender node, seq and length (12 bytes), then bytes of a 251-cycle pattern
-- starting at a phase derived from them (so a shifted or misplaced copy shows).
local args = require "args"
local B = require "hamlyn.hamlyn_bench"

local o = args.parse(arg, { nodes = 4, messages = 3000, max_bytes = 4096, seed = 1,
                            topology = "switch", multipath = false, quiet = false, platform = "hamlyn" },
  "usage: protocol_stress.lua [--nodes N] [--messages N] [--max-bytes B] [--seed N]\n" ..
  "                           [--topology switch|clos] [--multipath] [--quiet]")
if o.nodes < 2 then error("protocol_stress: --nodes must be at least 2") end
if o.max_bytes < 256 then error("protocol_stress: --max-bytes must be at least 256") end

local WINDOWS = 8        -- per datagram or TRW pair
local PACKET = 256       -- a TRW is one fast-mode packet
local COALESCE = 256     -- stream sends shorter than this are copied and sent together
local RING = 4 * o.max_bytes + 4096
local TICKETS = 8
local SLOT = (o.max_bytes + 7) // 8 * 8 -- a window of a receiver's area or a send buffer
local PROTOS = { "datagram", "stream", "trw" }

local fw = lk.firmware { sources = { "firmware/hamlyn/hamlyn.fw" } }
local c = lk.cluster { platform = o.platform, nodes = o.nodes, topology = o.topology }
local H = lk.hamlyn(c, fw, { multipath = o.multipath })
local rng = lk.rng(o.seed)
local N = o.nodes

-- Pairs and their protocols: the pairs shuffled, then dealt round robin, so every protocol
-- has pairs whenever there are three or more.
local pairs_list = {}
for s = 0, N - 1 do
  for d = 0, N - 1 do
    if s ~= d then pairs_list[#pairs_list + 1] = { s, d } end
  end
end
for i = #pairs_list, 2, -1 do
  local j = rng:uniform(1, i)
  pairs_list[i], pairs_list[j] = pairs_list[j], pairs_list[i]
end
local proto = {} -- proto[s][d]
for s = 0, N - 1 do proto[s] = {} end
for i, pr in ipairs(pairs_list) do proto[pr[1]][pr[2]] = PROTOS[(i - 1) % 3 + 1] end

-- The plan: what each node sends, in order.
local plan, expect = {}, {} -- expect[d][s]: messages d gets from s
for n = 0, N - 1 do plan[n], expect[n] = {}, {} end
for d = 0, N - 1 do for s = 0, N - 1 do expect[d][s] = 0 end end
local planned = { datagram = 0, stream = 0, trw = 0 }
for _ = 1, o.messages do
  local pr = pairs_list[rng:uniform(1, #pairs_list)]
  local s, d = pr[1], pr[2]
  local kind = proto[s][d]
  local len, flush = nil, false
  if kind == "trw" then
    len = rng:uniform(12, PACKET)
  elseif kind == "datagram" then
    len = rng:uniform(12, o.max_bytes)
  elseif rng:uniform(0, 1) == 0 then
    len = rng:uniform(12, COALESCE - 1) -- coalesced
    flush = rng:uniform(0, 3) == 0
  else
    len = rng:uniform(COALESCE, o.max_bytes)
  end
  table.insert(plan[s], { dest = d, len = len, flush = flush })
  expect[d][s] = expect[d][s] + 1
  planned[kind] = planned[kind] + 1
end

local PAT = {}
for i = 0, 250 + o.max_bytes do PAT[#PAT + 1] = string.char(i % 251) end
PAT = table.concat(PAT)
local function payload(src, seq, len)
  local phase = (src * 31 + seq * 7 + len) % 251
  return string.pack(">I4I4I4", src, seq, len) .. PAT:sub(phase + 1, phase + len - 12)
end

local failures = {}
local function fail(msg) if #failures < 10 then failures[#failures + 1] = msg end end

-- Set-up (untimed, as the driver's): per node a sending application (T) and a receiving
-- one (R), each with its manager.
local nodes = {}
for n = 0, N - 1 do
  local T, R = H:open(n), H:open(n)
  local MT, MR = T:manager(), R:manager()
  local me = {
    T = T, R = R, MT = MT, MR = MR,
    dg_tx = MT:datagram_sender(), trw_tx = MT:trw_sender(), ack_rx = MT:trw_receiver(64),
    dg_rx = MR:datagram_receiver(N * WINDOWS * SLOT, N * WINDOWS), trw_rx = MR:trw_receiver(N * WINDOWS * PACKET),
    ack_tx = MR:trw_sender(), ack_buf = R:alloc_send(64),
    send = {}, st_tx = {}, st_rx = {}, handles = {}, next = {}, busy = {}, got = {}, seen = {},
    inflight = 0, received = 0, expected = 0,
  }
  for s = 0, N - 1 do me.expected = me.expected + expect[n][s] end
  nodes[n] = me
end
for s = 0, N - 1 do
  local me = nodes[s]
  me.ack_ticket = me.ack_rx:ticket(0, 0)
  -- One send buffer for every destination (a terminus has at most 8).
  local send = me.T:alloc_send(N * WINDOWS * SLOT)
  for d = 0, N - 1 do
    if d ~= s then
      me.send[d] = send + d * WINDOWS * SLOT
      me.next[d], me.busy[d], me.handles[d] = 0, {}, {}
      nodes[d].got[s], nodes[d].seen[s] = 0, {}
      if proto[s][d] == "stream" then
        local rx = nodes[d].MR:stream_receiver(RING, TICKETS)
        local tx = me.MT:stream_sender(rx:seed(), COALESCE)
        rx:accept(tx:ack_ticket())
        me.st_tx[d], nodes[d].st_rx[s] = tx, rx
      end
    end
  end
end
-- Tickets for datagram and TRW windows: the sender's copy, fetched once.
local tickets = {}
for s = 0, N - 1 do
  tickets[s] = {}
  for d = 0, N - 1 do
    if d ~= s and proto[s][d] ~= "stream" then
      tickets[s][d] = {}
      for w = 0, WINDOWS - 1 do
        local e = s * WINDOWS + w
        if proto[s][d] == "datagram" then
          tickets[s][d][w] = nodes[d].dg_rx:ticket(e, e * SLOT, SLOT)
        else
          tickets[s][d][w] = nodes[d].trw_rx:ticket(e * PACKET, PACKET)
        end
      end
    end
  end
end

local sent = { datagram = 0, stream = 0, trw = 0 }
local bytes = { datagram = 0, stream = 0, trw = 0 }
local records, flushes = 0, 0
local done, senders_done = 0, 0
-- A receiver gives up this long after every sender finished with nothing arriving (a lost
-- message then fails with the counts below rather than at the time limit).
local GIVE_UP_NS = 2e6
local STUCK_NS = 50e6

-- The sender: the plan in order; a datagram or TRW waits for its window.
for s = 0, N - 1 do
  local me = nodes[s]
  c:spawn(s, "tx" .. s, function(p)
    local function drain_acks()
      while true do
        local tag = me.ack_rx:get_tag(p, 0)
        if not tag then return end
        local from, low = tag >> 16, tag & 0xFFFF
        local w = low % WINDOWS
        local b = me.busy[from] and me.busy[from][w]
        if b and (b & 0xFFFF) == low then
          me.busy[from][w] = nil
          me.inflight = me.inflight - 1
        else
          fail(("node %d: acknowledgement of %d from %d names no message in flight"):format(s, low, from))
        end
      end
    end
    -- One notification (or none in 50 us), then the acknowledgements; false once nothing
    -- has come for STUCK_NS while we wait (a lost acknowledgement), so the run ends with
    -- the failures listed.
    local idle_since
    local function wait()
      if me.MT:poll(p, 50000) then idle_since = nil
      else
        idle_since = idle_since or p:now_ns()
        if p:now_ns() - idle_since > STUCK_NS then
          fail(("node %d: nothing for %.0f ms with %d messages unacknowledged"):format(s, STUCK_NS / 1e6, me.inflight))
          return false
        end
      end
      drain_acks()
      return true
    end
    local k = 1
    while k <= #plan[s] do
      local m = plan[s][k]
      local d = m.dest
      local kind = proto[s][d]
      local seq = me.next[d] + 1
      local w = seq % WINDOWS
      local at = me.send[d] + w * SLOT
      if kind == "stream" then
        -- A large send is DMAed from our buffer: reuse it once the card released it.
        local h = me.handles[d][w]
        if h and not me.T:released(h) then p:wait_memory(function() return me.T:released(h) end) end
        c:node(s):host_write(at, payload(s, seq, m.len))
        me.st_tx[d]:send(p, at, m.len)
        me.handles[d][w] = m.len >= COALESCE and me.T:posted() or nil
        if m.flush then
          me.st_tx[d]:flush(p)
          flushes = flushes + 1
        end
      elseif me.busy[d][w] then
        if not wait() then break end
        goto continue
      else
        me.busy[d][w] = seq
        me.inflight = me.inflight + 1
        c:node(s):host_write(at, payload(s, seq, m.len))
        if kind == "datagram" then
          me.dg_tx:send(p, tickets[s][d][w], at, m.len)
        else
          me.trw_tx:send(p, tickets[s][d][w], at, m.len, 0, (s << 16) | (seq & 0xFFFF))
        end
      end
      me.next[d] = seq
      sent[kind] = sent[kind] + 1
      bytes[kind] = bytes[kind] + m.len
      k = k + 1
      drain_acks()
      ::continue::
    end
    for d = 0, N - 1 do if me.st_tx[d] then me.st_tx[d]:flush(p) end end
    -- Until every window is acknowledged and every stream record released.
    local function drained()
      if me.inflight > 0 then return false end
      for d = 0, N - 1 do
        local st = me.st_tx[d] and me.st_tx[d]:stats()
        if st and st.released ~= st.messages then return false end
      end
      return true
    end
    while not drained() do
      if not wait() then break end
    end
    done = done + 1
    senders_done = senders_done + 1
  end)
end

-- The receiver: one wait for any notification, then every receiver asked with no wait.
for d = 0, N - 1 do
  local me = nodes[d]
  local node = c:node(d)
  c:spawn(d, "rx" .. d, function(p)
    local acks, idle_since = {}, nil
    local function take(s, seq, kind)
      if me.seen[s][seq] then fail(("node %d: %s %d from %d twice"):format(d, kind, seq, s)) end
      if seq < 1 or seq > expect[d][s] then fail(("node %d: %s %d from %d not sent"):format(d, kind, seq, s)) end
      me.seen[s][seq] = true
      me.got[s] = me.got[s] + 1
      me.received = me.received + 1
    end
    local function check(at, s, seq, len, kind, w)
      local src, sq, n = string.unpack(">I4I4I4", node:host_read(at, 12))
      if src ~= s or (sq & 0xFFFF) ~= (seq & 0xFFFF) or sq % WINDOWS ~= w or n ~= len then
        fail(("node %d: %s in window %d from %d has header (%d, %d, %d), expected (%d, %d, %d)")
          :format(d, kind, w, s, src, sq, n, s, seq, len))
        return nil
      end
      if node:host_read(at, len) ~= payload(s, sq, len) then
        fail(("node %d: %s %d from %d (%d bytes) differs"):format(d, kind, sq, s, len))
      end
      return sq
    end
    while me.received < me.expected or #acks > 0 do
      for _, a in ipairs(acks) do me.ack_tx:send(p, nodes[a[1]].ack_ticket, me.ack_buf, 0, 0, (d << 16) | a[2]) end
      acks = {}
      if me.received >= me.expected then break end
      if not me.MR:poll(p, 50000) and senders_done == N then
        idle_since = idle_since or p:now_ns()
        if p:now_ns() - idle_since > GIVE_UP_NS then break end
      else
        idle_since = nil
      end
      -- TRW: the tag names the window; the payload's header names the message.
      while true do
        local tag = me.trw_rx:get_tag(p, 0)
        if not tag then break end
        local s, low = tag >> 16, tag & 0xFFFF
        if not proto[s] or proto[s][d] ~= "trw" then
          fail(("node %d: TRW tag %#x from a pair that is not TRW"):format(d, tag))
        else
          local w = low % WINDOWS
          local at = me.trw_rx:area() + (s * WINDOWS + w) * PACKET
          local _, _, len = string.unpack(">I4I4I4", node:host_read(at, 12))
          local seq = check(at, s, low, math.min(math.max(len, 12), PACKET), "TRW", w)
          if seq then take(s, seq, "TRW") end
          acks[#acks + 1] = { s, low }
        end
      end
      -- Datagrams: each window's entry, ready or not.
      for s = 0, N - 1 do
        if s ~= d and proto[s][d] == "datagram" then
          for w = 0, WINDOWS - 1 do
            local e = s * WINDOWS + w
            if me.dg_rx:ready(e) then
              local dg = me.dg_rx:receive(p, e, 0)
              if dg.offset ~= e * SLOT then
                fail(("node %d: datagram in entry %d at offset %d"):format(d, e, dg.offset))
              else
                local at = me.dg_rx:area() + dg.offset
                local _, sq = string.unpack(">I4I4", node:host_read(at, 8))
                local seq = check(at, s, sq, dg.len, "datagram", w)
                if seq then
                  take(s, seq, "datagram")
                  acks[#acks + 1] = { s, seq & 0xFFFF }
                end
              end
            end
          end
        end
      end
      -- Streams: records in order, each holding whole messages in order.
      for s = 0, N - 1 do
        local rx = me.st_rx[s]
        while rx do
          local rec = rx:receive(p, 0)
          if not rec then break end
          records = records + 1
          local data, pos = node:host_read(rec.start, rec.len), 1
          while pos <= #data do
            if pos + 11 > #data then
              fail(("node %d: stream record %d from %d ends inside a header"):format(d, rec.seq, s))
              break
            end
            local src, seq, len = string.unpack(">I4I4I4", data, pos)
            if src ~= s or seq ~= me.got[s] + 1 or len < 12 or pos + len - 1 > #data then
              fail(("node %d: stream from %d: message (%d, %d, %d) after %d"):format(d, s, src, seq, len, me.got[s]))
              break
            end
            if data:sub(pos, pos + len - 1) ~= payload(s, seq, len) then
              fail(("node %d: stream message %d from %d (%d bytes) differs"):format(d, seq, s, len))
            end
            take(s, seq, "stream message")
            pos = pos + len
          end
          rx:release(p, rec.seq)
        end
      end
    end
    done = done + 1
  end)
end
c:run {}
c:run { for_ns = 200000 } -- the last acknowledgements land

local reordered, blocked = 0, 0
for n = 0, N - 1 do
  local me = nodes[n]
  if me.received ~= me.expected then fail(("node %d received %d of %d"):format(n, me.received, me.expected)) end
  for s = 0, N - 1 do
    if s ~= n and me.got[s] ~= expect[n][s] then
      fail(("node %d: %d of %d messages from %d"):format(n, me.got[s], expect[n][s], s))
    end
  end
  for d, tx in pairs(me.st_tx) do blocked = blocked + tx:stats().blocked end
  if me.MT:unclaimed() ~= 0 or me.MR:unclaimed() ~= 0 then
    fail(("node %d: %d notifications without a receiver"):format(n, me.MT:unclaimed() + me.MR:unclaimed()))
  end
  local bad, k = B.rejected(H, n)
  reordered = reordered + k.reordered
  for _, what in ipairs(bad) do fail(("node %d: %s"):format(n, what)) end
end
for _, kind in ipairs(PROTOS) do
  if sent[kind] ~= planned[kind] then fail(("%s: %d of %d sent"):format(kind, sent[kind], planned[kind])) end
end
if done ~= 2 * N then fail(("%d of %d processes finished"):format(done, 2 * N)) end
if not o.quiet or #failures > 0 then
  local received = 0
  for n = 0, N - 1 do received = received + nodes[n].received end
  print(("hamlyn protocol stress: %d nodes (%s%s), %d messages received and checked of %d: %d datagram (%d B), %d stream " ..
         "(%d B in %d records, %d flushes, %d sends blocked), %d TRW (%d B); %d packets reordered, %.3f ms simulated")
    :format(N, o.topology, o.multipath and ", multipath" or "", received, o.messages,
            sent.datagram, bytes.datagram, sent.stream, bytes.stream, records, flushes, blocked,
            sent.trw, bytes.trw, reordered, c:now_ns() / 1e6))
end
if #failures > 0 then error("protocol stress failed:\n  " .. table.concat(failures, "\n  ")) end
