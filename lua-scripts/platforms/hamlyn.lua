-- Hamlyn, HP Labs prototype.
-- Source: ../shared/seeds/000 (the Hamlyn paper), numbers as copied into
-- ../shared/design/PLATFORMS.md, section "Hamlyn (000)".
-- Units: MB = 10^6 bytes; times in nanoseconds.
-- A field left out takes lanaikit's default (the C++ struct's); the commented-out lines
-- say which and why, and load_platform lists them in Platform::defaulted.
return {
  name = "hamlyn",
  description = "HP 9000/770 J200 (100 MHz PA-RISC), LANai 4.0 on the 40 MHz graphics I/O bus",
  nic = {
    clock_hz = 40000000,        -- "LANai 4.0 ... clocked with the 40 MHz graphics I/O bus"
    sram_bytes = 512 * 1024,    -- "512 KB SRAM"
    cost = { base = 1, load_use = 1, mmio = 2 }, -- lanaikit's cycle model (docs/vm.md)
  },
  -- The card sits on the workstation's graphics I/O bus, not PCI; the same bus model
  -- (host::PciBus) serves with these numbers.
  pci = {
    -- "a host STORE to the card about 0.175 us (8 stores = 1.4 us)" (paper Table 4,
    -- "Host I/O writes 1.4": "only 8 STORE instructions"): one number for a posted
    -- write, used both for the CPU's issue cost and for the write's bus time.
    pio_write_ns = 175,
    -- "8 STORE instructions" for a 16-byte fast-mode message: its request block and data
    -- are about 64 bytes, so each store carried 8 (the PA-RISC double-word floating-point
    -- store, the usual way to move 64 bits to an I/O device on that machine).
    pio_store_bytes = 8,
    dma_to_host = 106,          -- "DMA into host memory up to 106 MB/s" (no curve given: flat)
    dma_from_host = 32,         -- "out of host memory 32 MB/s" (no curve given: flat)
    -- pio_read_ns = 0: the paper gives no figure for a host load from the card
    --   (lanaikit default, not from the paper: an experiment that reads the card must set one).
    -- dma_setup_ns = 0: the paper gives no figure (lanaikit default). Table 4's "DMA 3.3"
    --   us for a 16-byte message is a result, not a setup cost to copy here.
    -- dma_burst_bytes = 0: lanaikit default, not from the paper.
    -- Not modelled: "Repeating fine structure with a 32-byte period due to power-of-2
    --   I/O bus transaction sizes".
  },
  link = {
    mb_per_s = 80,              -- "80 MB/s per port per direction"
    crc_bits = 8,               -- Myrinet's CRC-8 (the link model's; the paper does not discuss it)
    -- lanaikit defaults (net::LinkConfig), not from the paper: latency_ns = 50,
    -- chunk_bytes = 32, slack_bytes = 256, stop_bytes = 128, go_bytes = 64, tx_fifo_bytes = 64.
  },
  switch = {
    ports = 8,                  -- "Myrinet 8x8 crossbar, wormhole"
    fall_through_ns = 500,      -- "about 0.5 us switch latency"
  },
  host = {
    cpu_hz = 100000000,         -- "100 MHz PA-RISC"
    cache_coherent_io = true,   -- "cache-coherent I/O"
    costs = {
      context_switch = 31000,   -- "a context switch provoked by a semaphore takes 31µs"
    },
    -- interrupt_latency_ns: not given. "Interrupt wake-up of a sleeping receiver 78 us" is
    --   a result (a whole message to a sleeping process), not an interrupt latency.
    -- Not parameters: Table 4's "Host protocol software 0.8" (2.2 through the tagged
    --   remote write library) is a part of the measured 12.7 us, i.e. a result.
  },
}
