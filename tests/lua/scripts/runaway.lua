-- Asks for a whole simulated second; run with --time-limit-ms 1, it must stop at 1 ms
-- with exit status 3 and the chips' state.
local c = lk.cluster{ nodes = 2 }
c:run{ until_ns = 1e9 }
error("not reached: the time limit should have stopped the run")
