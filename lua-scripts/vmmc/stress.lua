-- stress.lua -- VMMC under load: four nodes, random sizes and destinations, every byte
-- checked, TLB-miss storms.
--
--   lanaikit run lua-scripts/vmmc/stress.lua [--messages N] [--seed S] [--nodes 4]
--                [--slots 8] [--arena-mb 12] [--short-percent 50] [--max-bytes 65536]
--
-- Each node runs two processes with an endpoint each:
--  * a sender, which sends --messages / nodes messages: a random destination, a random size
--    (--short-percent of them short, 4..128 bytes; the others long, log-uniform up to
--    --max-bytes), as an asynchronous send of the data into a slot of the receiver's
--    per-source ring, then a 16-byte short send of the slot's descriptor {seq, len, index,
--    checksum} (VMMC delivers one process's requests in order, so the descriptor arrives
--    after the data). Its send buffers are spread over an --arena-mb MB arena (each
--    message starts on a fresh page), more than the LCP's software TLB covers (8 MB), so
--    translations are evicted and the LANai interrupts the driver for them again and again.
--  * a receiver, which waits (ep:wait_words) on the descriptors of its per-source rings,
--    checks every delivered byte against what the sender sent (the payload is a function
--    of source, message index and offset) and returns credits: a 4-byte short send of its
--    consumed count into the sender's credit word. A sender never has more than --slots
--    messages outstanding per destination.
-- The exports are protected: each ring may be written only by its one sender, each credit
-- page only by the receivers.
--
-- Prints messages and bytes delivered, checked and lost (must be 0), the LCP's counters
-- (TLB misses, fills, bad packets: must be 0), simulated time, messages per simulated
-- second and the wall time. Exit status 1 on any loss, corruption or bad counter.
local args = require "args"
local phase = require "phase"
local counters = require "counters"
local bounds = require "bounds"

local usage = "usage: stress.lua [--messages N] [--seed S] [--nodes N] [--slots N] [--arena-mb MB]\n" ..
              "                  [--short-percent P] [--max-bytes N] [--stall-ms MS] [--quiet] [--bounds]"
local o = args.parse(arg, { messages = 20000, seed = 1, nodes = 4, slots = 8, arena_mb = 12, short_percent = 50,
                        max_bytes = 65536, quiet = false, stall_ms = 20, bounds = false }, usage)
local N, NODES, SLOTS = math.floor(o.messages), math.floor(o.nodes), math.floor(o.slots)
assert(NODES >= 2 and NODES <= 4, "stress: 2 to 4 nodes (two endpoints each)")
assert(SLOTS >= 1 and SLOTS <= 64, "stress: 1 to 64 slots")
local MAX = math.floor(o.max_bytes) // 4 * 4
assert(MAX >= 132 and MAX <= 65536, "stress: --max-bytes in 132..65536")
local SLOT_BYTES = (MAX + 4095) // 4096 * 4096
local ARENA = math.floor(o.arena_mb * 1024 * 1024) // 4096 * 4096
assert(ARENA >= 2 * SLOT_BYTES + 8192, "stress: the arena must hold two of the largest messages")
local DESC = 16

local wall0 = os.clock()
local platform = lk.platform("vmmc")
local fw = lk.firmware { sources = { "firmware/vmmc/vmmc.fw" }, opt = "O2" }
local c = lk.cluster { platform = platform, nodes = NODES }
local V = lk.vmmc(c, fw, platform)
if o.bounds then bounds.start(c) end -- what ends the chips' batches (lib/bounds.lua)

-- ---- the traffic: per sender, a deterministic sequence of (destination, size) ----------------

