-- latency.lua -- the BIP paper's latency figure (section 5.1): one-way latency of small
-- messages, the median of round trips / 2 ("the result we choose is the median ... it gives
-- what the user can expect, taking apart extreme values"), with the MCP's instructions per
-- packet and the one-word message's way part by part.
--
--   lanaikit run lua-scripts/bip/latency.lua [--sizes 0,4,8,...] [--iters 1000]
--                [--platform bip] [--csv-dir DIR]
--
-- Per size: median, min and max of --iters round trips (after 2 warm-up ones) and the
-- instructions per message of each handler (c:profile over the same run, divided by the
-- messages sent). Then the 4-byte message's breakdown (c:message_trace): host posting, PCI,
-- sending MCP, wire, network, receiving MCP, DMA, host noticing.
local args = require "args"
local output = require "output"
local B = require "bip.bip_bench"

local o = args.parse(arg, { sizes = { 0, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096 }, iters = 1000,
                            platform = "bip", csv_dir = "" },
  "usage: latency.lua [--sizes 0,4,...] [--iters N] [--platform NAME] [--csv-dir DIR]")

local ctx = B.setup { platform = o.platform, max_bytes = math.max(4096, args.max(o.sizes)) }
local HANDLERS = { "bip_send_short", "bip_send_packet", "bip_recv" }

local rows = {}
for _, size in ipairs(o.sizes) do
  local prof = ctx.c:profile { firmware = ctx.fw, handlers = HANDLERS, nodes = { 0, 1 } }
  local r = B.pingpong(ctx, size, { iters = o.iters, verify = true })
  local row = { size = size, median_us = r.median_us, min_us = r.min_us, max_us = r.max_us, mb_s = r.mb_s }
  -- Messages in the run: 2 per round trip and warm-up, and the "ready" one.
  local messages = 2 * (o.iters + 2) + 1
  for _, h in ipairs(HANDLERS) do
    local insns = 0
    for n = 0, 1 do
      for _, s in ipairs(prof:summary(n)) do
        if s.name == h then insns = insns + s.insns.count * s.insns.mean end
      end
    end
    row[h] = insns / messages
  end
  prof:detach()
  rows[#rows + 1] = row
end
B.check_clean(ctx)

local cols = { "size", "median_us", "min_us", "max_us", "bip_send_short", "bip_send_packet", "bip_recv" }
io.write(("BIP latency on %s: one-way = round trip / 2, median of %d (the paper's method)\n\n"):format(ctx.platform.name, o.iters))
io.write(output.table(rows, cols, { size = "bytes", median_us = "median us", min_us = "min us", max_us = "max us",
  bip_send_short = "send_short insns/msg", bip_send_packet = "send_packet insns/msg", bip_recv = "recv insns/msg" }))
for _, r in ipairs(rows) do
  if r.size == 4 then
    io.write(("\none-word latency: %.2f us (paper: %.1f us on a Pentium Pro 200 with LANai 4.1; %+.0f%%)\n")
      :format(r.median_us, B.paper.latency_us, 100 * (r.median_us / B.paper.latency_us - 1)))
  end
end

-- The one-word message part by part: one more ping-pong with the trace on one message.
local tr = ctx.c:message_trace { from = 0, to = 1 }
local e0, e1 = ctx.eps[0], ctx.eps[1]
ctx.c:spawn(0, "trace-ping", function(p)
  e0:recv(p, 2, ctx.recv[0], 4)
  tr:start(p)
  e0:send(p, 1, 0, ctx.send[0], 4)
  tr:posted(p)
end)
ctx.c:spawn(1, "trace-pong", function(p)
  e1:irecv(p, 0, ctx.recv[1], 4)
  e1:send(p, 0, 2, ctx.send[1], 4)
  local m = e1:wait_recv(p)
  assert(m.ok, m.error)
  tr:seen(p)
end)
ctx.c:run {}
local bd = tr:breakdown()
io.write(("\nthe one-word message's way (one message, %d instructions sending, %d receiving):\n%s\n")
  :format(bd.send_insns, bd.recv_insns, bd.text))
output.csv(o.csv_dir, "bip_latency", rows, cols)
