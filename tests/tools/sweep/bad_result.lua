-- bad_result.lua -- records a result named like a grid parameter (--x), which the sweep
-- refuses (tests/tools/sweep_test.py).
local sweep = require "sweep"
sweep.result { x = 1, ok = true }
