-- UDM on FUGU: two-case delivery and virtual buffering, MIT.
-- Source: ../shared/seeds/001 (the UDM paper), numbers as copied into
-- ../shared/design/PLATFORMS.md, section "UDM / FUGU (001)".
-- FUGU's nodes are Sparcle processors with a network interface, not a LANai: no `nic`
-- section. The paper states its results in processor cycles, and gives no clock rate,
-- so the host section counts cycles.
return {
  name = "udm",
  description = "FUGU: Sparcle processors, simulated; 8 nodes",
  nodes = 8,                    -- "8 nodes"
  host = {
    cache_bytes = 64 * 1024,    -- "a 64 KB unified cache"
    cache_line_bytes = 16,      -- "16-byte lines"
    -- cpu_hz: not given (results are in cycles).
  },
  -- UDM's and FUGU's own parameters, read and checked by UDM's code
  -- (sim/platform_section.h).
  protocol = {
    udm = {
      send_buffer_words = 16,   -- "16-word hardware send buffer"
      cycles = {
        miss_penalty = 10,      -- "10-cycle miss penalty"
        timeslice = 500000,     -- "scheduler timeslice 500,000 cycles"
      },
    },
  },
}
