-- extras.lua -- the Hamlyn paper's other measurements: how fast a packet with a bad key is
-- discarded (section 6.5: "within 3 us"), the wake-up of a sleeping receiver by interrupt
-- (section 4.2: 78 us for a message with no payload), and round-robin fairness between two
-- send termini streaming to one receiver (section 2.3).
--
--   lanaikit run lua-scripts/hamlyn/extras.lua [--messages 40] [--check]
-- --check: fail (non-zero exit) if a measured figure misses its target: bad key <= 3 us,
-- the two termini's shares within 10% of each other.
local args = require "args"
local output = require "output"
local H = require "hamlyn.hamlyn_bench"

local o = args.parse(arg, { messages = 40, platform = "hamlyn", check = false },
  "usage: extras.lua [--messages N] [--platform NAME] [--check]")
local rows = {}

-- 1. A bad key: the receiving card's handler time for the refused packet.
do
  local ctx = H.setup { platform = o.platform }
  local prof = ctx.c:profile { firmware = ctx.fw, handlers = { "hamlyn_recv" }, nodes = { 1 } }
  local t = ctx.apps[1]:ticket(ctx.slot[1], 0, 0, 64)
  t.key = t.key ~ 0x5A5A
  ctx.c:spawn(0, "forger", function(p) ctx.apps[0]:send(p, t, ctx.send[0], 64) end)
  ctx.c:run {}
  ctx.c:run { for_ns = 100000 }   -- the packet's way, after the forger has posted it
  local k = ctx.h:counters(1)
  assert(k.bad_key == 1 and k.messages_in == 0, ("the forged packet was not refused: bad_key %d, messages_in %d, packets_in %d"):format(k.bad_key, k.messages_in, k.packets_in))
  local inv = prof:invocations(1)
  local v = inv[#inv]
  rows[#rows + 1] = { what = "bad-key packet discarded (card handler)", lanaikit = (v.end_ns - v.start_ns) / 1000,
                      paper = H.paper.bad_key_us, unit = "us", note = v.insns .. " instructions" }
  prof:detach()
end

-- 2. A sleeping receiver woken by the card's interrupt.
do
  local ctx = H.setup { platform = o.platform }
  local t = ctx.apps[1]:ticket(ctx.slot[1], 0, 0, 4)
  local sent_at, woke_at
  ctx.c:spawn(1, "sleeper", function(p)
    assert(ctx.apps[1]:recv_block(p, 1e9, true), "no message")
    woke_at = p:now_ns()
  end)
  ctx.c:spawn(0, "waker", function(p)
    p:advance_ns(200000)
    sent_at = p:now_ns()
    ctx.apps[0]:send(p, t, ctx.send[0], 0)
  end)
  ctx.c:run {}
  rows[#rows + 1] = { what = "sleeping receiver woken (0-byte message)", lanaikit = (woke_at - sent_at) / 1000,
                      paper = H.paper.wakeup_us, unit = "us",
                      note = ("context switch %.0f us"):format(ctx.h:costs().context_switch_ns / 1000) }
  H.check_clean(ctx)
end

-- 3. Two termini on one node streaming 4 KB messages to one receiver.
local shares = {}
do
  local ctx = H.setup { platform = o.platform, packet = 256 }
  local second = ctx.h:open(0)
  local buf2 = second:alloc_send(8192)
  local t1 = ctx.apps[1]:ticket(ctx.slot[1], 0, 0, 4096)
  local t2 = ctx.apps[1]:ticket(ctx.slot[1], 1, 65536, 4096)
  local got = { 0, 0 }
  local stop_at
  for i, s in ipairs { { ctx.apps[0], ctx.send[0], t1 }, { second, buf2, t2 } } do
    ctx.c:spawn(0, "stream" .. i, function(p)
      for _ = 1, o.messages do s[1]:send(p, s[3], s[2], 4096) end
    end)
  end
  ctx.c:spawn(1, "sink", function(p)
    for _ = 1, o.messages do
      local n = ctx.apps[1]:recv_block(p, 1e9)
      got[n.meta_index + 1] = got[n.meta_index + 1] + 1
    end
    stop_at = p:now_ns()
  end)
  ctx.c:run {}
  -- After o.messages arrivals (half the total), each terminus's share of them.
  shares = { got[1] / o.messages, got[2] / o.messages }
  rows[#rows + 1] = { what = "two termini, share of the first N messages", lanaikit = shares[1] * 100,
                      paper = 50, unit = "%", note = ("%d / %d messages"):format(got[1], got[2]) }
end

io.write(("Hamlyn: discard, wake-up and fairness on %s\n\n"):format(o.platform))
io.write(output.table(rows, { "what", "lanaikit", "paper", "unit", "note" }))
if o.check then
  assert(rows[1].lanaikit <= H.paper.bad_key_us, ("bad key discarded in %.2f us, target <= 3"):format(rows[1].lanaikit))
  assert(math.abs(shares[1] - shares[2]) <= 0.1, ("unfair: %.2f / %.2f"):format(shares[1], shares[2]))
end
