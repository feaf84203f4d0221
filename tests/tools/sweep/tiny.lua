-- tiny.lua -- a cheap deterministic point for tests/tools/sweep_test.py: integer, double,
-- string and boolean results from --x and --y, and ways to fail on purpose.
--   --fail_x X     a Lua error at the point whose x is X
--   --kill_x X     the point whose x is X kills its own process (SIGKILL)
--   --silent_x X   the point whose x is X records no result
local args = require "args"
local sweep = require "sweep"

local o = args.parse(arg, { x = 0, y = 0, fail_x = -1, kill_x = -1, silent_x = -1 })
if o.x == o.fail_x then error(("tiny.lua: failing at x = %g on purpose"):format(o.x), 0) end
if o.x == o.kill_x then
  local f = assert(io.open("/proc/self/stat"))
  local pid = f:read("n")
  f:close()
  os.execute("kill -9 " .. math.tointeger(pid))
end
io.write(("point x=%s y=%s\n"):format(arg[#arg - 2], arg[#arg]))
if o.x == o.silent_x then return end
-- A little arithmetic that ends in a double whose shortest form is long.
local acc = 0
for i = 1, 1000 do acc = acc + 1 / (i * o.x + o.y) end
sweep.result { sum = o.x + o.y, product = math.tointeger(o.x * o.y) or o.x * o.y, harmonic = acc, half = o.x / 2,
               label = ("x%g"):format(o.x), big = o.x > 1 }
