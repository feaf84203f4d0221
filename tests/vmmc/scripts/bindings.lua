-- lk.vmmc bindings (lua/vmmc.cpp): argument errors name the function, the argument and
-- the expectation; blocking calls work only from the calling process's own function and
-- their errors are catchable Lua errors at the call; results (refused sends, denied
-- imports) come back as values; notifications reach next_notification and handlers.
-- Run by `lanaikit run` (tests/vmmc/lua.cmake); any failed assert exits 1.

local function fails(pattern, f, ...)
  local ok, err = pcall(f, ...)
  assert(not ok, "expected an error matching '" .. pattern .. "', got none")
  assert(tostring(err):find(pattern, 1, true), "expected '" .. pattern .. "' in: " .. tostring(err))
  return err
end

local platform = lk.platform("vmmc")
-- Phases: each spawns its processes when the previous phase's processes had ended *by
-- their own clocks* (a process runs ahead of the kernel: its last PIO writes, e.g. the
-- outgoing page table of an import, land at its local time, after c:run has returned).
local t_end = 0
local function spawn(c, node, name, fn)
  c:spawn(node, name, function(p)
    fn(p)
    t_end = math.max(t_end, p:now_ns())
  end, math.max(c:now_ns(), t_end))
end
local fw = lk.firmware { sources = { "firmware/vmmc/vmmc.fw" }, opt = "O2" }
local c = lk.cluster { platform = platform, nodes = 2 }

-- ---- lk.vmmc arguments ----------------------------------------------------------------------
fails("lk.vmmc: argument 1: expected a Cluster, got number 3", lk.vmmc, 3, fw)
fails("lk.vmmc: argument 2: expected a Firmware, got no value", lk.vmmc, c)
fails("lk.vmmc: argument 3: expected a platform name or table, or a table of costs, got boolean", lk.vmmc, c, fw, true)
fails("lk.vmmc: argument 3: ", lk.vmmc, c, fw, "no-such-platform")
fails("lk.vmmc: argument 3 field 'sendpost': unknown field", lk.vmmc, c, fw, { sendpost = 1 })
fails("lk.vmmc: argument 3 field 'signal': expected", lk.vmmc, c, fw, { signal = "slow" })
-- A costs table (ns), a platform table, a platform name: all accepted (on other clusters).
assert(lk.vmmc(lk.cluster { platform = platform, nodes = 2 }, fw, { send_post = 0, signal = 5000 }))
assert(lk.vmmc(lk.cluster { platform = platform, nodes = 2 }, fw, "vmmc"))
-- Without costs, the platform the cluster was built from gives them.
do
  local slow = lk.platform("vmmc")
  slow.host.costs.send_post = 20000
  local k = lk.vmmc(lk.cluster { platform = slow, nodes = 2 }, fw):costs()
  assert(k.send_post_ns == 20000 and k.signal_ns == 10000 and #k.defaulted == 0,
         "costs from the cluster's platform: send_post " .. k.send_post_ns)
  local d = lk.vmmc(lk.cluster { platform = platform, nodes = 2 }, fw, { send_post = 7 }):costs()
  assert(d.send_post_ns == 7, "a costs table overrides")
end

local V = lk.vmmc(c, fw, platform)
assert(tostring(V) == "Vmmc(2 nodes)", tostring(V))
fails("lk.vmmc: argument 1: the cluster already has a Vmmc", lk.vmmc, c, fw)
fails("Vmmc:open: expected a Vmmc as self (call it with ':'), got number 1", V.open, 1)
fails("Vmmc:open: argument 1: expected a Node or a node index in 0..1, got number 2", V.open, V, 2)
fails("Vmmc:counters: argument 1: expected a Node or a node index in 0..1, got string", V.counters, V, "x")
local other = lk.cluster { platform = platform, nodes = 2 }
fails("Vmmc:open: argument 1: the node belongs to another cluster", V.open, V, other:node(0))

local a = V:open(0)
local b = V:open(c:node(1))
assert(tostring(a) == "VmmcEndpoint(node 0 slot 0)", tostring(a))
assert(a:id().node == 0 and b:id().node == 1 and b:node() == 1)
local k = V:counters(0)
for _, name in ipairs { "sent", "received", "bad_crc", "bad_magic", "bad_len", "bad_dest", "tlb_misses", "tlb_fills" } do
  assert(math.type(k[name]) == "integer", "Vmmc:counters lacks " .. name)
end
for _, name in ipairs { "bad_proxy", "bad_len", "bad_vaddr", "notify_overflow" } do
  assert(math.type(a:counters()[name]) == "integer", "VmmcEndpoint:counters lacks " .. name)
end

