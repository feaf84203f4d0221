-- tables.lua -- the UDM paper's Tables 4 and 5 measured on the emulated FUGU node: the
-- cycles of each message path (the paper's are a Sparcle's). Two nodes, the sender's
-- messages spaced so that each is received alone; the firmware is firmware/udm/bench/
-- (table4.c, table5.c, paths.s) with the kernel of firmware/udm. Counts come from profiles:
-- Profile:range for code between two labels, trap vectors (c:profile{traps = ...}) for the
-- kernel's episodes from a vector to the return to user mode. tests/udm/fast_path_test.cpp
-- and buffered_path_test.cpp measure the same paths with their own instruments and check
-- what must hold of them; this script prints the tables beside the paper.
--
--   lanaikit run lua-scripts/udm/tables.lua
local args = require "args"
local output = require "output"
args.parse(arg, {}, "usage: tables.lua")

local E = require "udm.udm_experiment"

local CTL = 0x30000
local function image(main) return E.firmware { "firmware/udm/bench/" .. main, "firmware/udm/bench/paths.s" } end

-- Two FUGU nodes (100 MHz, 1 MB SRAM), `ctl` words at CTL on each (node 0 sends), profiled
-- from the start, run until the sender's messages are all handled. Returns the profile.
local function run(fw, ctl0, ctl1, profile)
  local c = E.cluster(2)
  for i, ctl in ipairs { ctl0, ctl1 } do
    local n = c:node(i - 1)
    n:load(fw)
    for k, v in ipairs(ctl) do n:sram_write32(CTL + 4 * (k - 1), v) end
  end
  local prof = c:profile(profile)
  c:start()
  c:run { for_ns = 200e6 }
  assert(not c:node(0):running(), "the sender did not finish")
  return prof, c
end

-- Table 4 -----------------------------------------------------------------------------------
local t4 = image("table4.c")
local SENDER, KERNEL_RECV, USER_RECV, USER_C_RECV, POLL_RECV, SENDER_ARG, USER_ARG_RECV = 1, 2, 3, 4, 5, 6, 7
local MESSAGES = 20

