-- BIP (Basic Interface for Parallelism), ENS Lyon.
-- Source: ../shared/seeds/003 (the BIP paper), numbers as copied into
-- ../shared/design/PLATFORMS.md, section "BIP (003)".
-- Units: MB = 10^6 bytes.
return {
  name = "bip",
  description = "Pentium Pro 200 PCs, 32-bit 33 MHz PCI, Myrinet with LANai 4.1",
  nic = {
    clock_hz = 33000000,        -- LANai 4.1: 33 MHz (the LANai 4.1 clock, as in PLATFORMS.md's VMMC section)
    sram_bytes = 256 * 1024,    -- Myrinet LANai 4.1 boards of the period: 256 KB (VMMC section)
    cost = { base = 1, load_use = 1, mmio = 2 }, -- lanaikit's cycle model (docs/vm.md)
  },
  pci = {
    bus_mhz = 33,               -- "32-bit 33 MHz PCI"
    bus_bytes = 4,              -- 32-bit
    peak_mb_per_s = 132,        -- "(132 MB/s theoretical)"
  },
  link = {
    mb_per_s = 160,             -- "links 1.28 Gb/s"
  },
  host = {
    cpu_mhz = 200,              -- "Pentium Pro 200 MHz PCs"
  },
}
