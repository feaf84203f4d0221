-- Fails on purpose inside a process: `lanaikit run` must exit 1 with a traceback that
-- names this file and line 8.
local c = lk.cluster{ nodes = 2 }
c:spawn(0, "faulty", function(p)
  p:advance_ns(100)
  p:sync()
  local t = nil
  return t.field -- line 8: indexing nil
end)
c:run{ for_ns = 10000 }
