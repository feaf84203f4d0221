-- DART hybrid deposit model, MERL: software prototype and projected hardware.
-- Source: ../shared/seeds/002 (the DART paper), numbers as copied into
-- ../shared/design/PLATFORMS.md, section "DART (002)".
-- The paper's adapter is an ATM card (Fore TCA-100) driven in-kernel, not a LANai: no
-- `nic` section; an experiment chooses the NIC that runs DART's operation logic.
-- No `pci` section either: the paper targets PCI ("We are targeting the PCI bus") but gives
-- no host or PCI figure. DART's experiments (lua-scripts/dart/, tests/dart/) borrow
-- vmmc.lua's LANai 4.1 (33 MHz) and its PCI figures, the closest sourced ones of the era
-- (NicChoice::of(vmmc): the NIC and, for a platform without `pci`, its PCI), and say so in
-- what they print; no number here or there is fitted to DART's results.
-- A field left out takes lanaikit's default (the C++ struct's); the commented-out lines
-- say which and why, and load_platform lists them in Platform::defaulted.
return {
  name = "dart",
  description = "DECstation 5000/240, Fore TCA-100 ATM adapter, Fore ASX-100 switch",
  cells = {
    cell_bytes = 53,            -- "ATM cells of 53 bytes" (checked: the model's)
    payload_bytes = 48,         -- "48-byte payload" (checked: the model's)
    line_mbit_per_s = 140,      -- "a 140Mbps Fore Systems TCA-100 ATM interface card"
    -- lanaikit's reading, not the paper's: 140 Mb/s is the TCA-100's TAXI interface
    -- (4B/5B-coded at 175 Mbaud, 140 Mb/s of data), which has no SONET frame, so cells
    -- follow each other at the full 140 Mb/s.
    framing = "plain",
    -- latency_ns = 50: lanaikit default (net::CellLinkConfig), not from the paper.
    -- "under 10 us on a 155 Mb/s LAN, under 3 us on 622 Mb/s" (projections for hardware
    -- DART): 155 and 622 Mb/s are SONET OC-3c and OC-12c, whose line rates are 155.52 and
    -- 622.08 Mb/s with 26/27 of it (149.76, 599.04 Mb/s) carrying cells.
    projected = {
      { line_mbit_per_s = 155.52, framing = "sonet" },
      { line_mbit_per_s = 622.08, framing = "sonet" },
    },
  },
  -- DART's own parameters, read and checked by DART's code (sim/platform_section.h).
  protocol = {
    dart = {
      data_bytes = 32,          -- "48-byte payload = 32 data bytes + 16 control bytes"
      control_bytes = 16,
      max_ops_per_message = 4,  -- "Up to four primitive operations per message"
    },
  },
  -- No `switch`: the Fore ASX-100 is an ATM cell switch, which net::Switch does not model,
  -- and the paper gives no figure for it (the 24.5 vs 30 us difference is a result).
  -- No `host` numbers: the paper names the DECstation 5000/240 but gives no clock or costs.
}