local LOG_LO, LOG_HI = math.log(132), math.log(MAX + 1)
local function schedule(i)
  local g = lk.rng(o.seed * 1000 + i)
  return function()
    local d = g:uniform(0, NODES - 2)
    if d >= i then d = d + 1 end
    local size
    if g:uniform(1, 100) <= o.short_percent then
      size = 4 * g:uniform(1, 32)
    else
      size = math.min(MAX, math.floor(math.exp(LOG_LO + (LOG_HI - LOG_LO) * g:real())) // 4 * 4)
    end
    return d, size
  end
end

local per_sender = {}
for i = 0, NODES - 1 do per_sender[i] = N // NODES + (i < N % NODES and 1 or 0) end
-- How many messages each receiver gets from each sender (a dry run of the schedules).
local expect = {}
for i = 0, NODES - 1 do expect[i] = {} for j = 0, NODES - 1 do expect[i][j] = 0 end end
for s = 0, NODES - 1 do
  local next_msg = schedule(s)
  for _ = 1, per_sender[s] do
    local d = next_msg()
    expect[d][s] = expect[d][s] + 1
  end
end

-- Payload of message k of sender s, len bytes: {s, k} then a window of a random block
-- chosen by (s, k): a function of source, index and offset.
local BLOCK = (function()
  local g = lk.rng(o.seed)
  local t = {}
  for n = 1, (MAX + 8192) // 4 do t[n] = string.pack("<I4", g:uniform(0, 0xFFFFFFFF)) end
  return table.concat(t)
end)()
local function payload(s, k, len)
  local head = string.pack(">I4I4", s, k)
  if len <= 8 then return head:sub(1, len) end
  local off = ((k * 7919 + s * 104729) % 2048) * 4
  return head .. BLOCK:sub(off + 1, off + len - 8)
end
-- A checksum carried in the descriptor (a second, independent check): 32-bit FNV-1a of
-- the payload's first and last 64 bytes and its length (lk.fnv1a32: a Lua loop over the
-- bytes was a tenth of the run).
local function checksum(data)
  local h = lk.fnv1a32(data:sub(1, 64))
  h = lk.fnv1a32(data:sub(-64), h)
  return lk.fnv1a32(string.pack(">I4", #data), h)
end

-- ---- endpoints, exports, imports ----------------------------------------------------------

local S, R = {}, {} -- per node: sender and receiver state
for i = 0, NODES - 1 do
  S[i] = { ep = V:open(i), proxy = {}, sent = {}, credit_at = {} }
  R[i] = { ep = V:open(i), ring = {}, export = {}, credit_proxy = {}, next = {} }
end
for i = 0, NODES - 1 do
  local s, r = S[i], R[i]
  s.arena = s.ep:alloc(ARENA)
  s.descs = s.ep:alloc(4096)   -- descriptors being sent (short sends: reusable at once)
  s.credits = s.ep:alloc(4096) -- word j: what receiver j has consumed of our messages
  r.staging = r.ep:alloc(4096) -- credit words being sent
  for j = 0, NODES - 1 do
    if j ~= i then
      r.ring[j] = r.ep:alloc(4096 + SLOTS * SLOT_BYTES) -- a page of descriptors, then the slots
      r.next[j] = 0
      s.sent[j] = 0
    end
  end
end

-- Set-up phases: each starts when the previous one's processes have ended.
local setup = phase.new(c, { after_processes = true })
local function run_phase(procs)
  local bodies = {}
  for i, pr in ipairs(procs) do bodies[i] = { node = pr[1], name = pr[2], fn = pr[3] } end
  setup:run(bodies, "stress set-up")
end

-- Exports: ring (i <- j) writable by sender j only; credit page of i by every receiver.
local procs = {}
for i = 0, NODES - 1 do
  procs[#procs + 1] = { i, "export", function(p)
    for j = 0, NODES - 1 do
      if j ~= i then
        R[i].export[j] = R[i].ep:export(p, R[i].ring[j], 4096 + SLOTS * SLOT_BYTES, { allow = { S[j].ep:id() } })
      end
    end
    local allow = {}
    for j = 0, NODES - 1 do if j ~= i then allow[#allow + 1] = R[j].ep:id() end end
    S[i].credit_export = S[i].ep:export(p, S[i].credits, 4096, { allow = allow })
  end }
end
run_phase(procs)
procs = {}
for i = 0, NODES - 1 do
  procs[#procs + 1] = { i, "import", function(p)
    for j = 0, NODES - 1 do
      if j ~= i then
        local proxy, err = S[i].ep:import(p, j, R[j].export[i])
        assert(proxy, err)
        S[i].proxy[j] = proxy
        proxy, err = R[i].ep:import(p, j, S[j].credit_export)
        assert(proxy, err)
        R[i].credit_proxy[j] = proxy
      end
    end
    -- Protection: the receiver endpoint may not import another sender's ring.
    local k = (i + 1) % NODES
    local other = (i + 2) % NODES
    if other ~= k then
      local proxy, err = R[i].ep:import(p, k, R[k].export[other])
      assert(not proxy and err, "stress: an import the exporter does not allow succeeded")
    end
  end }
end
run_phase(procs)
local setup_ns = setup.t_end

-- ---- the run ------------------------------------------------------------------------------

local delivered, checked_bytes, total_bytes, shorts, longs = 0, 0, 0, 0, 0
local failures = {}
local function counters_text()
  local lines = {}
  for i = 0, NODES - 1 do
    for _, e in ipairs { { "sender", S[i].ep }, { "receiver", R[i].ep } } do
      local k = e[2]:counters()
      lines[#lines + 1] = ("  node %d %s endpoint: posted %d, consumed by the LCP %d, last completion %d, bad proxy %d len %d vaddr %d")
        :format(i, e[1], k.posted, k.consumed, k.done, k.bad_proxy, k.bad_len, k.bad_vaddr)
    end
  end
  for i = 0, NODES - 1 do
    local k = V:counters(i)
    lines[#lines + 1] = ("  node %d LCP: sent %d received %d tlb_misses %d fills %d; bad crc %d magic %d len %d dest %d")
      :format(i, k.sent, k.received, k.tlb_misses, k.tlb_fills, k.bad_crc, k.bad_magic, k.bad_len, k.bad_dest)
  end
  return table.concat(lines, "\n")
end
local function fail(msg)
  failures[#failures + 1] = msg
  error(msg .. "\n" .. counters_text())
end

local function be32(str, at) return (string.unpack(">I4", str, at)) end
local procs_run = {} -- sender of node i at 2i+1, receiver at 2i+2

for i = 0, NODES - 1 do
  local s = S[i]
  local ep = s.ep
  procs_run[2 * i + 1] = c:spawn(i, "sender", function(p)
    local next_msg = schedule(i)
    local cursor, last_seq = 0, 0
    local descn = 0
    local g = lk.rng(o.seed * 7 + i)
    for k = 1, per_sender[i] do
      local d, size = next_msg()
      -- Credit: at most SLOTS outstanding to d.
      local function credit() return be32(ep:read(s.credits + 4 * d, 4)) end
      if s.sent[d] - credit() >= SLOTS then
        -- until the credit word reaches sent - SLOTS + 1 (a C++ word watch, not a Lua
        -- function called on every DMA)
        ep:wait_words(p, { { s.credits + 4 * d, ">=", s.sent[d] - SLOTS + 1 } })
      end
      local slot = s.sent[d] % SLOTS
      -- The send buffer: a fresh page of the arena, at a random word inside it.
      local start = (cursor + 4095) // 4096 * 4096 + 4 * g:uniform(0, 1023)
      if start + size > ARENA then
        if last_seq > 0 then
          local r = ep:wait(p, last_seq) -- every earlier send has left its buffer
          if not r.ok then fail(("node %d: send %d failed: %s"):format(i, last_seq, r.error)) end
        end
        start = 4 * g:uniform(0, 1023)
      end
      cursor = start + size
      local data = payload(i, k, size)
      ep:write(s.arena + start, data)
      local r = ep:send(p, s.arena + start, s.proxy[d] + 4096 + slot * SLOT_BYTES, size, { async = true })
      if not r.ok then fail(("node %d: message %d (%d bytes) to node %d refused: %s"):format(i, k, size, d, r.error)) end
      if r.short then shorts = shorts + 1 else longs = longs + 1 end
      if not r.short then last_seq = r.seq end
      s.sent[d] = s.sent[d] + 1
      local desc = string.pack(">I4I4I4I4", s.sent[d], size, k, checksum(data))
      descn = (descn + 1) % 256
      ep:write(s.descs + descn * DESC, desc)
      r = ep:send(p, s.descs + descn * DESC, s.proxy[d] + slot * DESC, DESC)
      if not r.ok then fail(("node %d: descriptor of message %d refused: %s"):format(i, k, r.error)) end
      total_bytes = total_bytes + size
    end
    if last_seq > 0 then ep:wait(p, last_seq) end
  end)
end

local total = 0
for i = 0, NODES - 1 do
  local r = R[i]
  local ep = r.ep
  local want = 0
  for j = 0, NODES - 1 do if j ~= i then want = want + expect[i][j] end end
  total = total + want
  procs_run[2 * i + 2] = c:spawn(i, "receiver", function(p)
    local got = 0
    local function ready(j)
      if r.next[j] >= expect[i][j] then return false end
      local slot = r.next[j] % SLOTS
      return be32(ep:read(r.ring[j] + slot * DESC, 4)) == r.next[j] + 1
    end
    local function any_ready()
      for j = 0, NODES - 1 do if j ~= i and ready(j) then return true end end
      return false
    end
    -- Until the next descriptor of some ring is stamped (a C++ word watch on every ring
    -- that still expects messages).
    local function wait_any()
      local words = {}
      for j = 0, NODES - 1 do
        if j ~= i and r.next[j] < expect[i][j] then
          words[#words + 1] = { r.ring[j] + (r.next[j] % SLOTS) * DESC, r.next[j] + 1 }
        end
      end
      ep:wait_words(p, words)
    end
    while got < want do
      if not any_ready() then wait_any() end
      for j = 0, NODES - 1 do
        if j ~= i and ready(j) then
          repeat
            local slot = r.next[j] % SLOTS
            local seq, len, k, sum = string.unpack(">I4I4I4I4", ep:read(r.ring[j] + slot * DESC, DESC))
            local data = ep:read(r.ring[j] + 4096 + slot * SLOT_BYTES, len)
            local want_data = payload(j, k, len)
            if data ~= want_data or checksum(data) ~= sum then
              local at = 1
              while at <= len and data:byte(at) == want_data:byte(at) do at = at + 1 end
              local hs, hk = 0, 0
              if #data >= 8 then hs, hk = string.unpack(">I4I4", data) end
              fail(("node %d: message %d from node %d (seq %d, %d bytes, ring slot %d) corrupted at byte %d: its header says source %d message %d")
                :format(i, k, j, seq, len, slot, at - 1, hs, hk))
            end
            r.next[j] = r.next[j] + 1
            got = got + 1
            delivered = delivered + 1
            checked_bytes = checked_bytes + len
            if not o.quiet and delivered % 1000 == 0 then lk.progress(delivered, total, "stress") end
          until not ready(j)
          -- Credit: our consumed count into sender j's credit word for us.
          ep:write(r.staging + 4 * j, string.pack(">I4", r.next[j]))
          local res = ep:send(p, r.staging + 4 * j, r.credit_proxy[j] + 4 * i, 4)
          if not res.ok then fail(("node %d: credit to node %d refused: %s"):format(i, j, res.error)) end
        end
      end
    end
  end)
end
-- Run in slices of simulated time; no delivery for --stall-ms is a failure, reported with
-- every ring's state (the LCPs poll forever, so a lost message would otherwise spin until
-- a limit).
local finished = 0
local last_delivered, stalled_ns = -1, 0
while finished < 2 * NODES do
  c:run { for_ns = 1e6, stop_when_processes_done = true }
  finished = 0
  for _, pr in ipairs(procs_run) do if pr:done() then finished = finished + 1 end end
  if delivered == last_delivered then
    stalled_ns = stalled_ns + 1e6
    if stalled_ns >= o.stall_ms * 1e6 and finished < 2 * NODES then
      local lines = {}
      for i = 0, NODES - 1 do
        for j = 0, NODES - 1 do
          if i ~= j then
            lines[#lines + 1] = ("  %d -> %d: sent %d, credit %d, received %d of %d"):format(j, i, S[j].sent[i],
              (string.unpack(">I4", S[j].ep:read(S[j].credits + 4 * i, 4))), R[i].next[j], expect[i][j])
          end
        end
      end
      lines[#lines + 1] = counters_text()
      for i = 0, NODES - 1 do
        lines[#lines + 1] = ("  node %d: sender %s, receiver %s"):format(i,
          procs_run[2 * i + 1]:done() and "done" or "waiting", procs_run[2 * i + 2]:done() and "done" or "waiting")
      end
      error(("stress: no message delivered for %g ms of simulated time at %.3f ms (%d of %d delivered):\n%s")
        :format(o.stall_ms, c:now_ns() / 1e6, delivered, total, table.concat(lines, "\n")))
    end
  else
    last_delivered, stalled_ns = delivered, 0
  end
end
if not o.quiet then lk.progress(total, total, "stress") end
local end_ns = c:now_ns()
c:run { for_ns = 200000 } -- the last credits are still on the wire when the processes end

-- ---- checks and report --------------------------------------------------------------------

local sum = {}
for i = 0, NODES - 1 do
  for k, v in pairs(V:counters(i)) do sum[k] = (sum[k] or 0) + v end
  for _, ep in ipairs { S[i].ep, R[i].ep } do
    for k, v in pairs(ep:counters()) do
      if k:match("^bad_") or k == "notify_overflow" then sum["ep_" .. k] = (sum["ep_" .. k] or 0) + v end
    end
  end
end
local sim_ns = end_ns - setup_ns
local wall = os.clock() - wall0
local lost = N - delivered
io.write(("VMMC stress: %d nodes, %d messages (%d short, %d long), %d slots per ring, %.1f MB send arena per sender, seed %d\n")
  :format(NODES, N, shorts, longs, SLOTS, ARENA / 1048576, o.seed))
io.write(("  delivered %d, lost %d, bytes sent %d, bytes checked %d, corrupted 0\n")
  :format(delivered, lost, total_bytes, checked_bytes))
io.write(("  LCP: %d packets sent, %d received; TLB misses %d, translations filled %d; bad crc %d magic %d len %d dest %d; endpoints: bad proxy %d len %d vaddr %d\n")
  :format(sum.sent, sum.received, sum.tlb_misses, sum.tlb_fills, sum.bad_crc, sum.bad_magic, sum.bad_len, sum.bad_dest,
          sum.ep_bad_proxy or 0, sum.ep_bad_len or 0, sum.ep_bad_vaddr or 0))
io.write(("  simulated %.3f ms (after %.3f ms of set-up): %.0f messages/s, %.1f MB/s delivered in total\n")
  :format(sim_ns / 1e6, setup_ns / 1e6, delivered / (sim_ns / 1e9), checked_bytes / (sim_ns / 1e9) / 1e6))
io.write(("  wall %.2f s (CPU): %.0f messages per wall second\n"):format(wall, delivered / wall))
lk.assert(lost == 0, ("stress: %d messages lost"):format(lost))
lk.assert(checked_bytes == total_bytes, ("stress: %d bytes sent, %d checked"):format(total_bytes, checked_bytes))
counters.check("stress", { sum }, { zero = { "bad_crc", "bad_magic", "bad_len", "bad_dest", "ep_bad_proxy", "ep_bad_len",
                                             "ep_bad_vaddr" }, equal = { { "sent", "received" } } })
if ARENA > 8 * 1048576 and longs > 0 then
  lk.assert(sum.tlb_misses > 0, "stress: a send arena larger than the TLB's reach caused no TLB miss")
end
io.write("  OK: no loss, no corruption\n")
if o.bounds then bounds.report(c) end
