-- table4.lua -- the Hamlyn paper's Table 4: the one-way time of a 16-byte fast-mode message,
-- written by the application without the library's upper level ("raw interface") and
-- through the tagged-remote-write protocol, each the mean of round trips / 2 (section 4),
-- and where the time goes, part by part, beside the paper's parts.
--
-- A deterministic ping-pong repeats one alignment of the messages with the cards' main
-- loops, so its mean is that alignment's. --phases N more single messages, started at
-- offsets spread over a main-loop turn, show how much the alignment moves the one-way
-- time and the LANai part (mean, least, most).
--
--   lanaikit run lua-scripts/hamlyn/table4.lua [--iters 1000] [--platform hamlyn] [--phases 8]
local args = require "args"
local output = require "output"
local H = require "hamlyn.hamlyn_bench"
local stats = require "stats"

local o = args.parse(arg, { iters = 1000, platform = "hamlyn", size = 16, phases = 8 },
  "usage: table4.lua [--iters N] [--platform NAME] [--size BYTES] [--phases N]")

local ctx = H.setup { platform = o.platform }
local raw = H.pingpong(ctx, o.size, { mode = "fast", iters = o.iters, verify = true })
local trw = H.pingpong(ctx, o.size, { mode = "trw", iters = o.iters, verify = true })
H.check_clean(ctx)

-- One raw message part by part (c:message_trace), then the same parts as the paper's.
-- `delay_ns`: the sender waits that long first (a different alignment with the main loops).
local function breakdown(mode, delay_ns)
  local tr = ctx.c:message_trace { from = 0, to = 1 }
  local t = mode == "trw" and ctx.trw_rx[1]:ticket(0, o.size) or ctx.apps[1]:ticket(ctx.slot[1], "fast", 0, o.size)
  ctx.c:spawn(0, "trace-send", function(p)
    if delay_ns then p:advance_ns(delay_ns) end
    tr:start(p)
    if mode == "trw" then
      ctx.trw_tx[0]:send(p, t, ctx.send[0], o.size, 0, 9)
    else
      ctx.apps[0]:send(p, t, ctx.send[0], o.size, nil, 0, 9)
    end
    tr:posted(p)
  end)
  ctx.c:spawn(1, "trace-recv", function(p)
    if mode == "trw" then assert(ctx.trw_rx[1]:get_tag(p, 1e9)) else assert(ctx.apps[1]:recv_block(p, 1e9)) end
    tr:seen(p)
  end)
  ctx.c:run {}
  return tr:breakdown()
end

local costs = ctx.h:costs()
local stores = math.ceil((48 + o.size) / 8) -- the request and the data, 8 bytes a store
local rows = {}
for _, m in ipairs { { "raw", raw, "fast" }, { "tagged remote write", trw, "trw" } } do
  local bd = breakdown(m[3])
  -- The sender's posting is its library software, then its stores to the card.
  local io = bd.host_send_us - (m[3] == "trw" and costs.trw_send_ns or costs.send_call_ns) / 1000
  rows[#rows + 1] = {
    case = m[1], total = m[2].mean_us, paper_total = m[3] == "trw" and H.paper.fast_trw_us or H.paper.fast_raw_us,
    dma = bd.dma_send_us + bd.dma_recv_us, lanai = bd.cpu_send_us + bd.cpu_recv_us,
    switch = bd.network_us + bd.wire_us, io_writes = io + bd.pci_send_us,
    host_sw = bd.host_send_us - io + bd.host_recv_us, trace_total = bd.total_us,
    send_insns = bd.send_insns, recv_insns = bd.recv_insns,
  }
end

io.write(("Hamlyn Table 4 on %s: one-way time of a %d-byte fast-mode message (mean of %d round trips / 2)\n\n")
  :format(ctx.platform.name, o.size, o.iters))
io.write(output.table(rows, { "case", "total", "paper_total", "dma", "lanai", "switch", "io_writes", "host_sw",
                              "send_insns", "recv_insns" },
  { total = "lanaikit us", paper_total = "paper us", dma = "DMA us", lanai = "LANai us",
    switch = "wire+switch us", io_writes = "host I/O writes us", host_sw = "host software us",
    send_insns = "LANai insns send", recv_insns = "LANai insns recv" }))
io.write(("\npaper's parts (raw / TRW): DMA %.1f, LANai %.1f, switch %.1f, host I/O writes %.1f (%d stores here), "
  .. "host software %.1f / %.1f\n"):format(H.paper.table4.dma, H.paper.table4.lanai, H.paper.table4.switch,
  H.paper.table4.io_writes, stores, H.paper.table4.host_sw, H.paper.table4.host_sw_trw))
-- The alignment's effect: single messages started 137 ns apart (a main-loop turn is about
-- 1 us of card time at 40 MHz).
for _, m in ipairs { { "raw", "fast" }, { "tagged remote write", "trw" } } do
  local tot, lanai = {}, {}
  for i = 1, o.phases do
    local bd = breakdown(m[2], i * 137)
    tot[#tot + 1], lanai[#lanai + 1] = bd.total_us, bd.cpu_send_us + bd.cpu_recv_us
  end
  if #tot > 0 then
    local st, sl = stats.summary(tot), stats.summary(lanai)
    io.write(("%s, %d single messages at other alignments: one-way %.2f us (%.2f-%.2f), LANai %.2f us (%.2f-%.2f)\n")
      :format(m[1], #tot, st.mean, st.min, st.max, sl.mean, sl.min, sl.max))
  end
end
for _, r in ipairs(rows) do
  io.write(("%s: %.2f us, target <= %.1f us: %s\n"):format(r.case, r.total, r.paper_total,
    r.total <= r.paper_total and "met" or "MISSED"))
end
