-- nested.lua -- a result that is not flat: sweep.result raises the error.
local sweep = require "sweep"
sweep.result { list = { 1, 2 } }
