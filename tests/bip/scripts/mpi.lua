-- The MPI-style layer on BIP (lua-scripts/bip/mpi.lua, docs/bip.md, "An MPI-style layer"): matching by source
-- and tag, communicators kept apart, rendezvous for long messages, collectives on 3, 4 and 8
-- nodes, determinism and the errors of misuse. `lanaikit run tests/bip/scripts/mpi.lua`;
-- exit status 0 = every check passed.
local B = require "bip.bip_bench"
local mpi = require "bip.mpi"

local checks = 0
local function check(cond, fmt, ...)
  checks = checks + 1
  if not cond then error(("check failed: " .. fmt):format(...), 2) end
end

-- Runs body(p, comm, rank) on every node of a fresh cluster of n nodes; returns ctx, world.
local function run(n, body, opts)
  local ctx = B.setup { nodes = n, max_bytes = 4096 }
  local world = mpi.world(ctx, opts)
  for r = 0, n - 1 do
    ctx.c:spawn(r, "rank" .. r, function(p) body(p, world[r], r) end)
  end
  ctx.c:run {}
  -- Ready mode was never violated and nothing was lost or refused.
  B.check_clean(ctx)
  return ctx, world
end

local function payload(n, seed) return B.payload(n, seed) end

-- ---- matching by source and tag ----------------------------------------------------------
do
  local got = {}
  local _, world = run(3, function(p, w, r)
    if r == 1 then
      w:send(p, 0, 1, "one-1")
      w:send(p, 0, 2, "one-2")
      w:send(p, 0, 3, "one-3a")
      w:send(p, 0, 3, "one-3b")
      local s = w:isend(p, 0, 9, payload(5000, 1)) -- long: its RTS waits unexpected at rank 0
      w:send(p, 0, 10, "after-long")
      w:wait(p, s)
    elseif r == 2 then
      w:send(p, 0, 1, "two-1")
      w:send(p, 0, 4, "two-4")
      w:recv(p, 0, 0)
    else
      -- Out of order: the tag-2 message is taken before the tag-1 one that came first.
      got.a, got.sa = w:recv(p, 1, 2)
      got.b, got.sb = w:recv(p, 2, 1)
      got.c, got.sc = w:recv(p, mpi.ANY_SOURCE, 1)
      got.d, got.sd = w:recv(p, 1, mpi.ANY_TAG)        -- non-overtaking: 3a before 3b
      got.e, got.se = w:recv(p, mpi.ANY_SOURCE, 3)
      got.f, got.sf = w:recv(p, 2, mpi.ANY_TAG)
      got.g = w:recv(p, 1, 10)
      -- A blocking eager send (DMAed, not yet done when the receive slot is free) leaves a
      -- CTRL receive posted: the RTS's receive now needs a WAKE from rank 1.
      w:send(p, 2, 0, payload(500, 2))
      got.h, got.sh = w:recv(p, 1, 9)
    end
  end)
  check(got.a == "one-2" and got.sa.source == 1 and got.sa.tag == 2 and got.sa.len == 5, "recv(1, 2): %s", got.a)
  check(got.b == "two-1" and got.sb.source == 2 and got.sb.tag == 1, "recv(2, 1): %s", got.b)
  check(got.c == "one-1" and got.sc.source == 1, "recv(ANY, 1): %s", got.c)
  check(got.d == "one-3a" and got.sd.tag == 3, "recv(1, ANY) first: %s", got.d)
  check(got.e == "one-3b" and got.se.source == 1 and got.se.tag == 3, "recv(ANY, 3): %s", got.e)
  check(got.f == "two-4" and got.sf.tag == 4, "recv(2, ANY): %s", got.f)
  check(got.g == "after-long", "recv(1, 10): %s", got.g)
  check(got.h == payload(5000, 1) and got.sh.len == 5000 and got.sh.tag == 9, "the long message from the unexpected queue")
  check(world[0]:stats().unexpected >= 4, "unexpected messages counted: %d", world[0]:stats().unexpected)
  check(world[0]:stats().wakes == 1, "one WAKE asked for: %d", world[0]:stats().wakes)
  check(world[1]:stats().rts_sent == 1, "rank 1 sent one RTS: %d", world[1]:stats().rts_sent)
end

