-- The NIC a cluster carries is the experiment's choice: the platform's own `nic`, another
-- platform's (DART's and UDM's testbeds have none), or an explicit table.

-- The platform's own: vmmc.lua's LANai 4.1.
local own = lk.cluster{ platform = "vmmc", nodes = 2 }:node(0):nic()
assert(own.clock_hz == 33000000 and own.sram_bytes == 256 * 1024, "vmmc's own nic")

-- Another testbed's NIC by name: Hamlyn's LANai 4.0 on VMMC's PCI and Myrinet.
local n = lk.cluster{ platform = "vmmc", nic = "hamlyn", nodes = 2 }:node(1):nic()
assert(n.clock_hz == 40000000 and n.sram_bytes == 512 * 1024, "hamlyn's nic: " .. n.clock_hz)

-- A platform without `nic` and without `pci` (DART): the named NIC brings its card's PCI.
local dart = lk.cluster{ platform = "dart", nic = "vmmc", nodes = 2 }
assert(dart:node(0):nic().clock_hz == 33000000, "DART's operation logic on vmmc's LANai")
-- A platform table as the NIC.
local p = lk.platform("vmmc")
p.nic.clock_hz = 66000000
assert(lk.cluster{ platform = "dart", nic = p, nodes = 2 }:node(0):nic().clock_hz == 66000000)

-- An explicit nic table is checked like a platform's `nic` section; it brings no PCI, so
-- the platform must have one.
local e = lk.cluster{ platform = "vmmc", nic = { clock_hz = 50e6, sram_bytes = 1 << 20,
                                                 cost = { mmio = 3 } }, nodes = 2 }:node(0):nic()
assert(e.clock_hz == 50000000 and e.sram_bytes == 1 << 20 and e.cost.mmio == 3 and e.cost.base == 1)

local function err_of(args)
  local ok, err = pcall(lk.cluster, args)
  assert(not ok, "expected an error")
  return err
end
local err = err_of{ platform = "dart", nodes = 2 }
assert(err:find("lk.cluster: argument 1 field 'platform': platform 'dart' describes no LANai-style NIC", 1, true)
       and err:find('nic = "vmmc"', 1, true), err)
err = err_of{ platform = "udm", nodes = 2 }
assert(err:find("platform 'udm' describes no LANai-style NIC", 1, true), err)
err = err_of{ platform = "dart", nic = { clock_hz = 33e6, sram_bytes = 262144 }, nodes = 2 }
assert(err:find("field 'nic': platform 'dart' has no `pci` section and the explicit nic table brings none", 1, true), err)
err = err_of{ platform = "vmmc", nic = { clock_hz = 33e6, sram_bytes = 262144, cost = { mmoi = 2 } } }
assert(err:find("field 'nic': nic.lua: nic.cost.mmoi: unknown field", 1, true), err)
err = err_of{ platform = "vmmc", nic = { clock_hz = 33e6 } }
assert(err:find("nic.sram_bytes: expected a number, got nothing", 1, true), err)
err = err_of{ platform = "vmmc", nic = 33 }
assert(err:find("field 'nic': expected a platform name, a platform table or a nic table", 1, true), err)
err = err_of{ platform = "vmmc", nic = "nosuch" }
assert(err:find("nosuch.lua", 1, true), err)
print("nic_choice: ok")
