-- The instruments from Lua (lua/instruments.cpp): profiler, timeline and capture,
-- utilisation, debugger, on the echo firmware. Exits non-zero on any failed check.

local CTL, SEND_DATA, MAX_DATA = 0x10000, 0x11000 + 0x40, 65536
local fw = lk.firmware{ sources = { "firmware/echo/echo.c" }, opt = "O2", debug = true }

local function cluster()
  local c = lk.cluster{ platform = lk.platform("vmmc"), nodes = 2 }
  local bufs = {}
  for i = 0, 1 do
    local node = c:node(i)
    node:load(fw)
    bufs[i] = node:host_alloc(MAX_DATA + 12)
    node:sram_write32(CTL + 0x00, i)
    node:sram_write32(CTL + 0x0C, bufs[i])
    for j = 0, 1 do
      local route = c:route(i, j)
      node:sram_write32(CTL + 0x40 + 4 * j, #route)
      node:sram_write(CTL + 0x80 + 8 * j, route)
    end
  end
  return c, bufs
end

-- node 0 sends `count` messages of `size` bytes to node 1, which echoes each back.
local function traffic(c, bufs, count, size)
  local function completion(p, i) return string.unpack(">I4>I4", p:read(bufs[i] + MAX_DATA, 8)) end
  local function send(p, payload, dest)
    p:pio_write(SEND_DATA, payload)
    p:pio_write32(CTL + 0x04, #payload)
    p:pio_write32(CTL + 0x08, dest)
    p:pio_write_reg("HOST_SIG", 1)
  end
  c:spawn(0, "pinger", function(p)
    for seq = 1, count do
      local t0 = p:now_ns()
      send(p, string.rep("y", size), 1)
      p:wait_memory(function() return completion(p, 0) == seq end)
    end
    c:stop()
  end)
  c:spawn(1, "echoer", function(p)
    local seq = 0
    while true do
      seq = seq + 1
      p:wait_memory(function() return completion(p, 1) == seq end)
      local _, len = completion(p, 1)
      send(p, p:read(bufs[1], len), 0)
    end
  end)
end

local function check(cond, what) if not cond then error("check failed: " .. what, 2) end end

-- Profiler, timeline, capture, utilisation -----------------------------------------------
local tmp = os.tmpname()
local c, bufs = cluster()
local prof = c:profile{ firmware = fw, handlers = { "send_message", "deliver" } }
local tl = c:timeline{ trace = tmp .. ".json", pcap = tmp .. ".pcapng", profile = prof }
c:start()
traffic(c, bufs, 5, 100)
c:run{ until_ns = 1e7 }

local s0 = prof:summary(0)
check(#s0 == 2 and s0[1].name == "send_message" and s0[1].calls == 5, "5 sends on node 0")
check(s0[1].insns.min == s0[1].insns.max and s0[1].insns.min > 20, "every send takes the same instructions")
check(prof:summary(1)[2].calls == 5, "5 deliveries on node 1")
check(s0[2].duration_ns.median > 0 and s0[2].cycles.p99 >= s0[2].cycles.median, "distributions")
local inv = prof:invocations(1)
check(#inv >= 10 and inv[1].end_ns > inv[1].start_ns and inv[1].insns > 0, "invocations")
-- prof:range: a function's words, by symbols or addresses, hold what its invocations ran
-- (send_message calls nothing), and a range by addresses is the same range by symbols
local whole = prof:range(0, 0, 1 << 20)
check(whole.insns > 0 and whole.cycles >= whole.insns, "the whole image's range")
local send_at = fw:symbol("send_message")
local r_sym = prof:range(0, "send_message", "send_message")
check(r_sym.insns == 0 and r_sym.cycles == 0, "an empty range")
check(prof:range(0, send_at, send_at + 4).insns == 5, "send_message's first instruction ran once a send")
local ok_r, err_r = pcall(function() return prof:range(0, "no_such_symbol", 4) end)
check(not ok_r and tostring(err_r):find("no symbol 'no_such_symbol'", 1, true), "an unknown symbol: " .. tostring(err_r))
ok_r, err_r = pcall(function() return prof:range(0, 8, 4) end)
check(not ok_r and tostring(err_r):find("ends before it starts", 1, true), "a reversed range: " .. tostring(err_r))
local report = prof:report(0)
check(report:find("| send_message | 5 |", 1, true) and report:find("echo.c:", 1, true), "text report:\n" .. report)
prof:write_callgrind(1, tmp .. ".callgrind")
local f = assert(io.open(tmp .. ".callgrind")); local cg = f:read("a"); f:close()
check(cg:find("events: Ir Cycles", 1, true) and cg:find("deliver", 1, true), "callgrind file")

local st = tl:finish()
check(st.packets == 20 and st.kept > 20 and st.dropped == 0, "timeline stats " .. st.packets .. " " .. st.kept)
f = assert(io.open(tmp .. ".json")); local trace = f:read("a"); f:close()
check(trace:find('"traceEvents"', 1, true) and trace:find('"send_message"', 1, true), "trace JSON")

local u = c:utilisation(prof)
local seen = {}
for _, row in ipairs(u) do
  check(row.fraction >= 0 and row.fraction <= 1, row.component .. " fraction " .. row.fraction)
  seen[row.component] = row.fraction
end
check(seen["node0 cpu in handlers"] and seen["node0 cpu in handlers"] > 0 and seen["node1 pci bus"] > 0, "utilisation rows")
prof:detach()
for _, ext in ipairs{ ".json", ".pcapng", ".callgrind" } do os.remove(tmp .. ext) end
os.remove(tmp)

-- A profile collected after a newer one was attached to the same chips leaves the newer alone
do
  local c4, bufs4 = cluster()
  local old = c4:profile{ firmware = fw, handlers = { "send_message" } }
  local new = c4:profile{ firmware = fw, handlers = { "send_message" } }
  old = nil
  collectgarbage()
  collectgarbage()
  c4:start()
  traffic(c4, bufs4, 3, 16)
  c4:run{ until_ns = 1e7 }
  check(new:summary(0)[1].calls == 3, "the newer profile still counts: " .. new:summary(0)[1].calls)
end

-- Message trace: one message's one-way time, split into components that add up --------
local c3, bufs3 = cluster()
local tr = c3:message_trace{ from = 0, to = 1 }
local ok, err = pcall(function() return tr:breakdown() end)
check(not ok and err:find("MessageTrace:breakdown: message trace: mark start", 1, true), "breakdown before marks: " .. tostring(err))
ok, err = pcall(function() return c3:message_trace{ from = 0, to = 0 } end)
check(not ok and err:find("field 'to': expected a node index below 2, other than from", 1, true), "from == to: " .. tostring(err))
c3:start()
c3:spawn(0, "sender", function(p)
  tr:start(p)
  p:pio_write(SEND_DATA, string.rep("z", 16))
  p:pio_write32(CTL + 0x04, 16)
  p:pio_write32(CTL + 0x08, 1)
  p:pio_write_reg("HOST_SIG", 1)
  tr:posted(p)
end)
c3:spawn(1, "receiver", function(p)
  p:wait_memory(function() return string.unpack(">I4", p:read(bufs3[1] + MAX_DATA, 4)) == 1 end)
  tr:seen(p)
  c3:stop()
end)
c3:run{ until_ns = 1e6 }
local b = tr:breakdown()
local sum = 0
for _, k in ipairs{ "host_send", "pci_send", "cpu_send", "dma_send", "wire", "network", "cpu_recv", "dma_recv", "host_recv" } do
  check(b[k .. "_us"] >= 0, k .. " is not negative: " .. b[k .. "_us"])
  sum = sum + b[k .. "_us"]
end
check(math.abs(sum - b.total_us) < 1e-6, "components add up: " .. sum .. " vs " .. b.total_us)
check(b.host_send_us > 0.4 and b.cpu_send_us > 1 and b.wire_us > 0 and b.dma_recv_us > 0, "components:\n" .. b.text)
check(b.dma_send_us == 0, "echo sends from SRAM: no sender DMA")
check(b.send_insns > 20 and b.recv_insns > 20 and b.packet_bytes >= 16, "instruction counts and packet size")
check(b.text:find("cpu_recv", 1, true), "text")
tr:detach()
ok, err = pcall(function() return tr:breakdown() end)
check(not ok and err:find("detached", 1, true), "detached trace: " .. tostring(err))

-- Debugger ---------------------------------------------------------------------------------
local c2, bufs2 = cluster()
local d = c2:node(1):debugger{ firmware = fw }
local at = d:break_at("deliver")
check(at == fw:symbol("deliver"), "break_at resolves a symbol")
check(d:break_at("echo.c:62") > 0, "break_at resolves FILE:LINE")
d:clear("echo.c:62")
local hits, seen_bt = 0, false
d:on_break(function(info)
  hits = hits + 1
  check(info.where:find("deliver", 1, true) == 1, "stopped in deliver: " .. info.where)
  check(info.reason:find("breakpoint", 1, true), "reason " .. info.reason)
  check(info.regs.rca ~= nil and info.regs.sp ~= nil and info.regs.sw ~= nil, "registers")
  seen_bt = #info.backtrace >= 2 and info.backtrace[2].where:find("main", 1, true) == 1
  return hits ~= 2 -- the second break stops the run
end)
c2:start()
traffic(c2, bufs2, 4, 16)
c2:run{ until_ns = 1e7 }
check(hits == 2 and d:paused(), "the run stopped at the second break (hits " .. hits .. ")")
check(seen_bt, "backtrace names main as the caller")
check(d:info().where:find("deliver", 1, true) == 1, "info while paused")
d:continue()
c2:run{ until_ns = 1e7 }
check(hits == 4 and not d:paused(), "all four deliveries broke, the run finished (hits " .. hits .. ")")
d:detach()

-- A debugger and a profiler do not replace each other silently (one instrument per chip)
do
  local c5 = cluster()
  local p5 = c5:profile{ firmware = fw, handlers = { "deliver" }, nodes = { 1 } }
  local ok5, err5 = pcall(function() return c5:node(1):debugger{ firmware = fw } end)
  check(not ok5 and tostring(err5):find("already has a profiler attached", 1, true),
        "a debugger on a profiled chip is refused: " .. tostring(err5))
  p5:detach()
  local d5 = c5:node(1):debugger{ firmware = fw }
  local ok6, err6 = pcall(function() return c5:profile{ firmware = fw, handlers = { "deliver" }, nodes = { 1 } } end)
  check(not ok6 and tostring(err6):find("already has a debugger attached", 1, true),
        "a profiler on a debugged chip is refused: " .. tostring(err6))
  d5:detach()
end
print("instruments: ok")
