-- Never ends and never simulates: run with --wall-limit-s 1, the wall-clock limit must
-- stop it with exit status 3.
local n = 0
while true do n = n + 1 end