-- The receiver's cycles per message: everything it ran but its idle loop, less the same
-- run's with no message (the start-up); polling, the polling loop's receive block. The
-- sender's: its send routine's body.
local function path(receiver, handler, sender)
  sender = sender or SENDER
  local function busy(messages)
    local prof = run(t4, { sender, messages, 300, handler }, { receiver, messages, 300, handler },
                     { firmware = t4, handlers = {}, nodes = { 0, 1 } })
    local rx
    if receiver == POLL_RECV then
      rx = prof:range(1, "bench_poll_receive", "bench_poll_end").cycles
    else
      rx = prof:range(1, 0, 1 << 20).cycles - prof:range(1, "bench_idle", "bench_idle_end").cycles
    end
    local send = sender == SENDER and "bench_send_null" or "bench_send_arg"
    return rx, prof:range(0, send, send .. "_end").cycles
  end
  local rx0 = busy(0)
  local rx, tx = busy(MESSAGES)
  rx = rx - rx0
  assert(rx % MESSAGES == 0 and tx % MESSAGES == 0,
         ("messages cost different cycles: receive %d, send %d for %d"):format(rx, tx, MESSAGES))
  return { receive = rx // MESSAGES, send = tx // MESSAGES }
end

local kernel = path(KERNEL_RECV, t4:symbol("udm_null_kernel_handler"))
local user = path(USER_RECV, 0)
local user_c = path(USER_C_RECV, t4:symbol("null_c_handler"))
local poll = path(POLL_RECV, 0x1234)
local user_arg = path(USER_ARG_RECV, 0, SENDER_ARG)
print("UDM Table 4: null message send and receive (cycles per message on the emulated node; paper: Sparcle)")
print(output.table({
  { path = "send (describe 2 words + launch)", ours = user.send, paper = "not given", per_arg = user_arg.send - user.send, paper_arg = 3 },
  { path = "kernel-level interrupt receive", ours = kernel.receive, paper = 54 },
  { path = "user-level interrupt receive (assembly handler)", ours = user.receive, paper = 87,
    per_arg = user_arg.receive - user.receive, paper_arg = 2 },
  { path = "user-level interrupt receive (C handler)", ours = user_c.receive, paper = "-" },
  { path = "polling receive", ours = poll.receive, paper = 9 },
}, { "path", "ours", "paper", "per_arg", "paper_arg" },
  { path = "path", ours = "lanaikit", paper = "paper", per_arg = "+ per argument", paper_arg = "paper" },
  { "l", "r", "r", "r", "r" }))

-- Table 5 -----------------------------------------------------------------------------------
local t5 = image("table5.c")
local BENCH_NULL, BENCH_ARG = 10, 13
local TABLES = { "udm_trap_table", "udm_fast_table", "udm_buffered_table" }

-- One buffered run: the receiver's kernel episodes by cause (cycles, every table's vector
-- of that cause), and its cycles in the handler's code. Parameters as table5.c's CTL.
local function buffered(s)
  local ctl = { s.receiver, s.messages, s.gap or 200, s.words, s.timeout or 2000, s.budget or 8, s.spin,
                0xFFFFFFFF, s.c_only or 0 }
  local send = { 1, s.messages, s.gap or 200, s.words, s.timeout or 2000, s.budget or 8, s.spin, 0xFFFFFFFF, 0 }
  local prof, c = run(t5, send, ctl, { firmware = t5, handlers = {}, nodes = { 1 }, traps = TABLES })
  -- (the bench handlers only dispose: the receiver counts nothing itself)
  assert(c:node(1):fugu().disposed == s.messages, "the receiver did not dispose every message")
  assert(c:node(1):sram_read32(CTL + 64 + 36) == 0, "the receiver stopped on a trap")
  local by = {}
  for _, v in ipairs(prof:invocations(1)) do
    local cause = tonumber(v.handler:match("%[(%d+)%]$"))
    by[cause] = by[cause] or {}
    table.insert(by[cause], v.cycles)
  end
  for _, list in pairs(by) do table.sort(list) end
  local handler = prof:range(1, s.handler or "udm_null_handler", s.handler_end or "udm_c_upcall").cycles
  return { by = by, handler = handler // s.messages }
end
local function median(list) return list[(#list + 1) // 2] end
local INSERT, DISPOSE, RETURN = 1, 41, 44

local null = buffered { receiver = BENCH_NULL, messages = 40, words = 2, spin = 30000 }
local long = buffered { receiver = BENCH_NULL, messages = 130, words = 16, gap = 100, spin = 100000 }
local arg1 = buffered { receiver = BENCH_ARG, messages = 40, words = 3, spin = 30000,
                        handler = "bench_base_arg_handler", handler_end = "bench_base_arg_handler_end" }
local allc = buffered { receiver = BENCH_NULL, messages = 40, words = 2, spin = 30000, c_only = 1 }
local function extract(r) return median(r.by[RETURN]) + median(r.by[DISPOSE]) + r.handler end
local insert_min, insert_page = null.by[INSERT][1], long.by[INSERT][#long.by[INSERT]]
-- What must hold whatever the costs (as tests/udm/buffered_path_test.cpp checks): most
-- messages buffered by the insert handler (the first by the timeout's switch), every null
-- insert costing the same, length costing the CPU nothing (the DMA copies), a page dearer.
assert(#null.by[INSERT] > 30 and #long.by[INSERT] > 120, "too few inserts: the scenario did not buffer")
assert(null.by[INSERT][#null.by[INSERT]] == insert_min, "a null insert's cost varies")
assert(long.by[INSERT][1] == insert_min and insert_page > insert_min, "inserts of 16 words")
assert(extract(arg1) > extract(null) and extract(allc) > extract(null) and allc.by[INSERT][1] > insert_min,
       "an argument, or C, costs nothing")
print("UDM Table 5: the buffered path (cycles on the emulated node; paper: Sparcle)")
print(output.table({
  { path = "buffer insert, minimum", ours = insert_min, paper = 180 },
  { path = "buffer insert with a page allocation", ours = insert_page, paper = "3,162 (vmalloc)" },
  { path = ("null handler from the buffer: return + upcall %d, emulated dispose %d, handler %d")
      :format(median(null.by[RETURN]), median(null.by[DISPOSE]), math.floor(null.handler)), ours = extract(null), paper = 52 },
  { path = "buffered total (insert + extract)", ours = insert_min + extract(null), paper = 232 },
  { path = "+ one argument word read through the base", ours = extract(arg1) - extract(null), paper = "4.5" },
  { path = "insert, all in C (buffer.c)", ours = allc.by[INSERT][1], paper = "-" },
  { path = "null extract, all in C", ours = extract(allc), paper = "-" },
}, { "path", "ours", "paper" }, { path = "path", ours = "lanaikit", paper = "paper" }, { "l", "r", "r" }))
print(("buffered / direct: %d / %d = %.2f (paper 232 / 87 = 2.67)")
  :format(insert_min + extract(null), user.receive, (insert_min + extract(null)) / user.receive))
