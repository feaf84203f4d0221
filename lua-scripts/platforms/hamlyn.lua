-- Hamlyn, HP Labs prototype.
-- Source: ../shared/seeds/000 (the Hamlyn paper), numbers as copied into
-- ../shared/design/PLATFORMS.md, section "Hamlyn (000)".
-- Units: MB = 10^6 bytes; times in nanoseconds.
return {
  name = "hamlyn",
  description = "HP 9000/770 J200 (100 MHz PA-RISC), LANai 4.0 on the 40 MHz graphics I/O bus",
  nic = {
    clock_hz = 40000000,        -- "LANai 4.0 ... clocked with the 40 MHz graphics I/O bus"
    sram_bytes = 512 * 1024,    -- "512 KB SRAM"
    cost = { base = 1, load_use = 1, mmio = 2 }, -- lanaikit's cycle model (docs/vm.md)
  },
  pci = {                       -- the I/O bus between host and card (not PCI on this machine)
    dma_to_host_mb_per_s = 106, -- "DMA into host memory up to 106 MB/s"
    dma_from_host_mb_per_s = 32,-- "out of host memory 32 MB/s"
    pio_write_ns = 175,         -- "a host STORE to the card about 0.175 us"
    cache_coherent = true,      -- "cache-coherent I/O"
  },
  link = {
    mb_per_s = 80,              -- "80 MB/s per port per direction"
  },
  switch = {
    ports = 8,                  -- "Myrinet 8x8 crossbar, wormhole"
    latency_ns = 500,           -- "about 0.5 us switch latency"
  },
  host = {
    cpu_mhz = 100,              -- "100 MHz PA-RISC"
  },
}
