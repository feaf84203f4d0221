-- BIP (Basic Interface for Parallelism), ENS Lyon.
-- Source: ../shared/seeds/003 (the BIP paper), numbers as copied into
-- ../shared/design/PLATFORMS.md, section "BIP (003)". Many numbers in our copy of the
-- paper's text are lost; only those PLATFORMS.md recovered are used.
-- Units: MB = 10^6 bytes; times in nanoseconds.
-- A field left out takes lanaikit's default (the C++ struct's); the commented-out lines
-- say which and why, and load_platform lists them in Platform::defaulted.
return {
  name = "bip",
  description = "Pentium Pro 200 PCs, 32-bit 33 MHz PCI, Myrinet with LANai 4.1",
  nic = {
    clock_hz = 33000000,        -- LANai 4.1: 33 MHz (the LANai 4.1 clock, as in PLATFORMS.md's VMMC section)
    sram_bytes = 256 * 1024,    -- Myrinet LANai 4.1 boards of the period: 256 KB (VMMC section)
    cost = { base = 1, load_use = 1, mmio = 2 }, -- lanaikit's cycle model (docs/vm.md)
  },
  pci = {
    -- "32-bit 33 MHz PCI (132 MB/s theoretical)": the only bus figure the paper gives
    -- (its measured PCI rate is lost from our text). Used as a flat DMA curve in both
    -- directions: an upper bound. (VMMC's paper measured 110 MB/s at 4 KB and 128 MB/s at
    -- 64 KB on a 430FX; that is another machine and is not used here.)
    dma = 132,
    -- The paper gives no PIO costs (its digits are lost). Borrowed, as the closest sourced
    -- figures of the same era: VMMC's measured PIO over PCI on a Pentium PC with a LANai
    -- 4.1 card (../shared/seeds/004, section 5.2: "read 0.422 us", write 0.121 us).
    pio_read_ns = 422,          -- borrowed from VMMC's testbed (seed 004)
    pio_write_ns = 121,         -- borrowed from VMMC's testbed (seed 004)
    -- dma_setup_ns = 0, dma_burst_bytes = 0: lanaikit defaults, not from the paper.
  },
  link = {
    mb_per_s = 160,             -- "links 1.28 Gb/s"
    crc_bits = 8,               -- Myrinet's CRC-8 (the link model's)
    -- lanaikit defaults (net::LinkConfig), not from the paper: latency_ns = 50,
    -- chunk_bytes = 32, slack_bytes = 256, stop_bytes = 128, go_bytes = 64, tx_fifo_bytes = 64.
  },
  -- No `switch`: the paper's switch latency is lost from our text ("less than ...us
  -- overhead"), and it does not say how many ports; an experiment picks one.
  host = {
    cpu_hz = 200000000,         -- "Pentium Pro 200 MHz PCs"
    page_bytes = 4096,          -- Linux on x86: 4 KB pages (BIP pins pages; size not given)
    costs = {
      -- Pinning on first use (the BIP kernel module's system call, then cached in user
      -- space): the paper gives no figure. Borrowed from VMMC's platform (its driver
      -- locking send pages, a lanaikit estimate there too).
      pin_call = 5000,          -- borrowed from lua-scripts/platforms/vmmc.lua
      pin_page = 1000,          -- borrowed from lua-scripts/platforms/vmmc.lua
      -- "a memory copy is about ??Mbytes/s": the paper's figure is lost (two digits).
      -- Borrowed: VMMC's paper measured the library's bcopy on its Pentium PCs "in the
      -- range of 20-50 MBytes/sec depending on the size of the data copied" (seed 004,
      -- vRPC); the fast end, since BIP copies only short messages. A rate, in MB/s.
      copy_mb_per_s = 50,       -- borrowed from VMMC's testbed (seed 004)
    },
  },
}
