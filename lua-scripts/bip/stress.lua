-- stress.lua -- BIP under load: every node sends random messages (sizes, tags, destinations
-- drawn from a seeded generator) to every other, short and long mixed, and every byte and
-- the order per (source, tag) are checked at the receiver.
--
--   lanaikit run lua-scripts/bip/stress.lua [--nodes 4] [--messages 2000] [--seed 1]
--                [--long-percent 10] [--max-long 16384] [--topology switch] [--quiet]
--
-- --messages is the total over all nodes. Short messages (up to SHORT_MAX) go on tags
-- 0..5 into the receivers' rings; long ones (ready mode) on tag 7 after a rendezvous on
-- tag 6: the sender announces the message (RTS), the receiver posts its receive and
-- answers (CTS), the sender sends (a cleared long message before any other send). Every
-- process only ever waits for host memory to change (p:wait_memory): it never blocks in a
-- send (it posts when nothing is in flight), and it drains its rings whenever no long
-- receive is posted (BIP allows one receive at a time).
--
-- Each payload starts with (source, tag, seq, length) and continues with bytes derived from
-- them; the receiver checks all of it and that seq is the next of its (source, tag).
local args = require "args"

local o = args.parse(arg, { nodes = 4, messages = 2000, seed = 1, long_percent = 10, max_long = 16384,
                            quiet = false, platform = "bip", topology = "switch" },
  "usage: stress.lua [--nodes N] [--messages N] [--seed N] [--long-percent P] [--max-long BYTES]\n" ..
  "                  [--topology switch|clos|chain] [--quiet]")

local fw = lk.firmware { sources = { "firmware/bip/bip.fw" } }
-- Routes through one switch, or through several (a Clos network of 4-port leaves: up to
-- three hops), fixed per pair at start as in the paper.
local c = lk.cluster { platform = o.platform, nodes = o.nodes, topology = o.topology }
local B = lk.bip(c, fw)
local lim = B:limits()
local SHORT_TAGS, RTS_TAG, LONG_TAG = 6, 6, 7
local HDR = 16
local n = o.nodes
local rng = lk.rng(o.seed)

