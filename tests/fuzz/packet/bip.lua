-- Packet fuzzing of the BIP control program (firmware/bip/bip.fw, docs/bip.md): the
-- injected packets (from node 0's link) arrive at node 1 and are counted; node 1's host
-- takes whatever they put in its rings; then node 2 sends a message on tag 2 into a
-- buffer node 1 posted, and it arrives intact. The sentinel pages around the library's
-- host memory and a buffer never posted are unchanged.
local common = dofile((arg[0]:match("^(.*/)") or "./") .. "common.lua")

local MAX_TAGS, HEADER_BYTES = 8, 32 -- firmware/bip/bip_defs.fw
local SENDER, TAG = 2, 2

local B, e2, e1, sbuf, rbuf, bait
local s = common.cluster { firmware = "firmware/bip/bip.fw", platform = "bip", nodes = 3, setup = function(s)
  B = lk.bip(s.c, s.fw)
  e2, e1 = B:endpoint(SENDER), B:endpoint(common.TO)
  sbuf, rbuf, bait = e2:alloc(8192), e1:alloc(8192), e1:alloc(8192)
end }
local pattern = string.rep("\165\90\15\240", 2048)
e1:write(bait, pattern)
local snap = common.snapshot(s, { { s.lo, common.SENTINEL }, { s.hi - common.SENTINEL, common.SENTINEL } })

common.inject_all(s)
-- Every packet is counted once by the checks before `received` (bad_crc, bad_len,
-- bad_magic, stale) or as received; a received one may then also count bad_len (a short
-- message longer than SHORT_MAX, an unknown kind, a long packet outside its message), so
-- bad_len bounds the difference instead of adding to the sum.
local k = e1:counters()
local early = k.received + k.bad_crc + k.bad_magic + k.stale
if early > #PACKETS or early + k.bad_len < #PACKETS then
  error(("bip: %d packets injected; received %d, bad_crc %d, bad_magic %d, stale %d, bad_len %d")
        :format(#PACKETS, k.received, k.bad_crc, k.bad_magic, k.stale, k.bad_len))
end

-- Node 1's host takes what the fuzzed packets left in its rings (they would otherwise hold
-- the slots the legitimate message needs).
common.phase(s, { { common.TO, "drain", function(p)
  for tag = 0, MAX_TAGS - 1 do
    while e1:probe(tag) do e1:recv(p, tag, rbuf, 8192) end
  end
end } })

-- Packets are numbered per source and nothing authenticates the source: one that claims
-- to come from the sender, with a BIP magic, may legitimately make its next message look
-- stale. Then only the checks of memory remain.
local spoofed = false
for _, p in ipairs(PACKETS) do
  if #p >= HEADER_BYTES and p:sub(1, 4) == "BIP0" and string.unpack(">I4", p, 5) == SENDER then spoofed = true end
end
if not spoofed then
  e2:write(sbuf, common.LEGIT)
  local m, r
  common.phase(s, {
    { common.TO, "rx", function(p)
      repeat m = e1:recv(p, TAG, rbuf, 8192) until not m.ok or m.src == SENDER
    end },
    { SENDER, "tx", function(p) r = e2:send(p, common.TO, TAG, sbuf, #common.LEGIT) end },
  })
  assert(r and r.ok, "bip: the legitimate send failed: " .. tostring(r and r.error))
  assert(m and m.ok and m.src == SENDER and m.len == #common.LEGIT,
         "bip: the legitimate message was not received: " .. tostring(m and (m.error or m.len)))
  assert(e1:read(rbuf, #common.LEGIT) == common.LEGIT, "bip: the legitimate message did not arrive intact")
end
assert(e1:read(bait, #pattern) == pattern, "bip: a buffer never posted changed")
common.compare(snap, {}, "bip")
