// A node: a host (physical memory, PCI bus, driver, processes) and its NIC chip, wired
// together. The cluster (sim/cluster.h) builds nodes from a platform and connects their
// chips to the network.
//
// The host's view of the card is the PCI memory window: SRAM at offset 0 and the register
// block (vm/chip_regs.h offsets), and the protocol register blocks attached to the chip
// (vm/register_block.h, by chip address). PIO writes are posted (the process pays the issue cost
// and goes on; the write lands pio_write_latency later, behind whatever holds the bus);
// PIO reads block the process for the whole bus transaction. One PCI transaction moves
// one 32-bit word, as a Pentium without write combining issues them.
#pragma once

#include "assembler/image.h"
#include "host/model/memory.h"
#include "host/model/pci.h"
#include "host/model/process.h"
#include "event/kernel.h"
#include "vm/chip.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace lanaikit::sim {

struct NodeParams {
  vm::ChipParams chip;
  host::PciParams pci;
  uint64_t host_pages = 16384; // 64 MB of host physical memory
  // From the chip raising its interrupt line to the driver's handler running.
  Time interrupt_latency = 0;
};

class Node final : public vm::HostPort {
public:
  Node(Kernel& kernel, NodeParams params, uint32_t index, std::string name);
  ~Node() override;

  uint32_t index() const { return index_; }
  const std::string& name() const { return name_; }
  Kernel& kernel() { return kernel_; }
  vm::Chip& chip() { return chip_; }
  host::PciBus& pci() { return pci_; }
  host::PhysicalMemory& memory() { return memory_; }
  const NodeParams& params() const { return params_; }

  // Notified after each DMA write into host memory, and after each interrupt delivery.
  host::WaitList& memory_watch() { return memory_watch_; }
  host::WaitList& interrupt_watch() { return interrupt_watch_; }

  // --- the driver ---
  // Stops the CPU, copies the image into SRAM (bss zeroed), resets the CPU at its entry.
  // Untimed: it happens at set-up, before the experiment. Throws if the image does not
  // fit the chip's SRAM.
  void load(const assembler::FirmwareImage& image);
  // The same, keeping the image so that report() names functions and lines.
  void load(std::shared_ptr<const assembler::FirmwareImage> image);
  void start() { chip_.start(); }
  // The chip's report (vm::Chip::report) and, after a fault, the call stack: with symbols
  // (and lines, with -g) if the image was kept, as addresses otherwise.
  std::string report() const;
  // Whether an image was loaded (a chip started without one runs zeroed SRAM: an illegal
  // instruction at its first cycle).
  bool loaded() const { return loaded_; }
  // Runs after interrupt_latency each time the chip raises its interrupt line (the
  // driver's handler: it may read registers and wake processes).
  void on_interrupt(std::function<void()> fn) { on_interrupt_ = std::move(fn); }
  uint64_t interrupts_delivered() const { return interrupts_; }

  // --- host processes ---
  host::Process& spawn(std::string name, host::Process::Body body, Time at = 0);
  std::vector<std::unique_ptr<host::Process>>& processes() { return processes_; }

  // --- PIO, from a process at its local time ---
  void pio_write(host::Process& p, uint32_t sram_offset, std::span<const uint8_t> bytes);
  // A 32-bit value stored big-endian at a word offset, as the firmware reads it.
  void pio_write_word(host::Process& p, uint32_t sram_offset, uint32_t value);
  void pio_write_reg(host::Process& p, uint32_t reg_offset, uint32_t value);
  host::Process::Awaiter pio_read_word(host::Process& p, uint32_t sram_offset, uint32_t& out);
  host::Process::Awaiter pio_read_reg(host::Process& p, uint32_t reg_offset, uint32_t& out);
  // A poll of one SRAM word by PIO (pio_poll_word), kept by the caller while it waits.
  struct WordPoll {
    uint32_t sram_offset = 0;
    std::function<bool(uint32_t)> until; // the value the poll waits for
    uint32_t* value = nullptr;           // each read's value is stored here
    uint64_t* reads = nullptr;           // and counted here
  };
  // Reads the word again and again until `until` holds for a value read: the PCI
  // transactions, values and times of a loop of pio_read_word calls, one after the other.
  // After a read that does not satisfy it, the process would resume (an event at now) only
  // to post the next read (another): when nothing else is due at now (sim::Kernel::
  // next_in_line) and nobody waits for the bus, the read's completion posts the next read
  // itself, two events fewer per read (a full VMMC send queue polls hundreds of times per
  // message). Only the kernel's event count and trace hash see the difference. May return
  // before `until` holds (after a read made the long way): the caller loops.
  host::Process::Awaiter pio_poll_word(host::Process& p, WordPoll& poll);
  // A protocol's register block (vm/register_block.h), by its chip address in the block
  // window: the same PCI transactions, hence the same timing, as the LANai registers.
  void pio_write_block(host::Process& p, uint32_t addr, uint32_t value);
  host::Process::Awaiter pio_read_block(host::Process& p, uint32_t addr, uint32_t& out);

  // --- vm::HostPort (the chip's side) ---
  bool host_range_ok(uint64_t addr, uint64_t len) const override;
  void dma(bool to_host, uint32_t len, std::function<void()> done) override;
  void host_read(uint64_t addr, std::span<uint8_t> out) override;
  void host_write(uint64_t addr, std::span<const uint8_t> in) override;
  void interrupt(bool asserted) override;

private:
  void poll_read(host::Process& p, WordPoll& poll);
  // The big-endian word at an SRAM offset, as the host's read returns it.
  uint32_t sram_word(uint32_t sram_offset);

  Kernel& kernel_;
  NodeParams params_;
  uint32_t index_;
  std::string name_;
  host::PhysicalMemory memory_;
  host::PciBus pci_;
  vm::Chip chip_;
  std::shared_ptr<const assembler::FirmwareImage> image_; // for report(); may be null
  host::WaitList memory_watch_, interrupt_watch_;
  std::function<void()> on_interrupt_;
  uint64_t interrupts_ = 0;
  bool loaded_ = false;
  std::vector<std::unique_ptr<host::Process>> processes_;
};

} // namespace lanaikit::sim
