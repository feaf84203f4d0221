-- sweep_clock_pci.lua -- which component to buy faster: VMMC's one-word one-way latency
-- and peak one-way bandwidth (as lua-scripts/vmmc/headline.lua measures them) on the
-- paper's testbed (lua-scripts/platforms/vmmc.lua) with a faster LANai clock and/or a
-- faster PCI bus, one point of `lanaikit sweep` (docs/sweep.md):
--
--   lanaikit sweep -j 2 --grid clock_mhz=33,66,100,132 --grid pci_mb_s=64,128,192,256 \
--     -o sweep-clock-pci lua-scripts/vmmc/sweep_clock_pci.lua
--   lanaikit run lua-scripts/vmmc/sweep_clock_pci_plot.lua sweep-clock-pci
--
-- (16 points, about 6 s; the table and what it says are in docs/sweep.md), or one point by
-- hand: lanaikit run lua-scripts/vmmc/sweep_clock_pci.lua --clock_mhz 66
--
-- --clock_mhz sets nic.clock_hz. --pci_mb_s is the host<->SRAM DMA bandwidth at 64 KB
-- blocks (the paper's 128 MB/s); every point of the platform's DMA curve is scaled by the
-- same factor, so 4 KB blocks keep their 110/128 share. The PIO costs (pci.pio_*_ns) and the
-- Myrinet link (160 MB/s) stay as the paper gives them: past about 160 MB/s of PCI the link
-- is the limit.
local args = require "args"
local sweep = require "sweep"
local B = require "vmmc.vmmc_bench"

local o = args.parse(arg, { clock_mhz = 33, pci_mb_s = 128 },
  "usage: sweep_clock_pci.lua [--clock_mhz MHZ] [--pci_mb_s MB_PER_S]")
if o.clock_mhz <= 0 or o.pci_mb_s <= 0 then error("sweep_clock_pci.lua: the clock and the bandwidth must be > 0", 0) end

local p = lk.platform("vmmc")
p.nic.clock_hz = math.floor(o.clock_mhz * 1e6 + 0.5)
local scale = o.pci_mb_s / p.pci.dma[#p.pci.dma].mb_per_s
for _, d in ipairs(p.pci.dma) do d.mb_per_s = d.mb_per_s * scale end

local ctx = B.setup { nodes = 2, max_bytes = 65536, platform = p }
local lat = B.pingpong(ctx, { 4 }, { iters = 10, warmup = 1 })[1]
local peak = { mb_s = 0 }
for _, r in ipairs(B.stream(ctx, { 4096, 16384, 65536 }, { bytes = 1 << 20, min_count = 8, max_count = 512 })) do
  if r.mb_s > peak.mb_s then peak = r end
end
B.check_clean(ctx)
sweep.result { latency_us = lat.one_way_us, bandwidth_mb_s = peak.mb_s, bandwidth_bytes = peak.size }
