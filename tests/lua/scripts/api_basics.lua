-- Small checks of the API surface that need no firmware: platforms, rng, errors,
-- node memory, PIO timing, time limits of c:run.
local lanaikit = require "lanaikit"
assert(lanaikit == lk)

local p = lk.platform("vmmc")
assert(p.name == "vmmc" and p.pci.pio_read_ns == 422)
p.link.latency_ns = 40
local c = lk.cluster{ platform = p, nodes = 2 }
assert(c:size() == 2)
assert(#c:route(0, 1) == 1)

-- PIO read: the bus transaction of the platform (0.422 us on VMMC).
local n0 = c:node(0)
n0:sram_write32(0x100, 0xdeadbeef)
local took, value
c:spawn(n0, "reader", function(proc)
  local t0 = proc:now_ns()
  value = proc:pio_read32(0x100)
  took = proc:now_ns() - t0
  proc:pio_write32(0x104, 7)   -- posted: only advances the local clock by 121 ns
  lk.assert(proc:now_ns() - t0 == 422 + 121, "posted write charges its issue cost")
  proc:advance_ns(200)         -- the write lands 121 ns after it was posted
  proc:sync()
end)
local t = c:run{ for_ns = 5000 }
assert(took == 422, "pio_read32 took " .. tostring(took))
assert(value == 0xdeadbeef)
assert(n0:sram_read32(0x104) == 7)
assert(t < 5000, "the run stops when every process is done: " .. t)

-- Errors name the function, the argument and the expectation.
local ok, err = pcall(lk.cluster, { nodes = "two" })
assert(not ok and err:find("lk.cluster: argument 1 field 'nodes': expected a positive integer, got string", 1, true), err)

-- Random numbers: same seed, same sequence.
local g1, g2 = lk.rng(42), lk.rng(42)
for _ = 1, 100 do assert(g1:uniform(1, 6) == g2:uniform(1, 6)) end
local r = g1:real()
assert(r >= 0 and r < 1)
assert(g1:choice({ "a" }) == "a")
assert(g1:exponential(10) >= 0)
-- lk.list_dir: sorted names, no "." or ".."; a missing directory is an error naming it.
local names = lk.list_dir(debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$"))
local seen = {}
for i, n in ipairs(names) do
  assert(n ~= "." and n ~= "..", n)
  if i > 1 then assert(names[i - 1] < n, "sorted") end
  seen[n] = true
end
assert(seen["api_basics.lua"] and seen["image_view.lua"], "this script's folder")
local ok, err = pcall(lk.list_dir, "/no/such/dir")
assert(not ok and err:find("lk.list_dir: argument 1: cannot list '/no/such/dir'", 1, true), err)
-- Starting a chip with no firmware is refused at the call (it would fault at once).
local bare = lk.cluster { nodes = 2 }
local ok2, err2 = pcall(bare.start, bare)
assert(not ok2 and err2:find("Cluster:start: node0 has no firmware: load one first", 1, true), err2)
local ok3, err3 = pcall(bare:node(1).start, bare:node(1))
assert(not ok3 and err3:find("Node:start: node1 has no firmware", 1, true), err3)
-- Nested tables: lk.write_json takes 90 levels (it wrote past the Lua stack from ~40), a
-- table reached twice without a cycle is written twice, and a platform nested 20 deep is an
-- ordinary field error (it corrupted the heap from ~16).
local deep, cur = {}, nil
cur = deep
for _ = 1, 89 do cur[1] = {}; cur = cur[1] end
cur[1] = 7
local shared = { x = 1 }
local json_path = os.tmpname()
lk.write_json(json_path, { deep = deep, a = shared, b = shared })
local f = assert(io.open(json_path))
local text = f:read("a")
f:close()
os.remove(json_path)
local _, opens = text:gsub("%[", "")
assert(opens == 90, "90 nested lists, got " .. opens)
local _, xs = text:gsub('"x": 1', "")
assert(xs == 2, "the shared table written under a and b, got " .. xs)
local pl = lk.platform("vmmc")
cur = pl.pci
for _ = 1, 20 do cur.x = {}; cur = cur.x end
local ok4, err4 = pcall(lk.cluster, { platform = pl })
assert(not ok4 and err4:find("pci.x: unknown field", 1, true), err4)
collectgarbage()
collectgarbage()
print("api basics ok")
