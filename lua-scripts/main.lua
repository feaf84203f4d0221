-- main.lua -- THE MAIN JOB: every protocol lanaikit has, first each on its paper's testbed
-- beside the paper's headline numbers, then all on one common testbed, so designs are
-- compared on identical hardware.
--
--   lanaikit run lua-scripts/main.lua [--common vmmc]
--
-- A protocol takes part by having lua-scripts/<protocol>/headline.lua, which returns a
-- function(platform) -> rows (lib/paper.lua says what a row holds; platform nil means
-- the paper's testbed). This script finds those files itself: nothing shared is edited to
-- add a protocol. --common names the platform file of the common testbed.
-- Every number is simulated time: deterministic, independent of the machine.
local args = require "args"
local paper = require "paper"

local o = args.parse(arg, { common = "vmmc" }, "usage: main.lua [--common PLATFORM]")
local wall0 = os.clock()

-- The lua-scripts folder: where `require "x.y"` finds x/y.lua (lanaikit puts
-- <source>/lua-scripts/?.lua on package.path, lua/runtime.cpp).
local root
for entry in package.path:gmatch("[^;]+") do
  local dir = entry:match("^(.*/lua%-scripts)/%?%.lua$")
  if dir then root = dir break end
end
if not root then error("main.lua: package.path has no <source>/lua-scripts/?.lua entry: " .. package.path, 0) end

-- Protocols: the folders with a headline.lua, in name order.
local protocols = {}
for _, name in ipairs(lk.list_dir(root)) do
  local f = io.open(("%s/%s/headline.lua"):format(root, name))
  if f then
    f:close()
    protocols[#protocols + 1] = name
  end
end
if #protocols == 0 then error("main.lua: no lua-scripts/<protocol>/headline.lua under " .. root, 0) end

local common = lk.platform(o.common)
local home_rows, common_rows = {}, {}
for _, name in ipairs(protocols) do
  local measure = require(name .. ".headline")
  local rows = measure(nil)
  for _, r in ipairs(rows) do home_rows[#home_rows + 1] = r end
  -- A protocol whose paper's testbed is the common one is not measured twice.
  local same = true
  for _, r in ipairs(rows) do same = same and r.testbed == common.name end
  if not same then rows = measure(o.common) end
  for _, r in ipairs(rows) do common_rows[#common_rows + 1] = r end
end

io.write("lanaikit: every protocol, simulated (two nodes on one switch; times are simulated, not wall-clock)\n\n")
io.write("Columns: one-way latency of a one-word message (mean of round trip / 2 over 10 ping-pongs);\n" ..
         "peak one-way bandwidth of back-to-back sends (MB = 10^6 bytes); the control program's\n" ..
         "instructions per packet for that one word, sending side plus receiving side (c:profile).\n\n")
io.write("## Each protocol on its paper's testbed, beside the paper\n\n")
io.write(paper.headline_table(home_rows))
io.write(("\n## All protocols on one testbed: %s\n\n"):format(common.name))
io.write(("%s (lua-scripts/platforms/%s.lua). Chosen because every number in it is sourced\n"):format(common.description, o.common) ..
         "from its paper's text and because it is the testbed lanaikit models most completely (a\n" ..
         "protocol from another paper runs here unchanged; its own testbed's numbers stay in the\n" ..
         "table above).\n\n")
io.write(paper.common_table(common_rows))
io.write(("\nprotocols found: %s (lua-scripts/*/headline.lua); wall time %.1f s (CPU)\n")
  :format(table.concat(protocols, ", "), os.clock() - wall0))