-- ---- untimed endpoint methods -------------------------------------------------------------
fails("VmmcEndpoint:alloc: argument 1: expected a positive integer", a.alloc, a, 0)
fails("VmmcEndpoint:alloc: expected a VmmcEndpoint as self", a.alloc, V, 4096)
local sbuf = a:alloc(3 * 4096)
local sbuf2 = a:alloc(4096)
local rbuf = b:alloc(3 * 4096)
assert(sbuf % 4096 == 0 and rbuf % 4096 == 0)
fails("VmmcEndpoint:write: argument 2: expected a string, got number 5", a.write, a, sbuf, 5)
fails("VmmcEndpoint:write: argument 1: expected a virtual address", a.write, a, -1, "x")
fails("VmmcEndpoint:read: argument 2: expected a length", a.read, a, sbuf, -1)
fails("VmmcEndpoint:read: ", a.read, a, 0x1000, 4) -- unmapped: the library's message
a:write(sbuf, "hello, vmmc!")
assert(a:read(sbuf, 12) == "hello, vmmc!")
assert(a:read(sbuf + 12, 4) == "\0\0\0\0")
fails("VmmcEndpoint:test: argument 1: expected", a.test, a, "one")

-- ---- blocking calls: only from the calling process's own function ---------------------------
fails("VmmcEndpoint:export: argument 1: expected a Process, got nil", b.export, b, nil, rbuf, 4096)

local export_id, export_n
local errors = {}
spawn(c, 1, "exporter", function(p)
  -- Argument errors inside a process are Lua errors at the call, catchable.
  local ok, err = pcall(b.export, b, p, rbuf, 4096, { allow = 3 })
  errors.allow = err
  ok, err = pcall(b.export, b, p, rbuf, 4096, { allow = { { node = 0 } } })
  errors.allow_entry = err
  ok, err = pcall(b.export, b, p, rbuf, 4096, { alow = {} })
  errors.typo = err
  -- The library's own errors (misuse: a buffer not page-aligned) are catchable too.
  ok, err = pcall(b.export, b, p, rbuf + 4, 4096)
  errors.misaligned = err
  assert(not ok)
  -- The endpoint is on node 1: a process on node 0 may not use it (checked below).
  export_id = b:export(p, rbuf, 2 * 4096, { allow = { a:id() }, notify = true })
  export_n = b:export(p, rbuf + 2 * 4096, 4096, { allow = { a } }) -- a VmmcEndpoint works too
end)
spawn(c, 0, "wrong-node", function(p)
  local ok, err = pcall(b.export, b, p, rbuf, 4096)
  errors.wrong_node = err
  assert(not ok)
end)
c:run {}
assert(errors.allow:find("VmmcEndpoint:export: argument 4 field 'allow': expected a list", 1, true), errors.allow)
assert(errors.allow_entry:find("argument 4 field 'allow[1].slot'", 1, true), errors.allow_entry)
assert(errors.typo:find("argument 4 field 'alow': unknown field", 1, true), errors.typo)
assert(errors.misaligned:find("VmmcEndpoint:export: ", 1, true), errors.misaligned)
assert(errors.wrong_node:find("VmmcEndpoint:export: argument 1: the process runs on node 0, the endpoint is on node 1", 1, true),
  errors.wrong_node)
assert(math.type(export_id) == "integer" and export_n ~= export_id)

-- Imports: allowed, denied (a value, not an error), unknown.
local proxy, len, denied, denied_err, unknown, unknown_err
local c_ep = V:open(0) -- node 0 slot 1: not in the allow list
spawn(c, 0, "importer", function(p)
  proxy, len = a:import(p, 1, export_id)
  denied, denied_err = c_ep:import(p, 1, export_id)
  unknown, unknown_err = a:import(p, 1, 999)
end)
c:run {}
assert(math.type(proxy) == "integer" and len == 2 * 4096, tostring(len))
assert(denied == nil and type(denied_err) == "string", tostring(denied_err))
assert(unknown == nil and type(unknown_err) == "string")

-- A blocking call from the main script, or from a wait condition, is refused.
fails("VmmcEndpoint:send: argument 1: expected a Process, got nil", a.send, a, nil, sbuf, proxy, 4)

