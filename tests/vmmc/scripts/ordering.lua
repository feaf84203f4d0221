-- A process's messages arrive in order: when a short flag message sent after a long message
-- has arrived, so has the long message (VMMC programs detect data by a flag written after it;
-- docs/vmmc.md: the send ring launches packets in order, Myrinet delivers in order).
--
-- Four nodes in a ring, each sending to the next while receiving from the previous: message
-- k is a long send (132 B .. 16 KB, from a fresh page of a 2 MB arena, into slot k % W of
-- the receiver's buffer) then an 8-byte short send of {k, len} into the flag word. The
-- receiver waits for flag k, checks slot k % W, acknowledges; the sender keeps W messages
-- outstanding. Fails on the first message whose data is not there when its flag is.
--   lanaikit run tests/vmmc/scripts/ordering.lua [nodes] [arena_mb] [window] [messages]
local N = tonumber(arg[1]) or 4
local ARENA = (tonumber(arg[2]) or 2) << 20
local W = tonumber(arg[3]) or 24 -- more requests in flight than SQ_SLOTS: the queue wraps
local K = tonumber(arg[4]) or 300
local SLOT = 16384

local platform = lk.platform("vmmc")
local fw = lk.firmware { sources = { "firmware/vmmc/vmmc.fw" }, opt = "O2" }
local c = lk.cluster { platform = platform, nodes = N }
local V = lk.vmmc(c, fw, platform)
local eps, rbuf, sbuf, ids, proxy = {}, {}, {}, {}, {}
for i = 0, N - 1 do
  eps[i] = V:open(i)
  rbuf[i] = eps[i]:alloc(8192 + W * SLOT)
  sbuf[i] = eps[i]:alloc(ARENA + 65536)
end
local t_end = 0
local function phase(make)
  local start = math.max(c:now_ns(), t_end)
  for i = 0, N - 1 do
    local name, fn = make(i)
    if fn then c:spawn(i, name, function(p) fn(p); t_end = math.max(t_end, p:now_ns()) end, start) end
  end
  c:run {}
end
phase(function(i) return "export", function(p) ids[i] = eps[i]:export(p, rbuf[i], 8192 + W * SLOT) end end)
phase(function(i)
  local d, from = (i + 1) % N, (i + N - 1) % N
  return "import", function(p)
    proxy[i] = { next = assert(eps[i]:import(p, d, ids[d])), prev = assert(eps[i]:import(p, from, ids[from])) }
  end
end)

local failures = {}
local acked, procs = {}, {}
for i = 0, N - 1 do
  local from = (i + N - 1) % N
  local g = lk.rng(5 + i)
  local ep = eps[i]
  procs[#procs + 1] = c:spawn(i, "tx", function(p)
    local cursor = 0
    for k = 1, K do
      if k > W then -- the next node's acknowledgement (a count: it may have passed k - W)
        p:wait_memory(function() return string.unpack(">I4", ep:read(rbuf[i] + 4096, 4)) >= k - W end)
      end
      local len = 4 * g:uniform(33, 4096)
      local off = cursor + 4 * g:uniform(0, 1023)
      cursor = (off + len + 4095) // 4096 * 4096
      if cursor + SLOT + 4096 > ARENA then cursor = 0 end -- W x 16 KB << the arena: long done
      ep:write(sbuf[i] + off, string.rep(string.pack(">I4", k << 4 | i), len // 4)) -- message k of node i
      local r = ep:send(p, sbuf[i] + off, proxy[i].next + 8192 + (k % W) * SLOT, len, { async = true })
      lk.assert(r.ok, r.error)
      -- The flag goes into message k's own descriptor word pair: with W messages in
      -- flight, one shared flag would already name a later message (and its length).
      ep:write(sbuf[i] + ARENA + 8 * (k % 64), string.pack(">I4I4", k, len))
      lk.assert(ep:send(p, sbuf[i] + ARENA + 8 * (k % 64), proxy[i].next + 64 + 8 * (k % W), 8).ok, "flag refused")
    end
  end, t_end)
  procs[#procs + 1] = c:spawn(i, "rx", function(p)
    for k = 1, K do
      local desc = rbuf[i] + 64 + 8 * (k % W)
      p:wait_memory(function() return string.unpack(">I4", ep:read(desc, 4)) == k end)
      local len = string.unpack(">I4", ep:read(desc + 4, 4))
      local got = ep:read(rbuf[i] + 8192 + (k % W) * SLOT, len)
      local want = string.rep(string.pack(">I4", k << 4 | from), len // 4)
      if got ~= want then
        local at = 1
        while got:byte(at) == want:byte(at) do at = at + 1 end
        local w = string.unpack(">I4", got, (at - 1) // 4 * 4 + 1)
        failures[#failures + 1] = ("node %d: flag %d from node %d arrived at %.3f us, but slot %d (%d bytes) differs from byte %d on: it holds message %d of node %d there")
          :format(i, k, from, p:now_ns() / 1000, k % W, len, at - 1, w >> 4, w & 15)
        c:stop()
        return
      end
      acked[i] = k
      ep:write(sbuf[i] + ARENA + 1024, string.pack(">I4", k))
      lk.assert(ep:send(p, sbuf[i] + ARENA + 1024, proxy[i].prev + 4096, 4).ok, "acknowledgement refused")
    end
  end, t_end)
end
-- A watchdog: no message for 20 ms of simulated time is a failure (a lost message would
-- otherwise leave the LCPs polling until a limit).
local last, idle = -1, 0
while #failures == 0 do
  c:run { for_ns = 1e6 }
  local done, progress = true, 0
  for _, pr in ipairs(procs) do done = done and pr:done() end
  if done then break end
  for i = 0, N - 1 do progress = progress + (acked[i] or 0) end
  if progress == last then
    idle = idle + 1
    if idle >= 20 then
      local t = {}
      for i = 0, N - 1 do t[#t + 1] = ("node %d has %d of %d messages"):format(i, acked[i] or 0, K) end
      failures[#failures + 1] = "no message for 20 ms of simulated time: " .. table.concat(t, ", ")
    end
  else
    last, idle = progress, 0
  end
end
lk.assert(#failures == 0, "messages overtaken by later ones:\n" .. table.concat(failures, "\n"))
for i = 0, N - 1 do
  local k = V:counters(i)
  lk.assert(k.bad_crc + k.bad_magic + k.bad_len + k.bad_dest == 0, "bad packets on node " .. i)
end
print(("ordering: %d nodes, %d messages each, window %d: in order"):format(N, K, W))
