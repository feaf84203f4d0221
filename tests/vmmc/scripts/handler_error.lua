-- A notification handler that raises an error stops the run: exit status 1, and the message
-- names the endpoint and carries the handler's error (tests/vmmc/lua.cmake checks both).
local platform = lk.platform("vmmc")
local fw = lk.firmware { sources = { "firmware/vmmc/vmmc.fw" }, opt = "O2" }
local c = lk.cluster { platform = platform, nodes = 2 }
local V = lk.vmmc(c, fw, platform)
local a, b = V:open(0), V:open(1)
local sbuf, rbuf = a:alloc(4096), b:alloc(4096)
b:on_notification(function(n) error("boom") end)
local t_end, id, proxy = 0, nil, nil
local function phase(node, fn)
  c:spawn(node, "phase", function(p) fn(p); t_end = math.max(t_end, p:now_ns()) end, math.max(c:now_ns(), t_end))
  c:run {}
end
phase(1, function(p) id = b:export(p, rbuf, 4096, { notify = true }) end)
phase(0, function(p) proxy = a:import(p, 1, id) end)
phase(0, function(p) assert(a:send(p, sbuf, proxy, 4, { notify = true }).ok) end)
c:run { for_ns = 1e6 }
error("the handler's error did not stop the run")
