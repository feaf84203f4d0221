-- thresholds.lua -- where copying beats DMA, on the modelled platform (the BIP paper,
-- section 3.4: "for small messages there is a point where our algorithm starts to do memory
-- copies to a fixed communication buffer to or from the board in order to decrease
-- latency").
--
--   lanaikit run lua-scripts/bip/thresholds.lua [--platform bip] [--iters 30] [--step 16]
--
-- Two crossovers, each measured with the other end held fixed:
--  * send: the host PIO-writes the payload into the MCP's send slot (copy) or the MCP DMAs
--    it from the pinned user buffer (DMA); the receiver takes every message directly.
--  * receive: the MCP DMAs the message into the tag's ring and the host copies it out
--    (copy) or the MCP DMAs it straight into the posted receive (direct); the sender DMAs.
-- For each size up to SHORT_MAX, the median one-way time of both ways; the threshold is the
-- largest size from which on copying stays faster. host/bip's defaults (Bip:limits():
-- copy_max, direct_min) are these numbers on BIP's testbed; the script says whether they
-- still match (a test runs it in --check mode).
local args = require "args"
local output = require "output"
local B = require "bip.bip_bench"

local o = args.parse(arg, { platform = "bip", iters = 30, step = 16, max = 1024, check = false, csv_dir = "" },
  "usage: thresholds.lua [--platform NAME] [--iters N] [--step BYTES] [--max BYTES] [--check] [--csv-dir DIR]")
local NEVER = 0xFFFFFFFF

local function latency(opts, size)
  local ctx = B.setup { platform = o.platform, max_bytes = o.max, opts = opts }
  local r = B.pingpong(ctx, size, { iters = o.iters })
  B.check_clean(ctx)
  return r.median_us
end

local sizes = {}
for s = o.step, o.max, o.step do sizes[#sizes + 1] = s end

-- The largest size at which `a` (copying) is still no slower than `b`, scanning up while
-- it is: the crossover.
local function crossover(rows, a, b)
  local last = 0
  for _, r in ipairs(rows) do
    if r[a] <= r[b] then last = r.size else break end
  end
  return last
end

local rows = {}
for _, s in ipairs(sizes) do
  rows[#rows + 1] = {
    size = s,
    send_copy_us = latency({ copy_max = o.max, direct_min = 1 }, s),
    send_dma_us = latency({ copy_max = 1, direct_min = 1 }, s),
    recv_copy_us = latency({ copy_max = 1, direct_min = NEVER }, s),
    recv_direct_us = latency({ copy_max = 1, direct_min = 1 }, s),
  }
end
local send_t = crossover(rows, "send_copy_us", "send_dma_us")
local recv_t = crossover(rows, "recv_copy_us", "recv_direct_us")

io.write(("BIP thresholds on %s: one-way latency (median of %d round trips / 2) by way of moving the data\n\n")
  :format(o.platform, o.iters))
io.write(output.table(rows, { "size", "send_copy_us", "send_dma_us", "recv_copy_us", "recv_direct_us" }, {
  size = "bytes", send_copy_us = "send: PIO copy us", send_dma_us = "send: DMA us",
  recv_copy_us = "recv: ring + copy us", recv_direct_us = "recv: direct DMA us" }))
local defaults = B.setup { platform = o.platform, max_bytes = 4096 }.bip:limits()
io.write(("\nsend: copy up to %d bytes (library default copy_max %d)\n"):format(send_t, defaults.copy_max))
io.write(("receive: copy out of the ring below %d bytes (library default direct_min %d)\n")
  :format(recv_t + o.step, defaults.direct_min))
output.csv(o.csv_dir, "bip_thresholds", rows, { "size", "send_copy_us", "send_dma_us", "recv_copy_us", "recv_direct_us" })
if o.check then
  -- The defaults must lie within one step of the measured crossovers.
  if math.abs(defaults.copy_max - send_t) > o.step then
    error(("copy_max default %d, measured crossover %d"):format(defaults.copy_max, send_t), 0)
  end
  if math.abs(defaults.direct_min - (recv_t + o.step)) > o.step then
    error(("direct_min default %d, measured crossover %d"):format(defaults.direct_min, recv_t + o.step), 0)
  end
  io.write("defaults match the measurement\n")
end