-- Sends: short, long, refused (outside the import), async + wait/test, notify.
local results, notes, handled = {}, {}, {}
b:on_notification(function(n)
  handled[#handled + 1] = n
  -- A handler must not block: this is refused (caught here, so the run goes on).
  local ok, err = pcall(b.wait, b, nil, 1)
  assert(not ok and err:find("expected a Process", 1, true), err)
end)
spawn(c, 0, "sender", function(p)
  fails("VmmcEndpoint:send: argument 5 field 'asynk': unknown field", a.send, a, p, sbuf, proxy, 4, { asynk = true })
  fails("VmmcEndpoint:send: argument 4: expected", a.send, a, p, sbuf, proxy, -4)
  fails("VmmcEndpoint:wait_word: argument 2: the word's address must be a multiple of 4", a.wait_word, a, p, sbuf + 2, 1)
  results.short = a:send(p, sbuf, proxy, 12)
  a:write(sbuf, string.rep("L", 8192))
  results.long = a:send(p, sbuf, proxy + 100, 5000, { async = true })
  results.long_done = a:test(results.long.seq)
  results.waited = a:wait(p, results.long.seq)
  results.tested = a:test(results.long.seq)
  results.outside = a:send(p, sbuf, proxy + 2 * 4096 - 4, 8)
  a:write(sbuf2, string.pack(">I4", 0x600df00d))
  results.notify = a:send(p, sbuf2, proxy + 6000, 4, { notify = true })
  fails("VmmcEndpoint:wait: ", a.wait, a, p, 1000000) -- never posted: the library's error
end)
spawn(c, 1, "receiver", function(p)
  b:wait_word(p, rbuf + 6000, 0x600df00d)
  results.flag_at = p:now_ns()
  -- Already true: at once, the first condition that holds (in list order).
  results.at_once = b:wait_words(p, { { rbuf + 7000, 0xdead }, { rbuf + 6000, ">=", 0x600df00d },
                                      { rbuf + 6000, 0x600df00d } })
  results.at_once_ns = p:now_ns()
end)
-- The same flag through wait_words, beside a word that never comes: woken by the same DMA.
spawn(c, 1, "receiver2", function(p)
  fails("VmmcEndpoint:wait_words: argument 2: an empty list", b.wait_words, b, p, {})
  fails("VmmcEndpoint:wait_words: argument 2: expected a list of", b.wait_words, b, p, 5)
  fails("VmmcEndpoint:wait_words: argument 2: entry 1: expected {address, value} or {address, test, value}",
        b.wait_words, b, p, { 5 })
  fails("VmmcEndpoint:wait_words: argument 2: entry 1: the word's address must be a multiple of 4",
        b.wait_words, b, p, { { rbuf + 2, 1 } })
  fails("VmmcEndpoint:wait_words: argument 2: entry 2: unknown word test '>' (use ==, ~=, >= or <)",
        b.wait_words, b, p, { { rbuf, 1 }, { rbuf, ">", 1 } })
  fails("VmmcEndpoint:wait_words: argument 2: entry 1: the value must be an integer 0..0xFFFFFFFF",
        b.wait_words, b, p, { { rbuf, -1 } })
  results.which = b:wait_words(p, { { rbuf + 7000, "~=", 0 }, { rbuf + 6000, 0x600df00d } })
  results.which_ns = p:now_ns()
end)
c:run {}
assert(results.short.ok and results.short.short and results.short.seq >= 1, tostring(results.short.error))
assert(results.long.ok and not results.long.short, tostring(results.long.error))
assert(results.waited.ok and results.tested)
assert(not results.outside.ok and type(results.outside.error) == "string" and #results.outside.error > 0)
assert(results.notify.ok)
assert(b:read(rbuf, 12) == "hello, vmmc!")
local got_long = b:read(rbuf + 100, 5000)
assert(got_long == string.rep("L", 5000), "long message: " .. #got_long:gsub("[^L]", "") .. " bytes are not L; first bytes " .. got_long:sub(1, 8):gsub("%c", "."))
assert(b:read(rbuf + 96, 4) == "\0\0\0\0" and b:read(rbuf + 5100, 4) == "\0\0\0\0")
assert(results.flag_at)
assert(results.which == 2 and results.which_ns == results.flag_at, tostring(results.which_ns) .. " vs " .. tostring(results.flag_at))
assert(results.at_once == 2 and results.at_once_ns == results.flag_at)
c:run { for_ns = 200000 } -- the notification's signal
assert(#handled == 1, "handled " .. #handled .. " notifications")
assert(handled[1].export == export_id and handled[1].offset == 6000 and handled[1].len == 4 and handled[1].src == 0,
  ("notification export %d offset %d len %d src %d"):format(handled[1].export, handled[1].offset, handled[1].len,
    handled[1].src))

-- next_notification on an endpoint without a handler.
local d = V:open(1)
local dbuf = d:alloc(4096)
local did, dproxy, note
spawn(c, 1, "d-export", function(p) did = d:export(p, dbuf, 4096, { notify = true }) end)
c:run {}
spawn(c, 0, "d-import", function(p) dproxy = a:import(p, 1, did) end)
c:run {}
spawn(c, 1, "d-wait", function(p) note = d:next_notification(p) end)
spawn(c, 0, "d-send", function(p)
  a:write(sbuf2, string.rep("n", 64))
  assert(a:send(p, sbuf2, dproxy + 64, 64, { notify = true }).ok)
end)
c:run {}
assert(note and note.export == did and note.offset == 64 and note.len == 64 and note.src == 0)
assert(d:read(dbuf + 64, 64) == string.rep("n", 64))

-- A handler's error stops the run (exit status 1) with the handler's message: checked by
-- handler_error.lua (its own ctest entry), since that failure sticks.
local sum = V:counters(0)
assert(sum.bad_crc == 0 and V:counters(1).bad_dest == 0)
print("lk.vmmc bindings: ok")
