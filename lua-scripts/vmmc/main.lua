-- main.lua -- THE MAIN JOB: VMMC (the paper's control program, library and daemons) on two
-- simulated nodes of the paper's testbed, against the paper's numbers.
--
--   lanaikit run lua-scripts/vmmc/main.lua [--quick] [--csv-dir DIR] [--sizes 4,64,...]
--
-- For each message size: one-way latency by ping-pong (synchronous send, alternating
-- traffic; round trip / 2), one-way bandwidth (asynchronous sends back-to-back, MB =
-- 10^6 bytes) and, for the larger sizes, the bidirectional total (both send at once, each
-- waits for the peer's message). Then the LANai control program's instructions per packet
-- (c:profile on the handlers vmmc_send_short, vmmc_send_chunk, vmmc_recv), the send
-- overhead, and a comparison with the paper: 9.8 us, 108.4 MB/s, 91 MB/s.
-- --quick: fewer sizes and iterations (for tests). --csv-dir: also write main.csv there.
-- Everything is simulated time, so the numbers do not depend on the machine.
local args = require "args"
local output = require "output"
local B = require "vmmc.vmmc_bench"

local o = args.parse(arg, { quick = false, csv_dir = "", sizes = {} },
  "usage: main.lua [--quick] [--csv-dir DIR] [--sizes 4,64,...]")
local wall0 = os.clock()
local sizes = #o.sizes > 0 and o.sizes
  or (o.quick and { 4, 64, 128, 256, 4096, 65536 } or args.pow2(4, 1 << 20))
local lat_max = 65536        -- ping-pong up to 64 KB (Figure 2's range and beyond)
local bidir_min = 1024       -- bidirectional from 1 KB (Figure 3)
local ctx = B.setup { nodes = 2, max_bytes = args.max(sizes) }
local plat = ctx.platform

-- Latency (profiled per size: instructions per packet).
local lat_sizes = {}
for _, s in ipairs(sizes) do if s <= lat_max then lat_sizes[#lat_sizes + 1] = s end end
local lat = B.pingpong(ctx, lat_sizes, { iters = o.quick and 5 or 10, warmup = 1 })
local by_size = {}
for _, r in ipairs(lat) do by_size[r.size] = { size = r.size, short = r.short, one_way_us = r.one_way_us,
  pp_mb_s = r.size / r.one_way_us, packets = r.packets, insns_send_short = r.insns_send_short,
  insns_send_chunk = r.insns_send_chunk, insns_recv = r.insns_recv } end

-- Bandwidth.
local bw_opts = { bytes = o.quick and (256 << 10) or (1 << 20), min_count = o.quick and 4 or 8, max_count = o.quick and 128 or 512 }
for _, r in ipairs(B.stream(ctx, sizes, bw_opts)) do
  by_size[r.size] = by_size[r.size] or { size = r.size }
  by_size[r.size].stream_mb_s = r.mb_s
  by_size[r.size].pct_limit = r.pct_limit
end
local bi_sizes = {}
for _, s in ipairs(sizes) do if s >= bidir_min then bi_sizes[#bi_sizes + 1] = s end end
for _, r in ipairs(B.bidirectional(ctx, bi_sizes, bw_opts)) do by_size[r.size].bidir_mb_s = r.mb_s end

-- Send overhead at a few sizes (Figure 4).
local ov = B.overhead(ctx, { 4, 128, 4096 }, { iters = o.quick and 3 or 5 })
local counters = B.check_clean(ctx)

local rows = {}
for _, s in ipairs(sizes) do rows[#rows + 1] = by_size[s] end
local columns = { "size", "short", "one_way_us", "pp_mb_s", "stream_mb_s", "pct_limit", "bidir_mb_s" }
io.write(("VMMC on the simulated Myrinet: %s platform (%s), 2 nodes, one switch\n")
  :format(plat.name, plat.description))
io.write(("LCP firmware/vmmc/vmmc.fw: %d bytes; set-up (export and import through the daemons, a warm-up word per direction) took %.0f us of simulated time\n\n")
  :format(ctx.fw:size(), ctx.setup_us))
io.write(output.table(rows, columns, { size = "bytes", short = "short send", one_way_us = "one-way latency us",
  pp_mb_s = "ping-pong MB/s", stream_mb_s = "one-way MB/s", pct_limit = "% of 110 MB/s",
  bidir_mb_s = "bidirectional MB/s" }))

-- Instructions per packet: the short send at the smallest size, a chunk and a receive at
-- 4 KB (one page: one chunk, one packet), the receive of a short packet.
local function first(pred)
  for _, r in ipairs(lat) do if pred(r) then return r end end
end
local small = first(function(r) return r.short end)
local page = first(function(r) return r.size == 4096 end) or first(function(r) return not r.short end)
io.write("\nLANai control program, instructions per packet (c:profile, 33 MHz LANai 4.1):\n")
local function fmt(v) return v and ("%.0f"):format(v) or "-" end
if small then
  io.write(("  vmmc_send_short  %6s  (%d-byte message: pick up, translate, build, copy, send)\n")
    :format(fmt(small.insns_send_short), small.size))
  io.write(("  vmmc_recv        %6s  (%d-byte short packet: check, host DMA)\n"):format(fmt(small.insns_recv), small.size))
end
if page then
  io.write(("  vmmc_send_chunk  %6s  (%d-byte message, %s packet(s) each: per chunk, translate + host DMA)\n")
    :format(fmt(page.insns_send_chunk), page.size, fmt(page.packets)))
  io.write(("  vmmc_recv        %6s  (%d-byte message: per packet)\n"):format(fmt(page.insns_recv), page.size))
end

-- One word's one-way time, part by part, beside the paper's estimate of the hardware floor
-- (section 5.2: posting >= 0.5 us; LANai pick-up, packet build, network DMA and receive
-- about 2.5 us; receive-side bus arbitration, host DMA into memory about 2 us; about 5 us).
local bd = B.breakdown(ctx, 4)
io.write("\nOne word, node 0 -> node 1, where the time goes (c:message_trace; parts add up):\n\n")
io.write(bd.text)
local post = bd.host_send_us + bd.pci_send_us
local lanai = bd.cpu_send_us + bd.dma_send_us + bd.wire_us + bd.network_us + bd.cpu_recv_us
local recv = bd.dma_recv_us + bd.host_recv_us
io.write("\n| paper's floor estimate (5.2) | lanaikit | paper |\n|---|---:|---:|\n")
io.write(("| posting a send | %.2f us | >= 0.5 us |\n"):format(post))
io.write(("| LANai pick-up, build, network, receive | %.2f us (firmware %.2f: %d + %d instructions) | about 2.5 us |\n")
  :format(lanai, bd.cpu_send_us + bd.cpu_recv_us, bd.send_insns, bd.recv_insns))
io.write(("| receive-side arbitration and host DMA | %.2f us | about 2 us |\n"):format(recv))
io.write(("| total | %.2f us | about 5 us (measured: 9.8) |\n"):format(bd.total_us))

-- Comparison with the paper.
local lat4 = by_size[4] and by_size[4].one_way_us
local peak, peak_size, bpeak, bpeak_size = 0, nil, 0, nil
for _, r in ipairs(rows) do
  if (r.stream_mb_s or 0) > peak then peak, peak_size = r.stream_mb_s, r.size end
  if (r.bidir_mb_s or 0) > bpeak then bpeak, bpeak_size = r.bidir_mb_s, r.size end
end
local sync_short = 0
for _, r in ipairs(ov) do if r.short then sync_short = math.max(sync_short, r.sync_us) end end
io.write("\nComparison with the paper (section 5.3):\n\n")
io.write("| | lanaikit | paper |\n|---|---:|---:|\n")
io.write(("| one-word one-way latency | %s | %.1f us |\n"):format(lat4 and ("%.2f us"):format(lat4) or "-", B.paper.latency_us))
io.write(("| peak one-way bandwidth | %.1f MB/s at %s B (%.1f%% of 110) | %.1f MB/s (98%% of 110) |\n")
  :format(peak, tostring(peak_size), 100 * peak / B.paper.dma_limit_mb_s, B.paper.bandwidth_mb_s))
io.write(("| peak bidirectional total | %s | %d MB/s |\n")
  :format(bpeak_size and ("%.1f MB/s at %d B"):format(bpeak, bpeak_size) or "-", B.paper.bidir_mb_s))
io.write(("| synchronous send overhead, up to 128 B | %.2f us | about %d us |\n"):format(sync_short, B.paper.sync_overhead_us))
for _, r in ipairs(ov) do
  if r.size == 4096 then
    io.write(("| send overhead at 4 KB, sync / async | %.2f / %.2f us | (Figure 4) |\n"):format(r.sync_us, r.async_us))
  end
end
io.write(("\nLCP counters: %d packets sent, %d received, 0 bad; TLB misses %d (first touches only: the buffers then stay in the TLB, as in the paper's measurements)\n")
  :format(counters.sent, counters.received, counters.tlb_misses))
if o.csv_dir ~= "" then
  local path = output.csv(o.csv_dir, "main", rows, { "size", "short", "one_way_us", "pp_mb_s", "stream_mb_s", "pct_limit",
    "bidir_mb_s", "packets", "insns_send_short", "insns_send_chunk", "insns_recv" })
  io.write("wrote ", path, "\n")
end
io.write(("wall time %.1f s (CPU)\n"):format(os.clock() - wall0))