-- The plan: messages per node, in the order each sends them.
local plan, expect = {}, {}
for i = 0, n - 1 do plan[i] = {}; expect[i] = 0 end
for k = 1, o.messages do
  local src = rng:uniform(0, n - 1)
  local dest = (src + rng:uniform(1, n - 1)) % n
  local long = rng:uniform(1, 100) <= o.long_percent
  local size = long and 4 * rng:uniform((lim.short_max + 4) // 4, o.max_long // 4)
                     or 4 * rng:uniform(HDR // 4, lim.short_max // 4)
  local tag = long and LONG_TAG or rng:uniform(0, SHORT_TAGS - 1)
  table.insert(plan[src], { dest = dest, tag = tag, size = size, long = long })
  expect[dest] = expect[dest] + 1
end

local function payload(src, tag, seq, size)
  local head = string.pack(">I4I4I4I4", src, tag, seq, size)
  local t = { head }
  local x = (src * 7919 + tag * 104729 + seq * 31) % 251
  local body = {}
  for i = 1, size - HDR do body[i] = string.char((x + i * 13) % 256) end
  t[2] = table.concat(body)
  return table.concat(t)
end

local failures = {}
local function fail(msg)
  failures[#failures + 1] = msg
  error(msg, 0)
end

local received, sent_total = 0, 0
local states = {} -- per node, for the report of a run that stops short
for i = 0, n - 1 do
  local e = B:endpoint(i)
  local sbuf, rbuf, cbuf = e:alloc(o.max_long + 4096), e:alloc(o.max_long + 4096), e:alloc(4096)
  c:spawn(i, "stress" .. i, function(p)
    local next_send, sseq, rseq = 1, {}, {}
    local rts_queue, cleared, awaiting = {}, {}, {}
    local long_recv = nil     -- the RTS being received
    local got = 0
    states[i] = function()
      local aw, cl, rq = {}, {}, {}
      for id, m in pairs(awaiting) do aw[#aw + 1] = ("%d->%d"):format(id, m.dest) end
      for id in pairs(cleared) do cl[#cl + 1] = tostring(id) end
      for _, r in ipairs(rts_queue) do rq[#rq + 1] = ("%d:%d"):format(r.src, r.id) end
      return ("node %d: received %d of %d, next send %d of %d, in flight %d, long receive %s, RTS queued {%s}, awaiting CTS {%s}, cleared {%s}")
        :format(i, got, expect[i], next_send, #plan[i], e:sends_in_flight(),
                long_recv and ("from " .. long_recv.src) or "none", table.concat(rq, " "), table.concat(aw, " "), table.concat(cl, " "))
    end
    local function key(a, b) return a * 16 + b end
    -- Checks a message now in `buf` from `src` on `tag`.
    local function check(buf, src, tag, len)
      local data = e:read(buf, len)
      local s, t, q, l = string.unpack(">I4I4I4I4", data)
      if s ~= src or t ~= tag or l ~= len then
        fail(("node %d: message from %d tag %d len %d carries header (%d, %d, %d, %d)"):format(i, src, tag, len, s, t, q, l))
      end
      local k = key(src, tag)
      local want = (rseq[k] or 0) + 1
      if q ~= want then fail(("node %d: from %d on tag %d got seq %d, expected %d (order)"):format(i, src, tag, q, want)) end
      rseq[k] = q
      if data ~= payload(src, tag, q, len) then fail(("node %d: message %d from %d tag %d: bytes differ"):format(i, q, src, tag)) end
      got = got + 1
      received = received + 1
    end
    -- Whether the next planned message may go now (a long one waits while another long
    -- one to the same destination awaits its CTS: one at a time keeps LONG_TAG in order).
    -- Crossed rendezvous would deadlock (two nodes each holding a receive for the other's
    -- long message cannot see the other's CTS), so: while this node awaits a CTS it grants
    -- only to lower-numbered nodes, and it announces no long message while it holds a grant.
    -- Along a chain of waits node numbers then fall, so the chain ends.
    local function plan_ready()
      local m = plan[i][next_send]
      if not m then return false end
      if m.long then
        if long_recv then return false end
        for _, w in pairs(awaiting) do if w.dest == m.dest then return false end end
      end
      return true
    end
    local function grantable()
      if long_recv then return nil end
      for k, r in ipairs(rts_queue) do
        if next(awaiting) == nil or r.src < i then return k end
      end
      return nil
    end
    local function sendable()
      return grantable() ~= nil or next(cleared) ~= nil or plan_ready()
    end
    local function post(dest, tag, buf, size)
      e:isend(p, dest, tag, buf, size)
      sent_total = sent_total + 1
    end
    while got < expect[i] or next_send <= #plan[i] or next(awaiting) or #rts_queue > 0 or long_recv do
      local progress = false
      -- Short messages and control messages waiting in the rings (not while the long
      -- receive is posted: one receive at a time).
      for tag = 0, long_recv and -1 or RTS_TAG do
        while e:probe(tag) do
          local m = e:recv(p, tag, rbuf, lim.short_max)
          if not m.ok then fail("node " .. i .. ": recv: " .. m.error) end
          if tag == RTS_TAG then
            local kind, id, size = string.unpack(">I4I4I4", e:read(rbuf, 12))
            if kind == 1 then rts_queue[#rts_queue + 1] = { src = m.src, id = id, size = size }
            else cleared[id] = true end
          else
            check(rbuf, m.src, tag, m.len)
          end
          progress = true
        end
      end
      -- The long message being received.
      if long_recv and e:recv_done() then
        local m = e:wait_recv(p)
        if not m.ok then fail("node " .. i .. ": long recv: " .. m.error) end
        if m.src ~= long_recv.src or m.len ~= long_recv.size then
          fail(("node %d: long message from %d of %d bytes, expected %d bytes from %d"):format(i, m.src, m.len, long_recv.size, long_recv.src))
        end
        check(rbuf, m.src, LONG_TAG, m.len)
        long_recv = nil
        progress = true
      end
      -- Sends: only when nothing is in flight, so a send never blocks this process.
      if e:sends_in_flight() == 0 and e:send_done() then
        if grantable() then
          -- Post the receive first (ready mode), then clear the sender.
          long_recv = table.remove(rts_queue, grantable())
          e:irecv(p, LONG_TAG, rbuf, long_recv.size)
          e:write(cbuf, string.pack(">I4I4I4", 2, long_recv.id, 0))
          post(long_recv.src, RTS_TAG, cbuf, 12)
          progress = true
        elseif next(cleared) then
          local id = next(cleared)
          cleared[id] = nil
          local m = awaiting[id]
          awaiting[id] = nil
          e:write(sbuf, payload(i, LONG_TAG, m.seq, m.size))
          post(m.dest, LONG_TAG, sbuf, m.size)
          progress = true
        elseif plan_ready() then
          local m = plan[i][next_send]
          local k = key(m.dest, m.tag)
          m.seq = (sseq[k] or 0) + 1
          do
            sseq[k] = m.seq
            next_send = next_send + 1
            if m.long then
              awaiting[next_send] = m
              e:write(cbuf, string.pack(">I4I4I4", 1, next_send, m.size))
              post(m.dest, RTS_TAG, cbuf, 12)
            else
              e:write(sbuf, payload(i, m.tag, m.seq, m.size))
              post(m.dest, m.tag, sbuf, m.size)
            end
            progress = true
          end
        end
      end
      if not progress then
        p:wait_memory(function()
          if e:sends_in_flight() == 0 and e:send_done() and sendable() then return true end
          if long_recv then return e:recv_done() end
          for tag = 0, RTS_TAG do if e:probe(tag) then return true end end
          return false
        end)
      end
    end
  end)
end

local wall = os.clock()
-- Runs in slices of 50 ms of simulated time; a slice in which nothing was received while
-- messages are missing is a deadlock, reported with where every process was.
while received < o.messages do
  local before = received
  c:run { for_ns = 50e6 }
  if received == before then
    local lines = { ("stress: no progress for 50 ms at %.3f ms with %d of %d messages received; where each process was:")
                      :format(c:now_ns() / 1e6, received, o.messages) }
    for i = 0, n - 1 do lines[#lines + 1] = "  " .. (states[i] and states[i]() or "?") end
    error(table.concat(lines, "\n"), 0)
  end
end
local k = {}
for i = 0, n - 1 do
  for name, v in pairs(B:endpoint(i):counters()) do k[name] = (k[name] or 0) + v end
end
if received ~= o.messages then
  error(("stress: %d of %d messages received (is a process still waiting? %s)"):format(received, o.messages, table.concat(failures, "; ")), 0)
end
for _, name in ipairs { "bad_send", "bad_crc", "bad_magic", "bad_len", "lost", "stale", "not_posted", "dropped", "ring_overflow" } do
  if k[name] ~= 0 then error(("stress: counter %s = %d"):format(name, k[name]), 0) end
end
if not o.quiet then
  io.write(("bip stress: %d nodes (%s), %d messages (%d%% long up to %d B), seed %d: all delivered, every byte and the order per (source, tag) checked\n")
    :format(n, o.topology, o.messages, o.long_percent, o.max_long, o.seed))
  io.write(("simulated %.3f ms, %d packets, %d credit packets, %d credit waits, %.1f s CPU\n")
    :format(c:now_ns() / 1e6, k.sent, k.credit_packets, k.credit_waits, os.clock() - wall))
end
print(("stress-hash %s"):format(c:trace_hash()))
