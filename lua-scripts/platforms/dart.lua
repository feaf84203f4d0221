-- DART hybrid deposit model, MERL: software prototype and projected hardware.
-- Source: ../shared/seeds/002 (the DART paper), numbers as copied into
-- ../shared/design/PLATFORMS.md, section "DART (002)".
-- The paper's adapter is an ATM card (Fore TCA-100) driven in-kernel, not a LANai: no
-- `nic` section; an experiment chooses the NIC that runs DART's operation logic.
return {
  name = "dart",
  description = "DECstation 5000/240, Fore TCA-100 ATM adapter, Fore ASX-100 switch",
  cells = {
    cell_bytes = 53,            -- "ATM cells of 53 bytes"
    payload_bytes = 48,         -- "48-byte payload"
    data_bytes = 32,            -- "= 32 data bytes + 16 control bytes"
    control_bytes = 16,
    max_ops_per_message = 4,    -- "Up to four primitive operations per message"
  },
  link = {
    mbit_per_s = 140,           -- "Fore TCA-100 at 140 Mb/s"
    projected_mbit_per_s = { 155, 622 }, -- "under 10 us on a 155 Mb/s LAN, under 3 us on 622 Mb/s"
  },
}
