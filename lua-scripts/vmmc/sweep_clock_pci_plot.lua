-- sweep_clock_pci_plot.lua -- the plots of a finished sweep_clock_pci.lua sweep
-- (docs/sweep.md): two SVG families of curves from DIR/results.csv, written next to it.
--
--   lanaikit run lua-scripts/vmmc/sweep_clock_pci_plot.lua DIR
--
-- DIR/latency.svg: one-word one-way latency against the LANai clock, one curve per PCI
-- bandwidth. DIR/bandwidth.svg: peak one-way bandwidth against the PCI bandwidth, one curve
-- per LANai clock.
local sweep = require "sweep"

local dir = arg[1] or error("usage: sweep_clock_pci_plot.lua DIR (the sweep's output directory)", 0)
local rows = sweep.read(dir)
lk.plot_svg(dir .. "/latency.svg", {
  title = "VMMC one-word latency vs LANai clock", x_label = "LANai clock (MHz)", y_label = "one-way latency (us)",
  series = sweep.curves(rows, "clock_mhz", "latency_us", "pci_mb_s"),
})
lk.plot_svg(dir .. "/bandwidth.svg", {
  title = "VMMC peak one-way bandwidth vs PCI DMA bandwidth", x_label = "PCI DMA bandwidth at 64 KB blocks (MB/s)",
  y_label = "peak one-way bandwidth (MB/s)",
  series = sweep.curves(rows, "pci_mb_s", "bandwidth_mb_s", "clock_mhz"),
})
io.write(("%d points; wrote %s/latency.svg and %s/bandwidth.svg\n"):format(#rows, dir, dir))
