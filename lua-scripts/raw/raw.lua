-- raw.lua -- the host side of raw messages (firmware/raw/raw.fw; protocol in docs/raw.md).
--
--   local raw = require "raw.raw"    -- lua-scripts/raw/raw.lua
--   local fw = lk.firmware{ sources = { "firmware/raw/raw.fw" } }
--   local c = lk.cluster{ platform = plat, nodes = 4 }
--   local net = raw.setup(c, fw, { platform = plat })   -- loads, sets up and starts every node
--   c:spawn(0, "tx", function(p) local ep = raw.endpoint(p); ep:send(1, "hello") end)
--   c:spawn(1, "rx", function(p) local ep = raw.endpoint(p); local src, data = ep:recv() end)
--   c:run{ for_ns = 1e6 }
--
-- Everything in SRAM is found through the image with the kit's image view: paths from the
-- pinned global `raw` (fw:addr, node:poke, node:peek), its constants (fw:constant) and the
-- routes in the kit's convention (c:write_routes). Firmware data is big-endian; host memory
-- is read with string.unpack(">I4", ...) accordingly.
--
-- One process per node may send and one may receive (they may be the same process): two
-- senders on one node would interleave descriptor writes at different local times.
local raw = {}

local function be32(s, at)
  return (string.unpack(">I4", s, at or 1))
end

-- What the firmware exports, resolved once per image through the kit's image view
-- (fw:addr, fw:ref, fw:constant: docs/protocols.md); no offset or constant is repeated here.
local function firmware_map(fw)
  local ok, err = pcall(fw.ref, fw, "raw")
  if not ok then error("raw: the firmware has no pinned global 'raw' (is it firmware/raw/raw.fw?)", 3) end
  local m = { ctl = {}, go = fw:constant("RAW_GO"), max_bytes = fw:constant("MAX_PAYLOAD") }
  for _, name in ipairs { "send_produced", "recv_consumed", "sendq" } do m.ctl[name] = fw:addr("raw." .. name) end
  local routes, sendq = fw:ref("raw.routes"), fw:ref("raw.sendq")
  m.max_nodes = routes.count
  m.send_slots = sendq.count
  m.desc_size = sendq.size // sendq.count
  local desc = fw:layout("RawSendDesc")
  m.desc_dest, m.desc_len, m.desc_addr = desc.fields.dest.offset, desc.fields.len.offset, desc.fields.host_addr.offset
  -- The completion entry is read with one string.unpack: check the format against it.
  local cq = fw:layout("RawCompletion")
  m.cq_size = cq.size
  assert(cq.size == 16 and cq.fields.index.offset == 0 and cq.fields.seq.offset == 4 and cq.fields.len.offset == 8
         and cq.fields.src.offset == 12 and cq.fields.slot.offset == 14,
         "raw: RawCompletion changed; update raw.lua's unpack format")
  return m
end

-- raw.MAX_BYTES: the firmware's one-packet limit (its MAX_PAYLOAD); set by setup.
raw.MAX_BYTES = 4096

-- Host costs charged with p:advance_ns, from the platform where it has them.
-- * send_post: the paper's whole cost of posting a send (VMMC: "Posting a send >= 0.5 us
--   if only writes are used"). Our PIO writes already charge pio_write_ns each (5 per send:
--   3 descriptor words, the producer index, the doorbell), so only what is left of
--   send_post after them is charged as software time (VMMC: 500 - 5 x 121 < 0, so none).
-- * copy: copying the payload into the send buffer and out of the receive slot. No
--   platform gives a host memcpy rate, so it is charged only if the platform has
--   host.costs.copy_mb_per_s (assumption, stated: otherwise copies are free).
local function host_costs(platform)
  if not platform then return { post_ns = 0, copy_ns_per_byte = 0, recv_ns = 0, defaulted = {} } end
  -- The kit's cost table (lk.host_costs): the platform's host.costs, 0 where it has none.
  local c = lk.host_costs(platform, { send_post = 0, recv_poll = 0 })
  local costs = platform.host and platform.host.costs or {}
  local pio_write_ns = platform.pci and platform.pci.pio_write_ns or 0
  return {
    post_ns = math.max(0, c.send_post - 5 * pio_write_ns),
    copy_ns_per_byte = costs.copy_mb_per_s and 1e3 / costs.copy_mb_per_s or 0,
    recv_ns = c.recv_poll, -- no platform has it yet
    defaulted = c.defaulted,
  }
end

local current -- the last set-up network, for raw.endpoint(p)