-- ---- communicators do not match each other's messages ------------------------------------
do
  local got = {}
  run(4, function(p, w, r)
    local dup = w:dup(p)
    local half = w:split(p, r % 2, r)
    local none = w:split(p, r == 3 and 0 or mpi.UNDEFINED, 0)
    got["none" .. r] = none and none.size or false
    got["half" .. r] = { half.rank, half.size, half.context, dup.context }
    if r == 1 then
      dup:send(p, 0, 5, "on dup")
      half:send(p, 1, 5, "on half") -- rank 3 of the world is half rank 1
      w:send(p, 0, 5, "on world")
    elseif r == 0 then
      got.w = { w:recv(p, mpi.ANY_SOURCE, mpi.ANY_TAG) } -- only the world's message matches
      got.d = { dup:recv(p, 1, 5) }
    elseif r == 3 then
      got.h = { half:recv(p, mpi.ANY_SOURCE, mpi.ANY_TAG) }
    end
    -- Collectives in the halves at the same time, and point-to-point in the world after.
    got["sum" .. r] = half:allreduce(p, r, "sum")
    w:barrier(p)
  end)
  check(got.w[1] == "on world" and got.w[2].source == 1, "world recv got '%s'", got.w[1])
  check(got.d[1] == "on dup", "dup recv got '%s'", got.d[1])
  check(got.h[1] == "on half" and got.h[2].source == 0, "half recv got '%s' from %d", got.h[1], got.h[2].source)
  for r = 0, 3 do
    local h = got["half" .. r]
    check(h[1] == r // 2 and h[2] == 2, "rank %d: half rank %d size %d", r, h[1], h[2])
    check(h[3] ~= 0 and h[4] ~= 0 and h[3] ~= h[4], "rank %d: contexts world 0, dup %d, half %d differ", r, h[4], h[3])
    check(got["sum" .. r] == (r % 2 == 0 and 2 or 4), "rank %d: half allreduce %s", r, tostring(got["sum" .. r]))
    check(got["none" .. r] == (r == 3 and 1 or false), "rank %d: split with UNDEFINED gives %s", r, tostring(got["none" .. r]))
  end
  check(got.half0[3] ~= got.half1[3], "the two halves have different contexts")
end

-- ---- long messages: rendezvous, every byte checked ---------------------------------------
do
  local sizes = { 1008, 1009, 1012, 1021, 4096, 65536 + 3, 300001 }
  local got, rts = {}, 0
  local _, world = run(4, function(p, w, r)
    for i, n in ipairs(sizes) do
      if r == 0 then w:send(p, 1, i, payload(n, i)) end
      if r == 1 then got[i] = w:recv(p, 0, i) end
    end
    -- Exchanges: both directions at once (each side's RTS waits while the other grants),
    -- then a ring on all four.
    local peer = r ~ 1
    local s = w:isend(p, peer, 100, payload(20000 + r, r))
    got["x" .. r] = w:recv(p, peer, 100)
    w:wait(p, s)
    s = w:isend(p, (r + 1) % 4, 101, payload(30000 + r, 10 + r))
    local q = w:irecv(p, (r - 1) % 4, 101)
    got["ring" .. r] = w:wait(p, q)
    w:wait(p, s)
  end)
  for i, n in ipairs(sizes) do
    check(got[i] == payload(n, i), "%d bytes: the data received differs (%d bytes came)", n, got[i] and #got[i] or -1)
  end
  for r = 0, 3 do
    check(got["x" .. r] == payload(20000 + (r ~ 1), r ~ 1), "rank %d: exchanged data differs", r)
    local left = (r - 1) % 4
    check(got["ring" .. r] == payload(30000 + left, 10 + left), "rank %d: ring data differs", r)
    rts = rts + world[r]:stats().rts_sent
  end
  check(rts == 6 + 4 + 4, "RTS sent: %d (expected 14: 6 sizes over 1008 bytes, 4 exchanges, 4 ring)", rts)
end

-- ---- collectives on 3, 4 and 8 nodes -----------------------------------------------------
for _, n in ipairs { 3, 4, 8 } do
  local res = {}
  local enter, leave = {}, {}
  run(n, function(p, w, r)
    p:advance_ns(1000 * r * r) -- ranks arrive at different times
    enter[r] = p:now_ns()
    w:barrier(p)
    leave[r] = p:now_ns()
    res[r] = {
      b0 = w:bcast(p, r == 0 and "root0" or nil, 0),
      blast = w:bcast(p, r == n - 1 and payload(3000, n) or nil, n - 1),
      sum = w:allreduce(p, r + 1, "sum"),
      fmax = w:allreduce(p, r * 1.5, "max"),
      arr = w:allreduce(p, { r, -r, r * 0.25, 10 - r }, "min"),
      big = w:allreduce(p, (function() local t = {} for i = 1, 300 do t[i] = i * (r + 1) end return t end)(), "sum"),
    }
  end)
  local last_in, first_out = 0, math.huge
  for r = 0, n - 1 do
    last_in, first_out = math.max(last_in, enter[r]), math.min(first_out, leave[r])
  end
  check(first_out >= last_in, "%d nodes: a rank left the barrier at %.0f ns before the last entered at %.0f", n, first_out, last_in)
  for r = 0, n - 1 do
    local x = res[r]
    check(x.b0 == "root0", "%d nodes rank %d: bcast from 0", n, r)
    check(x.blast == payload(3000, n), "%d nodes rank %d: bcast of 3000 bytes from rank %d", n, r, n - 1)
    check(x.sum == n * (n + 1) // 2 and math.type(x.sum) == "integer", "%d nodes rank %d: sum %s", n, r, tostring(x.sum))
    check(x.fmax == (n - 1) * 1.5, "%d nodes rank %d: max %s", n, r, tostring(x.fmax))
    check(#x.arr == 4 and x.arr[1] == 0 and x.arr[2] == -(n - 1) and x.arr[3] == 0 and x.arr[4] == 10 - (n - 1),
          "%d nodes rank %d: elementwise min", n, r)
    local tri = n * (n + 1) // 2
    check(#x.big == 300 and x.big[1] == tri and x.big[300] == 300 * tri, "%d nodes rank %d: 300-number sum (a rendezvous)", n, r)
  end
end

-- ---- determinism: the same run twice gives the same times ---------------------------------
do
  local function once()
    local times = {}
    local ctx = run(4, function(p, w, r)
      local s = w:isend(p, (r + 1) % 4, r, payload(100 + 3000 * r, r))
      w:recv(p, mpi.ANY_SOURCE, mpi.ANY_TAG)
      w:wait(p, s)
      w:barrier(p)
      w:allreduce(p, { r, r }, "sum")
      times[r] = p:now_ps()
    end)
    times.hash = ctx.c:trace_hash()
    return times
  end
  local a, b = once(), once()
  for r = 0, 3 do check(a[r] == b[r], "rank %d ended at %d ps, then at %d ps", r, a[r], b[r]) end
  check(a.hash == b.hash, "trace hashes differ: %x and %x", a.hash, b.hash)
end

-- ---- misuse: clear errors -----------------------------------------------------------------
do
  local errs = {}
  run(4, function(p, w, r)
    if r ~= 0 then return end
    local function try(name, f)
      local ok, msg = pcall(f)
      errs[name] = ok and "no error" or tostring(msg)
    end
    try("dest", function() w:send(p, 4, 0, "x") end)
    try("any_dest", function() w:send(p, mpi.ANY_SOURCE, 0, "x") end)
    try("source", function() w:recv(p, 7, 0) end)
    try("tag_neg", function() w:send(p, 1, -2, "x") end)
    try("tag_big", function() w:isend(p, 1, mpi.TAG_UB + 1, "x") end)
    try("tag_float", function() w:irecv(p, 1, 1.5) end)
    try("data", function() w:send(p, 1, 0, 42) end)
    try("root", function() w:bcast(p, "x", 9) end)
    try("op", function() w:allreduce(p, 1, "prod") end)
    try("value", function() w:allreduce(p, { 1, "two" }, "sum") end)
    try("color", function() w:split(p, "red", 0) end)
    try("proc", function() w:send(nil, 1, 0, "x") end)
  end)
  local expect = {
    dest = "comm:send: dest 4 is not a rank of this communicator %(0..3%)",
    any_dest = "comm:send: dest %-1 is not a rank",
    source = "comm:recv: source 7 is not a rank of this communicator %(0..3, or mpi.ANY_SOURCE%)",
    tag_neg = "comm:send: tag %-2 is out of range %(0..65536%)",
    tag_big = "comm:isend: tag 65537 is out of range",
    tag_float = "comm:irecv: tag 1.5 is out of range %(0..65536, or mpi.ANY_TAG%)",
    data = "comm:send: data: expected a string, got number",
    root = "comm:bcast: root 9 is not a rank",
    op = "comm:allreduce: op 'prod'",
    value = "comm:allreduce: value%[2%]: expected a number, got string",
    color = "comm:split: color red",
    proc = "comm:send: argument 1: expected the calling process",
  }
  for k, pat in pairs(expect) do
    check(errs[k] and errs[k]:find(pat), "misuse '%s': got %s", k, tostring(errs[k]))
    -- The error points at the caller (this file), not into mpi.lua.
    check(errs[k]:find("bip/mpi.lua:", 1, true) == nil, "misuse '%s' blames mpi.lua: %s", k, errs[k])
  end
  -- A communicator handle used from another node's process.
  local ctx = B.setup { nodes = 2, max_bytes = 4096 }
  local world = mpi.world(ctx)
  local msg
  ctx.c:spawn(1, "wrong", function(p) msg = select(2, pcall(world[0].send, world[0], p, 1, 0, "x")) end)
  ctx.c:run {}
  check(tostring(msg):find("process 'node1.wrong' runs on node 1, this communicator handle is rank 0's on node 0", 1, true),
        "wrong process: %s", tostring(msg))
  local ok, e = pcall(mpi.world, 42)
  check(not ok and e:find("mpi.world: expected a bip_bench context"), "mpi.world(42): %s", tostring(e))
  ok, e = pcall(mpi.world, ctx, { eagre_max = 4 })
  check(not ok and e:find("unknown option 'eagre_max'"), "mpi.world option typo: %s", tostring(e))
end

print(("mpi: %d checks passed"):format(checks))
