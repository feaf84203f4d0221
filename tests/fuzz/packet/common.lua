-- What the packet scenarios share (tests/fuzz/packet_fuzz.cpp runs them with PACKETS and
-- inject(link, bytes) defined): sentinel host memory around a protocol's own, injection of
-- PACKETS from one node to another, and the check that nothing outside the receive buffers
-- changed.
local M = {}

M.SENTINEL = 16384

-- Fresh host pages on `node` filled with a pattern; host_alloc hands out pages in order,
-- so sentinels allocated before and after a protocol's set-up bracket its host memory.
function M.sentinel(node)
  local a = node:host_alloc(M.SENTINEL)
  local words = {}
  for i = 0, M.SENTINEL // 4 - 1 do words[#words + 1] = string.pack(">I4", 0xA5000000 | i) end
  node:host_write(a, table.concat(words))
  return a
end

-- Host memory of `node` from lo to hi now, to compare later.
function M.snapshot(node, lo, hi)
  assert(lo < hi, "sentinels out of order")
  return { node = node, lo = lo, bytes = node:host_read(lo, hi - lo) }
end

-- Fails naming the first byte that changed outside `allowed` ({addr, len} ranges).
function M.compare(snap, allowed, what)
  local now = snap.node:host_read(snap.lo, #snap.bytes)
  if now == snap.bytes then return end
  for i = 1, #now do
    local b0, b1 = snap.bytes:byte(i), now:byte(i)
    if b0 ~= b1 then
      local a = snap.lo + i - 1
      local inside = false
      for _, r in ipairs(allowed) do
        if a >= r[1] and a < r[1] + r[2] then inside = true break end
      end
      if not inside then
        error(("%s: host byte 0x%x changed (0x%02x -> 0x%02x) outside the receive buffers")
              :format(what, a, b0, b1))
      end
    end
  end
end

-- Sends every packet of PACKETS on src's link into the network, the route to dst in front.
-- Returns the wire bytes (to size the run that delivers them).
function M.inject_all(c, src, dst)
  local route = c:route(src, dst)
  local link = c:node_tx(src)
  local bytes = 0
  for _, p in ipairs(PACKETS) do
    inject(link, route .. p)
    bytes = bytes + #route + #p + 1
  end
  return bytes
end

-- Simulated time that surely delivers `bytes` wire bytes (160 MB/s links, store and
-- forward at worst) and lets the firmware handle each packet.
function M.delivery_ns(bytes)
  return 100e3 + bytes * 20 + #PACKETS * 20e3
end

return M
