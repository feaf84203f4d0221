-- VMMC on Myrinet: the Princeton SHRIMP group's testbed.
-- Source: ../shared/seeds/004 (the VMMC paper), numbers as copied into
-- ../shared/design/PLATFORMS.md, section "VMMC on Myrinet (004)".
-- Units: MB = 10^6 bytes; times in nanoseconds unless the key says otherwise.
return {
  name = "vmmc",
  description = "Pentium 166 hosts, Intel 430FX PCI, Myrinet M2F-PCI32 (LANai 4.1), M2F-SW8",
  nic = {
    clock_hz = 33000000,        -- "LANai 4.1 at 33 MHz"
    sram_bytes = 256 * 1024,    -- "256 KB SRAM"
    -- Cycle model: lanaikit's (docs/vm.md), not a figure from the paper.
    cost = { base = 1, load_use = 1, mmio = 2 },
  },
  pci = {
    pio_read_ns = 422,          -- "PIO over PCI: read 0.422 us"
    pio_write_ns = 121,         -- "write 0.121 us"
    -- "PCI host<->SRAM DMA bandwidth rises with block size to about 128 MB/s at 64 KB
    -- blocks and is 110 MB/s at 4 KB blocks"
    dma = {
      { block_bytes = 4096, mb_per_s = 110 },
      { block_bytes = 65536, mb_per_s = 128 },
    },
  },
  link = {
    mb_per_s = 160,             -- "Link 1.28 Gb/s per direction (about 160 MB/s)"
    crc_bits = 8,               -- "CRC-8 per packet"
  },
  switch = {
    ports = 8,                  -- "M2F-SW8 8-port switch"
  },
  host = {
    cpu_mhz = 166,              -- "Pentium 166 MHz hosts"
    page_bytes = 4096,          -- "page-sized chunks" of 4 KB ("110 MB/s at 4 KB blocks (the page-sized limit)")
  },
}
