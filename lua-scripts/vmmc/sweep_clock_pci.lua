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

local o = args.parse(arg, { clock_mhz = 33, pci_mb_s = 128 },
  "usage: sweep_clock_pci.lua [--clock_mhz MHZ] [--pci_mb_s MB_PER_S]")
if o.clock_mhz <= 0 or o.pci_mb_s <= 0 then error("sweep_clock_pci.lua: the clock and the bandwidth must be > 0", 0) end

local p = lk.platform("vmmc")
p.nic.clock_hz = math.floor(o.clock_mhz * 1e6 + 0.5)
local scale = o.pci_mb_s / p.pci.dma[#p.pci.dma].mb_per_s
for _, d in ipairs(p.pci.dma) do d.mb_per_s = d.mb_per_s * scale end

-- The main job's measurement itself (headline.lua), on the changed platform.
local row = require("vmmc.headline")(p)[1]
sweep.result { latency_us = row.latency_us, bandwidth_mb_s = row.bandwidth_mb_s,
               bandwidth_bytes = row.bandwidth_bytes }
