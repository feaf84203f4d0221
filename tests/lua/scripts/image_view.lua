-- The kit's image view from Lua (lua/view.cpp): places by path, untimed peek/poke, a
-- struct's integer fields, routes in the kit's convention, and errors that name the place.
local fw = lk.firmware { sources = { "tests/kit/fw/view.fw" } }
local c = lk.cluster { platform = "vmmc", nodes = 3 }
c:load(fw)
local n = c:node(1)

local block = fw:ref("block")
assert(block.addr == 0x9000 and block.type == "Block" and block.count == nil, "block: " .. block.addr)
local inner = fw:layout("Inner")
local b = fw:layout("Block")
local e2 = fw:ref("block.inner[2]")
assert(e2.addr == 0x9000 + b.fields.inner.offset + 2 * inner.size and e2.size == inner.size)
assert(fw:ref("block.inner").count == 4)
assert(fw:addr("block.inner[2].y[1]") == e2.addr + inner.fields.y.offset + 1)

n:poke(fw, "block.a", 0xA1B2C3D4)
n:poke(fw, "block.small", 0x5A)
n:poke(fw, "block.inner[3].x", 0xBEEF)
assert(n:peek(fw, "block.a") == 0xA1B2C3D4)
assert(n:sram_read32(0x9000) == 0xA1B2C3D4, "big-endian in SRAM")
assert(n:peek(fw, "block.inner[3].x") == 0xBEEF)
assert(c:node(0):peek(fw, "block.a") == 0, "another node's SRAM is its own")
local f = n:fields(fw, "block")
assert(f.a == 0xA1B2C3D4 and f.small == 0x5A and f.wide == 0 and f.inner == nil)

-- Routes: raw.fw's table, on every node, right-aligned, kNoRoute past the cluster.
local rfw = lk.firmware { sources = { "firmware/raw/raw.fw" } }
c:load(rfw)
c:write_routes(rfw, "raw.routes")
for i = 0, 2 do
  for j = 0, 2 do
    local route = c:route(i, j)
    local at = "raw.routes[" .. j .. "]"
    assert(c:node(i):peek(rfw, at .. ".len") == #route, "route length " .. i .. " -> " .. j)
    local hops = c:node(i):sram_read(rfw:addr(at .. ".hops"), 8)
    assert(hops == string.rep("\0", 8 - #route) .. route, "right-aligned hops " .. i .. " -> " .. j)
  end
  assert(c:node(i):peek(rfw, "raw.routes[3].len") == 0xFFFFFFFF, "no route past the cluster")
end

local function fails(expect, fn, ...)
  local ok, err = pcall(fn, ...)
  assert(not ok, "expected an error: " .. expect)
  assert(err:find(expect, 1, true), "got: " .. err)
end
fails("Firmware:ref: argument 1: firmware: block.inner[2] (Inner) has no field 'z' (it has: x, y)",
      fw.ref, fw, "block.inner[2].z")
fails("Firmware:addr: argument 1: firmware: block.inner[4] is past the end (4 elements)", fw.addr, fw, "block.inner[4]")
fails("Node:peek: argument 2: firmware: the image has no global 'nope'", n.peek, n, fw, "nope.x")
fails("Node:poke: block.inner[0].y is 3 bytes, not an integer of 1, 2, 4 or 8", n.poke, n, fw, "block.inner[0].y", 1)
fails("Cluster:write_routes: argument 2: firmware: the image has no global 'routes'", c.write_routes, c, rfw, "routes")
fails("Cluster:write_routes: firmware: block.a is not an array (its type is 'u32')", c.write_routes, c, fw, "block.a")
-- Host costs through the kit's cost table: the platform's where it has them, the default
-- (recorded in `defaulted`, name order) where not.
local hc = lk.host_costs("vmmc", { send_post = 0, signal = 7, zz_copy = 3, aa_poll = 1.5 })
assert(hc.send_post == 500 and hc.signal == 10000, "vmmc.lua's host.costs")
assert(hc.zz_copy == 3 and hc.aa_poll == 1.5)
assert(#hc.defaulted == 2 and hc.defaulted[1] == "aa_poll" and hc.defaulted[2] == "zz_copy")
local p = lk.platform("dart") -- no host costs at all
assert(lk.host_costs(p, { send_post = 250 }).send_post == 250)
fails("lk.host_costs: argument 2 field 'x': expected", lk.host_costs, "vmmc", { x = "fast" })
fails("lk.host_costs: argument 1:", lk.host_costs, "no_such_platform", {})
print("image_view: ok")
