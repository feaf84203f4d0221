-- mpi.lua -- an MPI-style layer on BIP (docs/bip.md, "An MPI-style layer"), as the paper's MPICH port put
-- MPI on BIP "by using small control messages" (../shared/seeds/003, section 3).
--
--   local mpi = require "bip.mpi"
--   local ctx = require("bip.bip_bench").setup { nodes = 4 }
--   local world = mpi.world(ctx)               -- world[r]: rank r's communicator (0-based)
--   c:spawn(0, "r0", function(p)
--     local w = world[0]                       -- w.rank, w.size
--     w:send(p, 1, 42, "hello")                -- data are Lua strings
--     local data, st = w:recv(p, mpi.ANY_SOURCE, mpi.ANY_TAG)   -- st = {source, tag, len}
--     local sub = w:split(p, w.rank % 2, w.rank)
--     local s = sub:allreduce(p, { 1, 2.5 }, "sum")
--   end)
--
-- BIP gives one send and one receive pending per process, eight tags, receives from any
-- source, and ready mode for messages over 1024 bytes. Over that this layer builds MPI's
-- matching on (communicator, source, tag) itself:
--   * BIP tag CTRL_TAG (6) carries every short message: eager messages (a 16-byte MPI
--     header, then the payload, through one staging buffer) and the rendezvous protocol's
--     control messages. One BIP tag for all of them keeps MPI's non-overtaking order per
--     source (BIP delivers in order per (source, tag)).
--   * BIP tag DATA_TAG (7) carries rendezvous payloads, received straight into the
--     destination buffer; a BIP receive is posted on it before the clear-to-send leaves,
--     so ready mode is never violated. Tags 0..5 stay free for the application.
--   * Messages whose header and payload fit one BIP short message go eagerly: matched
--     against the posted receives, else kept in the unexpected queue. Longer ones send a
--     request-to-send (RTS); once a matching receive exists the receiver posts its BIP
--     receive on DATA_TAG and answers clear-to-send (CTS); the sender then sends the data.
--
-- The single BIP receive slot is the hard part: a CTRL receive posted while waiting cannot
-- be taken back when a receive later matches a queued RTS. The receiver then asks the RTS's
-- sender (who waits for our CTS) for a WAKE message, which completes the CTRL receive and
-- frees the slot. And a process whose slot holds a DATA receive cannot see control messages
-- until that data arrives, so two processes granting each other while each waits for the
-- other's CTS would deadlock: a process with a long send not yet handed to BIP grants only
-- senders of a lower node number, and starts no new RTS while it holds a grant. A cycle of
-- grants would need every member to outrank the next, so none forms.
--
-- Costs charged with p:advance_ns (BIP's own costs are the library's):
--   * copies at the platform's host copy rate (host.costs.copy_mb_per_s, 50 MB/s on BIP's
--     testbed, borrowed from VMMC's): header and payload into the send staging buffer; an
--     eager payload from the receive staging buffer to the user's buffer (unexpected ones
--     twice: into the unexpected queue's storage, later to the user); a send to oneself
--     once. Rendezvous data is not copied (BIP moves it between the users' buffers).
--   * call_ns per MPI call (isend, irecv and the blocking forms) and match_ns per message
--     the progress engine handles (header decode, queue search): lanaikit's estimates,
--     0.5 us (about 100 instructions on the 200 MHz Pentium Pro) and 0.1 us.
-- Writing a user's string into simulated memory (and reading it back) is untimed: it
-- stands for the user's buffer already being there.
local mpi = {}

mpi.ANY_SOURCE = -1
mpi.ANY_TAG = -1
mpi.UNDEFINED = -1       -- split's color for "not in any new communicator"
mpi.TAG_UB = 1 << 16     -- tags are 0..TAG_UB
mpi.CTRL_TAG = 6
mpi.DATA_TAG = 7
mpi.HEADER = 16          -- bytes of the MPI header in front of a short message's payload
mpi.costs = { call_ns = 500, match_ns = 100 }

-- Message kinds in the header's top four bits.
local EAGER, RTS, CTS, WAKE_ME, WAKE = 1, 2, 3, 4, 5
-- Collectives run in the communicator's second context; these are their tags there.
local T_BARRIER, T_BCAST, T_REDUCE, T_SPLIT = 1, 2, 3, 4
local MAX_CONTEXT = (1 << 12) - 1 -- the header's context field

local function fail(level, fmt, ...) error("mpi: " .. fmt:format(...), level + 1) end

local function pad4(n) return (n + 3) & ~3 end

-- header: kind:4 | context:12 | source rank:16, tag, length, rendezvous id (little-endian).
local function header(kind, context, src, tag, len, id)
  return string.pack("<I4I4I4I4", (kind << 28) | (context << 16) | src, tag, len, id or 0)
end

local function unpack_header(s)
  local w0, tag, len, id = string.unpack("<I4I4I4I4", s)
  return { kind = w0 >> 28, context = (w0 >> 16) & 0xFFF, src = w0 & 0xFFFF, tag = tag, len = len, id = id }
end

-- ---- the progress engine: one per BIP endpoint (process) ---------------------------------

local Engine = {}
Engine.__index = Engine

local function new_engine(e, o)
  local short_max = o.short_max or 1024
  local eng = setmetatable({
    e = e, me = e:mynode(), n = e:numnodes(), short_max = short_max,
    eager_max = math.min(o.eager_max or (short_max - mpi.HEADER), short_max - mpi.HEADER),
    copy_mb_per_s = o.copy_mb_per_s, call_ns = o.call_ns or mpi.costs.call_ns,
    match_ns = o.match_ns or mpi.costs.match_ns,
    sstage = e:alloc(short_max), rstage = e:alloc(short_max),
    posted = {},        -- receives waiting for a message, in posting order
    unexpected = {},    -- messages (eager data or RTS) waiting for a receive, in arrival order
    urgent = {},        -- BIP sends outside MPI's order: CTS, WAKE_ME, WAKE, rendezvous data
    normal = {},        -- eager messages and RTS, in the order the user sent them
    sbusy = nil,        -- the entry whose BIP send is pending
    rslot = nil,        -- nil, "ctrl" or "data": what the BIP receive slot holds
    granted = nil,      -- the grant whose data the DATA receive waits for
    grants = {},        -- matched RTS waiting for the receive slot
    wake_asked = false, -- a WAKE_ME went out for the CTRL receive now posted
    longs_out = 0,      -- long sends whose data is not yet handed to BIP
    rdv = {},           -- long sends by id, waiting for their CTS
    next_id = 1,
    next_context = 1,   -- the lowest context id this process has not used
    pool = {},          -- free rendezvous buffers by capacity (reused: BIP's pin cache hits)
    stats = { eager_sent = 0, rts_sent = 0, cts_sent = 0, wakes = 0, unexpected = 0, self = 0 },
  }, Engine)
  return eng
end

function Engine:copy_ns(bytes)
  if not self.copy_mb_per_s or self.copy_mb_per_s <= 0 then return 0 end
  return bytes / self.copy_mb_per_s * 1000
end

function Engine:charge_copy(p, bytes)
  local t = self:copy_ns(bytes)
  if t > 0 then p:advance_ns(t) end
end

function Engine:buffer(cap)
  cap = math.max(4096, 1 << math.ceil(math.log(cap, 2) - 1e-9))
  local list = self.pool[cap]
  if list and #list > 0 then return table.remove(list), cap end
  return self.e:alloc(cap), cap
end

function Engine:release(va, cap)
  local list = self.pool[cap] or {}
  self.pool[cap] = list
  list[#list + 1] = va
end

local function matches(r, context, src, tag)
  return r.context == context and (r.src == mpi.ANY_SOURCE or r.src == src) and (r.tag == mpi.ANY_TAG or r.tag == tag)
end

-- Completes receive request `req` with an eager message's payload (`copies` copies charged).
function Engine:deliver(p, req, msg, data, copies)
  self:charge_copy(p, #data * copies)
  req.done, req.data = true, data
  req.status = { source = msg.src, tag = msg.tag, len = #data }
end

-- An incoming message (eager or RTS, or a local one) meets the posted receives.
function Engine:arrive(p, msg)
  for i, r in ipairs(self.posted) do
    if matches(r, msg.context, msg.src, msg.tag) then
      table.remove(self.posted, i)
      if msg.kind == RTS then
        self.grants[#self.grants + 1] = { req = r, msg = msg }
      else
        self:deliver(p, r, msg, msg.data, 1)
      end
      return
    end
  end
  if msg.kind == EAGER and not msg.local_copy then self:charge_copy(p, #msg.data) end
  self.stats.unexpected = self.stats.unexpected + 1
  self.unexpected[#self.unexpected + 1] = msg
end

function Engine:handle_ctrl(p, m)
  if not m.ok then fail(3, "node %d: a control message failed: %s", self.me, tostring(m.error)) end
  p:advance_ns(self.match_ns)
  local bytes = self.e:read(self.rstage, m.received)
  if #bytes < mpi.HEADER then
    fail(3, "node %d: a %d-byte message on BIP tag %d from node %d (not this layer's?)", self.me, #bytes, mpi.CTRL_TAG,
         m.src)
  end
  local h = unpack_header(bytes)
  h.node = m.src
  if h.kind == EAGER then
    h.data = bytes:sub(mpi.HEADER + 1, mpi.HEADER + h.len)
    self:arrive(p, h)
  elseif h.kind == RTS then
    self:arrive(p, h)
  elseif h.kind == CTS then
    local s = self.rdv[h.id]
    if not s then fail(3, "node %d: a CTS from node %d for unknown rendezvous %d", self.me, m.src, h.id) end
    self.rdv[h.id] = nil
    self.urgent[#self.urgent + 1] = { kind = "data", dest = m.src, send = s }
  elseif h.kind == WAKE_ME then
    self.urgent[#self.urgent + 1] = { dest = m.src, bytes = header(WAKE, 0, 0, 0, 0) }
  elseif h.kind ~= WAKE then
    fail(3, "node %d: a message of unknown kind %d from node %d", self.me, h.kind, m.src)
  end
end

function Engine:handle_data(p, m)
  local g = self.granted
  self.granted = nil
  if not m.ok or m.len ~= pad4(g.msg.len) then
    fail(3, "node %d: rendezvous data from node %d: %s", self.me, m.src,
         m.ok and ("%d bytes, expected %d"):format(m.len, pad4(g.msg.len)) or tostring(m.error))
  end
  p:advance_ns(self.match_ns)
  g.req.done, g.req.data = true, self.e:read(g.va, g.msg.len)
  g.req.status = { source = g.msg.src, tag = g.msg.tag, len = g.msg.len }
  self:release(g.va, g.cap)
end

-- Posts the DATA receive of a grant the deadlock rule allows (see the top), or asks for a
-- WAKE when the CTRL receive holds the slot.
function Engine:try_grant(p)
  if #self.grants == 0 or self.rslot == "data" then return false end
  local gi
  for i, g in ipairs(self.grants) do
    if self.longs_out == 0 or g.msg.node < self.me then
      gi = i
      break
    end
  end
  if not gi then return false end
  local g = self.grants[gi]
  if self.rslot == "ctrl" then
    if not self.wake_asked then
      self.wake_asked = true
      self.stats.wakes = self.stats.wakes + 1
      self.urgent[#self.urgent + 1] = { dest = g.msg.node, bytes = header(WAKE_ME, 0, 0, 0, 0) }
      return true
    end
    return false
  end
  table.remove(self.grants, gi)
  g.va, g.cap = self:buffer(pad4(g.msg.len))
  self.e:irecv(p, mpi.DATA_TAG, g.va, pad4(g.msg.len))
  self.rslot, self.granted = "data", g
  self.stats.cts_sent = self.stats.cts_sent + 1
  self.urgent[#self.urgent + 1] = { dest = g.msg.node, bytes = header(CTS, 0, 0, 0, 0, g.msg.id) }
  return true
end

function Engine:start_send(p)
  local q = self.urgent
  if #q == 0 then
    -- While a grant holds the slot no new RTS starts (the deadlock rule); order is kept.
    if self.rslot == "data" then return false end
    q = self.normal
  end
  local s = table.remove(q, 1)
  if not s then return false end
  local e = self.e
  if s.kind == "data" then
    self.longs_out = self.longs_out - 1
    e:isend(p, s.dest, mpi.DATA_TAG, s.send.va, pad4(s.send.len))
  else
    local bytes = s.bytes
    if #bytes % 4 ~= 0 then bytes = bytes .. string.rep("\0", 4 - #bytes % 4) end
    e:write(self.sstage, bytes)
    self:charge_copy(p, #bytes)
    e:isend(p, s.dest, mpi.CTRL_TAG, self.sstage, #bytes)
  end
  self.sbusy = s
  return true
end

function Engine:send_finished(p, r)
  local s = self.sbusy
  self.sbusy = nil
  if not r.ok then fail(3, "node %d: a BIP send to node %d failed: %s", self.me, s.dest, tostring(r.error)) end
  if s.kind == "data" then
    s.send.req.done = true
    self:release(s.send.va, s.send.cap)
  elseif s.req then
    s.req.done = true
  end
end

-- Everything that can happen now without waiting.
function Engine:poll(p)
  local e = self.e
  repeat
    local moved = false
    if self.sbusy and e:send_done() then
      self:send_finished(p, e:wait_send(p))
      moved = true
    end
    if self.rslot and e:recv_done() then
      local kind = self.rslot
      local m = e:wait_recv(p)
      self.rslot = nil
      if kind == "ctrl" then self:handle_ctrl(p, m) else self:handle_data(p, m) end
      moved = true
    end
    if self:try_grant(p) then moved = true end
    if not self.sbusy and self:start_send(p) then moved = true end
  until not moved
end

-- Runs the protocol until cond() holds.
function Engine:progress(p, cond)
  local e = self.e
  local function ready()
    return (self.sbusy ~= nil and e:send_done()) or (self.rslot ~= nil and e:recv_done())
  end
  while true do
    self:poll(p)
    if cond() then return end
    if not self.rslot then
      e:irecv(p, mpi.CTRL_TAG, self.rstage, self.short_max)
      self.rslot, self.wake_asked = "ctrl", false
    end
    if not ready() then p:wait_memory(ready) end
  end
end

-- ---- requests -----------------------------------------------------------------------------

function Engine:isend(p, dest_node, context, src_rank, tag, data)
  p:advance_ns(self.call_ns)
  local req = { kind = "send", done = false, eng = self }
  if dest_node == self.me then
    -- To oneself: matched here, one copy (BIP's loopback is not needed).
    self.stats.self = self.stats.self + 1
    self:charge_copy(p, #data)
    self:arrive(p, { kind = EAGER, context = context, src = src_rank, tag = tag, len = #data, data = data, node = self.me,
                     local_copy = true })
    req.done = true
  elseif #data <= self.eager_max then
    self.stats.eager_sent = self.stats.eager_sent + 1
    self.normal[#self.normal + 1] = { dest = dest_node, req = req, bytes = header(EAGER, context, src_rank, tag, #data) .. data }
  else
    local id = self.next_id
    self.next_id = id + 1
    local va, cap = self:buffer(pad4(#data))
    self.e:write(va, data)
    self.rdv[id] = { req = req, va = va, cap = cap, len = #data }
    self.longs_out = self.longs_out + 1
    self.stats.rts_sent = self.stats.rts_sent + 1
    self.normal[#self.normal + 1] = { dest = dest_node, bytes = header(RTS, context, src_rank, tag, #data, id) }
  end
  self:poll(p)
  return req
end

function Engine:irecv(p, context, src, tag)
  p:advance_ns(self.call_ns)
  local req = { kind = "recv", done = false, eng = self, context = context, src = src, tag = tag }
  for i, msg in ipairs(self.unexpected) do
    if matches(req, msg.context, msg.src, msg.tag) then
      table.remove(self.unexpected, i)
      if msg.kind == RTS then
        self.grants[#self.grants + 1] = { req = req, msg = msg }
      else
        self:deliver(p, req, msg, msg.data, 1)
      end
      self:poll(p)
      return req
    end
  end
  self.posted[#self.posted + 1] = req
  self:poll(p)
  return req
end

-- ---- communicators ------------------------------------------------------------------------

local Comm = {}
Comm.__index = Comm

local function new_comm(eng, context, nodes)
  local c = setmetatable({ eng = eng, context = context, nodes = nodes, size = #nodes + 1, rank_of = {} }, Comm)
  for r = 0, #nodes do c.rank_of[nodes[r]] = r end
  c.rank = c.rank_of[eng.me]
  return c
end

local function check_proc(c, p, fn)
  if type(p) ~= "userdata" or type(p.node) ~= "function" then
    fail(3, "%s: argument 1: expected the calling process, got %s", fn, type(p))
  end
  local node = p:node():index()
  if node ~= c.eng.me then
    fail(3, "%s: process '%s' runs on node %d, this communicator handle is rank %d's on node %d", fn, p:name(), node,
         c.rank, c.eng.me)
  end
end

local function check_rank(c, v, what, fn, any)
  if any and v == mpi.ANY_SOURCE then return end
  if math.type(v) ~= "integer" or v < 0 or v >= c.size then
    fail(3, "%s: %s %s is not a rank of this communicator (0..%d%s)", fn, what, tostring(v), c.size - 1,
         any and ", or mpi.ANY_SOURCE" or "")
  end
end

local function check_tag(v, fn, any)
  if any and v == mpi.ANY_TAG then return end
  if math.type(v) ~= "integer" or v < 0 or v > mpi.TAG_UB then
    fail(3, "%s: tag %s is out of range (0..%d%s)", fn, tostring(v), mpi.TAG_UB, any and ", or mpi.ANY_TAG" or "")
  end
end

local function check_data(v, fn)
  if type(v) ~= "string" then fail(3, "%s: data: expected a string, got %s", fn, type(v)) end
end

-- Point-to-point in the communicator's first context (2 * id); collectives use 2 * id + 1.
function Comm:isend(p, dest, tag, data)
  check_proc(self, p, "comm:isend")
  check_rank(self, dest, "dest", "comm:isend")
  check_tag(tag, "comm:isend")
  check_data(data, "comm:isend")
  return self.eng:isend(p, self.nodes[dest], 2 * self.context, self.rank, tag, data)
end

function Comm:irecv(p, source, tag)
  check_proc(self, p, "comm:irecv")
  check_rank(self, source, "source", "comm:irecv", true)
  check_tag(tag, "comm:irecv", true)
  return self.eng:irecv(p, 2 * self.context, source, tag)
end

-- wait(p, req) -> data, status for a receive; true for a send.
function Comm:wait(p, req)
  check_proc(self, p, "comm:wait")
  if type(req) ~= "table" or req.eng ~= self.eng then fail(2, "comm:wait: argument 2: expected a request of this process") end
  self.eng:progress(p, function() return req.done end)
  if req.kind == "send" then return true end
  return req.data, req.status
end

function Comm:waitall(p, reqs)
  check_proc(self, p, "comm:waitall")
  self.eng:progress(p, function()
    for _, r in ipairs(reqs) do if not r.done then return false end end
    return true
  end)
end

function Comm:test(req) return req.done end

function Comm:send(p, dest, tag, data)
  check_proc(self, p, "comm:send")
  check_rank(self, dest, "dest", "comm:send")
  check_tag(tag, "comm:send")
  check_data(data, "comm:send")
  local req = self.eng:isend(p, self.nodes[dest], 2 * self.context, self.rank, tag, data)
  self.eng:progress(p, function() return req.done end)
end

function Comm:recv(p, source, tag)
  check_proc(self, p, "comm:recv")
  check_rank(self, source, "source", "comm:recv", true)
  check_tag(tag, "comm:recv", true)
  local req = self.eng:irecv(p, 2 * self.context, source, tag)
  self.eng:progress(p, function() return req.done end)
  return req.data, req.status
end

-- Collective-context helpers (no argument checks: the callers are ours).
function Comm:csend(p, dest, tag, data) return self.eng:isend(p, self.nodes[dest], 2 * self.context + 1, self.rank, tag, data) end
function Comm:crecv(p, source, tag)
  local req = self.eng:irecv(p, 2 * self.context + 1, source, tag)
  self.eng:progress(p, function() return req.done end)
  return req.data
end
function Comm:cwait(p, req) self.eng:progress(p, function() return req.done end) end

-- Dissemination barrier: ceil(log2 n) rounds of zero-byte messages.
function Comm:barrier(p)
  check_proc(self, p, "comm:barrier")
  local n, r, k = self.size, self.rank, 1
  while k < n do
    local s = self:csend(p, (r + k) % n, T_BARRIER, "")
    self:crecv(p, (r - k) % n, T_BARRIER)
    self:cwait(p, s)
    k = k * 2
  end
end

-- Binomial-tree broadcast of a string from root; every rank returns it.
function Comm:bcast(p, data, root)
  check_proc(self, p, "comm:bcast")
  check_rank(self, root, "root", "comm:bcast")
  local n = self.size
  local vr = (self.rank - root) % n
  if vr == 0 then check_data(data, "comm:bcast") end
  local mask = 1
  while mask < n do
    if vr & mask ~= 0 then
      data = self:crecv(p, (vr - mask + root) % n, T_BCAST)
      break
    end
    mask = mask << 1
  end
  mask = mask >> 1
  local reqs = {}
  while mask > 0 do
    if vr + mask < n then reqs[#reqs + 1] = self:csend(p, (vr + mask + root) % n, T_BCAST, data) end
    mask = mask >> 1
  end
  for _, s in ipairs(reqs) do self:cwait(p, s) end
  return data
end

-- Numbers travel with their Lua subtype, so integer sums stay integers.
local function encode(v)
  local list = type(v) == "table" and v or { v }
  local parts = { string.pack("<I4B", #list, type(v) == "table" and 1 or 0) }
  for _, x in ipairs(list) do
    parts[#parts + 1] = math.type(x) == "integer" and string.pack("<Bj", 0, x) or string.pack("<Bn", 1, x)
  end
  return table.concat(parts)
end

local function decode(s)
  local n, is_table, pos = string.unpack("<I4B", s)
  local list = {}
  for i = 1, n do
    local t
    t, pos = string.unpack("<B", s, pos)
    list[i], pos = string.unpack(t == 0 and "<j" or "<n", s, pos)
  end
  return is_table == 1 and list or list[1]
end

local OPS = {
  sum = function(a, b) return a + b end,
  max = function(a, b) return math.max(a, b) end,
  min = function(a, b) return math.min(a, b) end,
}

-- Elementwise, lower rank's operand first, so every rank computes the same bits.
local function combine(op, lo, hi)
  if type(lo) ~= "table" then return op(lo, hi) end
  if #lo ~= #hi then fail(3, "comm:allreduce: the ranks' arrays differ in length (%d and %d)", #lo, #hi) end
  local out = {}
  for i = 1, #lo do out[i] = op(lo[i], hi[i]) end
  return out
end

local function check_value(v, fn)
  if type(v) == "number" then return end
  if type(v) ~= "table" then fail(3, "%s: value: expected a number or an array of numbers, got %s", fn, type(v)) end
  for i, x in ipairs(v) do
    if type(x) ~= "number" then fail(3, "%s: value[%d]: expected a number, got %s", fn, i, type(x)) end
  end
end

-- Recursive doubling over the largest power of two of ranks; the ranks above it first fold
-- their values into a partner below and get the result back at the end.
function Comm:allreduce(p, value, op)
  check_proc(self, p, "comm:allreduce")
  check_value(value, "comm:allreduce")
  local f = OPS[op]
  if not f then fail(2, "comm:allreduce: op '%s' (expected sum, max or min)", tostring(op)) end
  local n, r = self.size, self.rank
  local pof2 = 1
  while pof2 * 2 <= n do pof2 = pof2 * 2 end
  if r >= pof2 then
    self:cwait(p, self:csend(p, r - pof2, T_REDUCE, encode(value)))
    return decode(self:crecv(p, r - pof2, T_REDUCE))
  end
  if r + pof2 < n then value = combine(f, value, decode(self:crecv(p, r + pof2, T_REDUCE))) end
  local mask = 1
  while mask < pof2 do
    local peer = r ~ mask
    local s = self:csend(p, peer, T_REDUCE, encode(value))
    local other = decode(self:crecv(p, peer, T_REDUCE))
    self:cwait(p, s)
    if peer < r then value = combine(f, other, value) else value = combine(f, value, other) end
    mask = mask << 1
  end
  if r + pof2 < n then self:cwait(p, self:csend(p, r + pof2, T_REDUCE, encode(value))) end
  return value
end

-- All ranks' strings, gathered at rank 0 and broadcast (split's exchange).
function Comm:allgather(p, data)
  check_proc(self, p, "comm:allgather")
  check_data(data, "comm:allgather")
  local all
  if self.rank == 0 then
    local parts = { string.pack("<s4", data) }
    for r = 1, self.size - 1 do parts[r + 1] = string.pack("<s4", self:crecv(p, r, T_SPLIT)) end
    all = table.concat(parts)
  else
    self:cwait(p, self:csend(p, 0, T_SPLIT, data))
  end
  all = self:bcast(p, all, 0)
  local out, pos = {}, 1
  for r = 0, self.size - 1 do out[r], pos = string.unpack("<s4", all, pos) end
  return out
end

-- MPI_Comm_split: collective over this communicator. Ranks with the same color form a new
-- communicator, ordered by key then old rank; color mpi.UNDEFINED gets nil. Context ids:
-- above every id any member has used (the members' maximum of their next free id), one per
-- color in color order, so a process never holds two communicators with the same id.
function Comm:split(p, color, key)
  check_proc(self, p, "comm:split")
  if math.type(color) ~= "integer" or color < mpi.UNDEFINED then
    fail(2, "comm:split: color %s (expected an integer >= 0, or mpi.UNDEFINED)", tostring(color))
  end
  key = key or 0
  if math.type(key) ~= "integer" then fail(2, "comm:split: key %s (expected an integer)", tostring(key)) end
  local eng = self.eng
  local all = self:allgather(p, string.pack("<jjj", color, key, eng.next_context))
  local base, colors, seen, members = 0, {}, {}, {}
  for r = 0, self.size - 1 do
    local c, k, nc = string.unpack("<jjj", all[r])
    base = math.max(base, nc)
    if c ~= mpi.UNDEFINED then
      if not seen[c] then
        seen[c] = true
        colors[#colors + 1] = c
      end
      if c == color then members[#members + 1] = { key = k, rank = r } end
    end
  end
  table.sort(colors)
  eng.next_context = base + #colors
  if eng.next_context > MAX_CONTEXT then fail(2, "comm:split: out of context ids (%d)", MAX_CONTEXT) end
  if color == mpi.UNDEFINED then return nil end
  local id
  for i, c in ipairs(colors) do if c == color then id = base + i - 1 end end
  table.sort(members, function(a, b) return a.key < b.key or (a.key == b.key and a.rank < b.rank) end)
  local nodes = {}
  for i, m in ipairs(members) do nodes[i - 1] = self.nodes[m.rank] end
  return new_comm(eng, id, nodes)
end

function Comm:dup(p) return self:split(p, 0, self.rank) end

-- The engine's counters: eager_sent, rts_sent, cts_sent, wakes, unexpected, self.
function Comm:stats() return self.eng.stats end

-- ---- mpi.world ----------------------------------------------------------------------------

-- mpi.world(ctx [, opts]) with a bip_bench context (or a table of endpoints indexed by node,
-- from 0) -> { [rank] = communicator } for every process; mpi.world(endpoint [, opts]) ->
-- that process's communicator. One world per endpoint. opts: eager_max (payload bytes sent
-- eagerly, at most short_max - 16), call_ns, match_ns, copy_mb_per_s (default: the BIP
-- library's costs, else the bip platform's), short_max (default: the MCP's).
function mpi.world(x, opts)
  opts = opts or {}
  for k in pairs(opts) do
    if not ({ eager_max = 1, call_ns = 1, match_ns = 1, copy_mb_per_s = 1, short_max = 1 })[k] then
      fail(2, "mpi.world: unknown option '%s' (expected eager_max, call_ns, match_ns, copy_mb_per_s, short_max)", tostring(k))
    end
  end
  local o = {}
  for k, v in pairs(opts) do o[k] = v end
  local eps, single
  if type(x) == "userdata" then
    eps, single = { [0] = x }, true
  elseif type(x) == "table" and x.eps then
    eps = x.eps
    if x.bip then
      o.short_max = o.short_max or x.bip:limits().short_max
      o.copy_mb_per_s = o.copy_mb_per_s or x.bip:costs().copy_mb_per_s
    end
  elseif type(x) == "table" and x[0] then
    eps = x
  else
    fail(2, "mpi.world: expected a bip_bench context, a table of endpoints from index 0, or an endpoint, got %s", type(x))
  end
  o.copy_mb_per_s = o.copy_mb_per_s or lk.platform("bip").host.costs.copy_mb_per_s
  local first = single and x or eps[0]
  local n = first:numnodes()
  local nodes = {}
  for r = 0, n - 1 do nodes[r] = r end
  if single then return new_comm(new_engine(x, o), 0, nodes) end
  local world = {}
  for r = 0, n - 1 do
    if not eps[r] then fail(2, "mpi.world: no endpoint for node %d", r) end
    world[r] = new_comm(new_engine(eps[r], o), 0, nodes)
  end
  return world
end

return mpi
