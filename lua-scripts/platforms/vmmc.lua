-- VMMC on Myrinet: the Princeton SHRIMP group's testbed.
-- Source: ../shared/seeds/004 (the VMMC paper), numbers as copied into
-- ../shared/design/PLATFORMS.md, section "VMMC on Myrinet (004)".
-- Units: MB = 10^6 bytes; times in nanoseconds unless the key says otherwise.
-- A field left out takes lanaikit's default (the C++ struct's); the commented-out lines
-- say which and why, and load_platform lists them in Platform::defaulted.
return {
  name = "vmmc",
  description = "Pentium 166 hosts, Intel 430FX PCI, Myrinet M2F-PCI32 (LANai 4.1), M2F-SW8",
  nodes = 4,                    -- paper 5.1: "four PCI PCs connected to a Myrinet switch (M2F-SW8)"
  nic = {
    clock_hz = 33000000,        -- "LANai 4.1 at 33 MHz"
    sram_bytes = 256 * 1024,    -- "256 KB SRAM"
    -- Cycle model: lanaikit's (docs/vm.md), not a figure from the paper.
    cost = { base = 1, load_use = 1, mmio = 2 },
  },
  pci = {
    pio_read_ns = 422,          -- "PIO over PCI: read 0.422 us"
    -- "write 0.121 us": one number for a posted write, the cost of a store as the host
    -- sees it; used both for the CPU's issue cost and for the write's bus time
    -- (PciParams pio_write_issue and pio_write_latency).
    pio_write_ns = 121,
    -- "PCI host<->SRAM DMA bandwidth rises with block size to about 128 MB/s at 64 KB
    -- blocks and is 110 MB/s at 4 KB blocks" (paper Figure 1, host-to-LANai; the paper
    -- gives no split by direction, so both directions use it).
    dma = {
      { block_bytes = 4096, mb_per_s = 110 },
      { block_bytes = 65536, mb_per_s = 128 },
    },
    -- dma_setup_ns = 0: the paper gives no figure; its bandwidths are per block, end to
    --   end, so a per-transfer setup is inside them (lanaikit default, not from the paper).
    -- dma_burst_bytes = 0 (a DMA holds the bus to the end): lanaikit default, not from the
    --   paper, which says nothing of the PCI latency timer.
  },
  link = {
    mb_per_s = 160,             -- "Link 1.28 Gb/s per direction (about 160 MB/s)"
    crc_bits = 8,               -- "CRC-8 per packet"
    -- The paper says nothing of cable length or Myrinet's slack buffers; lanaikit
    -- defaults (net::LinkConfig), not from the paper:
    -- latency_ns = 50, chunk_bytes = 32, slack_bytes = 256, stop_bytes = 128,
    -- go_bytes = 64, tx_fifo_bytes = 64.
  },
  switch = {
    ports = 8,                  -- "M2F-SW8 8-port switch"
    -- fall_through_ns = 500: lanaikit default (net::SwitchConfig), not from this paper;
    --   it is the Hamlyn paper's "about 0.5 us" for the same family of Myrinet switch.
  },
  host = {
    cpu_hz = 166000000,         -- "Pentium 166 MHz hosts"
    page_bytes = 4096,          -- "assuming 4 KByte pages"; long sends in "page-sized chunks" (4 KB)
    costs = {
      send_post = 500,          -- "Posting a send >= 0.5 us" ("if only writes are used")
      -- The paper gives no figure for these; lanaikit's estimates for Linux 2.0 on a
      -- Pentium 166 (host/vmmc uses them; they cost set-up, TLB misses and notifications,
      -- never the figures' steady-state latency or bandwidth):
      daemon_call = 20000,      -- a process's request to its local VMMC daemon and the answer (Unix socket)
      control_message = 150000, -- one daemon-to-daemon message over the Ethernet ("Daemons communicate
                                --   with each other over Ethernet"): 10 Mb/s UDP through two kernels
      signal = 10000,           -- delivering a notification: "code that invokes notifications using signals"
      pin_call = 5000,          -- the driver locking send pages ("Send pages are locked in memory by the
      pin_page = 1000,          --   VMMC driver"): per call and per page
    },
    -- interrupt_latency_ns: the paper gives no figure (TLB misses interrupt the driver,
    --   but their cost is not measured); left unset.
    -- Not parameters: "LANai pick-up, packet build, network DMA and receive about 2.5 us"
    --   and "receive-side bus arbitration and host DMA about 2 us" are the paper's estimate
    --   of what its firmware and the hardware take; our firmware and models must produce them.
  },
}
