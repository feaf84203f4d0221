// The Hamlyn device driver's part (paper 3.1): everything that needs the OS. It creates
// slots (message area, key, mode, metadata area, notification queue), notification queues
// and send termini (their send-buffer registers and sequence word) by writing the card's
// SRAM, with host memory allocated and wired in the node's physical memory. Set-up is
// untimed, as a driver's is before an experiment. The card's layouts come from the image
// (struct HamlynCtl and friends, docs/hamlyn.md): nothing here repeats an offset.
#pragma once

#include "host/kit/image_view.h"
#include "sim/node.h"

#include <cstdint>

namespace lanaikit::hamlyn {

enum class SlotMode : uint32_t { Free = 0, Normal = 1, Paranoid = 2, ParanoidOneShot = 3 };

// A physically contiguous, wired region of a node's host memory (the workstation's I/O
// mapping makes a DMA buffer contiguous on the bus: paper section 4).
struct Region {
  uint64_t addr = 0;
  uint32_t bytes = 0;
};

struct SlotSpec {
  SlotMode mode = SlotMode::Normal;
  Region area;               // the message area
  uint64_t key = 0;
  Region meta;               // the metadata area (a multiple of 128 bytes)
  uint32_t nqcb = 0;
};

class Driver {
public:
  Driver(sim::Node& node, const kit::ImageView& view);

  // Zeroed, contiguous host memory (throws if the node's memory cannot supply it).
  Region allocate(uint32_t bytes);
  // A notification queue of `entries` 16-byte entries; returns its NQCB index.
  uint32_t open_nqcb(uint32_t index, uint32_t entries);
  const Region& nqcb_queue(uint32_t index) const { return queues_.at(index); }
  void open_slot(uint32_t index, const SlotSpec& spec);
  // Terminus t: its send buffers (tag = position, up to 8) and a host word for its
  // sequence number; opens it for the card's polling.
  void open_terminus(uint32_t t, const std::vector<Region>& send_buffers, uint64_t seq_word);
  // The card's node number, node count and handshake period, then go.
  void go(uint32_t node_index, uint32_t nnodes, uint32_t handshake_ticks = 0);

private:
  sim::Node& node_;
  const kit::ImageView& view_;
  std::vector<Region> queues_;
};

} // namespace lanaikit::hamlyn