-- raw.setup(cluster, fw, opts) -> net
-- opts: platform (table, for host costs), slots (receive-ring slots per node, default 32),
--       slot_bytes (default 4096), start (default true: load the firmware and start the
--       chips; false if the caller already loaded and will start them).
function raw.setup(cluster, fw, opts)
  opts = opts or {}
  local m = firmware_map(fw)
  local n = cluster:size()
  -- opts.peers(i) -> a list of node indices: node i's route table then holds routes to those
  -- nodes only, entry k to the k+1-th, and ep:send(k, ...) sends there (a cluster larger
  -- than the route table; the header's `src`, and so ep:recv's source, stay node indices).
  local peers = opts.peers
  if not peers and n > m.max_nodes then
    error(("raw.setup: %d nodes, the firmware's route table holds %d (pass opts.peers)"):format(n, m.max_nodes), 2)
  end
  local slots = opts.slots or 32
  local slot_bytes = opts.slot_bytes or 4096
  if slot_bytes % 4 ~= 0 then error("raw.setup: slot_bytes must be a multiple of 4", 2) end
  local net = { cluster = cluster, fw = fw, map = m, slots = slots, slot_bytes = slot_bytes,
                costs = host_costs(opts.platform), nodes = {} }
  raw.MAX_BYTES = m.max_bytes
  if opts.start ~= false then cluster:load(fw) end
  for i = 0, n - 1 do
    local node = cluster:node(i)
    -- Host memory: send buffers (one page per send slot), the receive ring, the
    -- completion ring and the send-completion word, each in fresh pages.
    local st = {
      index = i,
      node = node,
      send_bufs = node:host_alloc(m.send_slots * 4096),
      recv_ring = node:host_alloc(slots * slot_bytes),
      recv_cq = node:host_alloc(slots * m.cq_size),
      send_done = node:host_alloc(4),
      produced = 0, done = 0, -- send side: descriptors posted / known taken
      consumed = 0,           -- receive side: completions consumed
    }
    local w = function(name, v) node:poke(fw, "raw." .. name, v) end
    w("node", i)
    w("send_done_addr", st.send_done)
    w("recv_ring", st.recv_ring)
    w("recv_slot_bytes", slot_bytes)
    w("recv_slots", slots)
    w("recv_cq", st.recv_cq)
    w("send_produced", 0)
    w("recv_consumed", 0)
    w("go", m.go)
    net.nodes[i] = st
  end
  if peers then
    local hops = fw:ref("raw.routes[0].hops").count
    for i = 0, n - 1 do
      local node, list = cluster:node(i), peers(i)
      if #list > m.max_nodes then
        error(("raw.setup: node %d has %d peers, the route table holds %d"):format(i, #list, m.max_nodes), 2)
      end
      for k = 0, m.max_nodes - 1 do
        local dst = list[k + 1]
        local route = dst and cluster:route(i, dst) or nil
        if route and #route > hops then
          error(("raw.setup: the route from node %d to %d has %d hops, the firmware holds %d"):format(i, dst, #route, hops), 2)
        end
        local at = "raw.routes[" .. k .. "]"
        node:poke(fw, at .. ".len", route and #route or 0xFFFFFFFF)
        if route then -- right-aligned, as write_routes does
          for b = 1, #route do node:poke(fw, at .. ".hops[" .. (hops - #route + b - 1) .. "]", route:byte(b)) end
        end
      end
    end
  else
    cluster:write_routes(fw, "raw.routes") -- the kit's convention: right-aligned, kNoRoute
  end
  if opts.start ~= false then cluster:start() end
  setmetatable(net, { __index = raw.Net })
  current = net
  return net
end

raw.Net = {}

-- Firmware counters of node i, read from SRAM (untimed): sent, delivered, bad_send,
-- bad_crc, bad_magic, bad_len, ring_full, send_consumed.
function raw.Net:counters(i)
  local node = self.nodes[i].node
  local t = {}
  for _, k in ipairs { "sent", "delivered", "bad_send", "bad_crc", "bad_magic", "bad_len",
                       "ring_full", "send_consumed" } do
    t[k] = node:peek(self.fw, "raw." .. k)
  end
  return t
end

local Endpoint = {}
Endpoint.__index = Endpoint

local function node_index(p)
  local node = p:node()
  return node:index()
end

-- net:endpoint(p) / raw.endpoint(p [, net]): the endpoint of p's node.
function raw.Net:endpoint(p)
  local st = self.nodes[node_index(p)]
  return setmetatable({ p = p, net = self, st = st, m = self.map, costs = self.costs }, Endpoint)
end

function raw.endpoint(p, net)
  net = net or current
  if not net then error("raw.endpoint: call raw.setup first", 2) end
  return net:endpoint(p)
end

-- Low level: post a descriptor for `len` bytes already at host physical address `addr`.
-- Waits (in simulated time) for a free send slot. Returns the descriptor's index.
function Endpoint:post(dest, len, addr)
  local p, st, m = self.p, self.st, self.m
  local k = st.produced
  if k - st.done >= m.send_slots then
    -- The firmware DMAs its consumer index here after fetching each payload.
    p:wait_memory(function()
      st.done = be32(p:read(st.send_done, 4))
      return k - st.done < m.send_slots
    end)
  end
  local d = m.ctl.sendq + (k % m.send_slots) * m.desc_size
  p:pio_write32(d + m.desc_dest, dest)
  p:pio_write32(d + m.desc_len, len)
  p:pio_write32(d + m.desc_addr, addr)
  st.produced = k + 1
  p:pio_write32(m.ctl.send_produced, st.produced)
  p:pio_write_reg("HOST_SIG", st.produced)
  if self.costs.post_ns > 0 then p:advance_ns(self.costs.post_ns) end
  return k
end

-- ep:send(dest, data) sends a string; ep:send(dest, n) sends n bytes of whatever the send
-- buffer holds (no Lua-side copy: for bandwidth runs that do not check data).
function Endpoint:send(dest, data)
  local st, m = self.st, self.m
  local len = type(data) == "number" and data or #data
  if len > raw.MAX_BYTES then
    error(("raw: a message is at most %d bytes (one packet), got %d"):format(raw.MAX_BYTES, len), 2)
  end
  local buf = st.send_bufs + (st.produced % m.send_slots) * 4096
  -- The slot's buffer is free once the slot is: wait for it before writing the payload.
  if st.produced - st.done >= m.send_slots then
    local p = self.p
    p:wait_memory(function()
      st.done = be32(p:read(st.send_done, 4))
      return st.produced - st.done < m.send_slots
    end)
  end
  if type(data) == "string" and len > 0 then self.p:write(buf, data) end
  if self.costs.copy_ns_per_byte > 0 then self.p:advance_ns(len * self.costs.copy_ns_per_byte) end
  return self:post(dest, len, buf)
end

-- Waits until every message this node posted has been fetched by the firmware.
function Endpoint:flush()
  local p, st = self.p, self.st
  if st.done < st.produced then
    p:wait_memory(function()
      st.done = be32(p:read(st.send_done, 4))
      return st.done >= st.produced
    end)
  end
end

-- ep:recv() -> src, data, seq (seq: the sender's per-destination sequence number).
-- ep:recv(true) skips reading the payload (returns its length instead of the data).
function Endpoint:recv(length_only)
  local p, st, net = self.p, self.st, self.net
  local k = st.consumed
  local slot = k % net.slots
  local e = st.recv_cq + slot * 16
  local want = (k + 1) & 0xFFFFFFFF
  if be32(p:read(e, 4)) ~= want then
    p:wait_memory(function() return be32(p:read(e, 4)) == want end)
  end
  local _, seq, len, src, fslot = string.unpack(">I4I4I4I2I2", p:read(e, 16))
  assert(fslot == slot, "raw: completion names slot " .. fslot .. ", expected " .. slot)
  local data = len
  if not length_only and len > 0 then data = p:read(st.recv_ring + slot * net.slot_bytes, len)
  elseif not length_only then data = "" end
  if self.costs.copy_ns_per_byte > 0 and not length_only then p:advance_ns(len * self.costs.copy_ns_per_byte) end
  if self.costs.recv_ns > 0 then p:advance_ns(self.costs.recv_ns) end
  st.consumed = k + 1
  -- Return the slot (one posted PIO write; the firmware re-arms when it sees room).
  p:pio_write32(self.m.ctl.recv_consumed, st.consumed)
  return src, data, seq
end

-- A transport adapter for the harness (lua-scripts/lib/traffic.lua, sendcost.lua,
-- profile.lua) over this network. The endpoints are raw's own: ep:send(dest, data)
-- and ep:recv(length_only) take the adapter's calls as they are (the extra options and
-- receive hints are of no use to raw, which receives every message from any source).
function raw.Net:transport()
  local net = self
  return {
    name = "raw",
    size = net.cluster:size(),
    max_bytes = raw.MAX_BYTES,
    cluster = net.cluster,
    firmware = net.fw,
    endpoint = function(p) return net:endpoint(p) end,
    packets = function(i)
      local k = net:counters(i)
      return k.sent, k.delivered
    end,
    -- 20 us with no process running: the firmware finishes what it was doing.
    quiesce = function() net.cluster:run { for_ns = 20000 } end,
  }
end

return raw
