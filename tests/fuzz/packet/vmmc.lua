-- Packet fuzzing of the VMMC LCP (firmware/vmmc/vmmc.fw, docs/vmmc.md): node 1 exports a
-- receive buffer to node 0; the injected packets arrive at node 1, each received or
-- counted bad (bad_crc, bad_magic, bad_len, bad_dest); then node 0 sends into the buffer
-- and the message arrives intact. The sentinel pages around the library's host memory and
-- a buffer node 1 never exported are unchanged (the exported one is fair game: any node
-- may write an exported page, as the fuzzed packets may).
local common = dofile((arg[0]:match("^(.*/)") or "./") .. "common.lua")

local V, a, b, sbuf, rbuf, bait
local s = common.cluster { firmware = "firmware/vmmc/vmmc.fw", platform = "vmmc", setup = function(s)
  V = lk.vmmc(s.c, s.fw)
  a, b = V:open(common.FROM), V:open(common.TO)
  sbuf, rbuf, bait = a:alloc(8192), b:alloc(8192), b:alloc(8192)
end }
local pattern = string.rep("\165\90\15\240", 2048)
b:write(bait, pattern)

local id, proxy
common.phase(s, { { common.TO, "export", function(p) id = b:export(p, rbuf, 8192, { allow = { a:id() } }) end } })
common.phase(s, { { common.FROM, "import", function(p) proxy = assert(a:import(p, common.TO, id)) end } })
-- The LCP clears its tables before it arms the receive (a few hundred us): until then
-- the packets would wait on the link and arrive after the counters were read.
common.wait_until(s, function() return s.node:peek(s.fw, "vmmc.ready") == 1 end, "the LCP is ready")
local snap = common.snapshot(s, { { s.lo, common.SENTINEL }, { s.hi - common.SENTINEL, common.SENTINEL } })

local k0 = V:counters(common.TO)
common.inject_all(s)
common.accounted("vmmc", { "received", "bad_crc", "bad_magic", "bad_len", "bad_dest" },
                 V:counters(common.TO), k0)

a:write(sbuf, common.LEGIT)
local r
common.phase(s, { { common.FROM, "send", function(p) r = a:send(p, sbuf, proxy + 64, #common.LEGIT) end } })
s.c:run { for_ns = 1e6 } -- the send returns when its data has left; let it land
assert(r and r.ok, "vmmc: the legitimate send failed: " .. tostring(r and r.error))
assert(b:read(rbuf + 64, #common.LEGIT) == common.LEGIT, "vmmc: the legitimate message did not arrive intact")
assert(b:read(bait, #pattern) == pattern, "vmmc: a buffer node 1 never exported changed")
common.compare(snap, {}, "vmmc")
