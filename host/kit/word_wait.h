// Waiting on words of a process's memory: what a host program's polling loop over a few
// flag words does (a completion word, the next slot of each of several receive rings, a
// credit count), as a memory watch. The process notices a deposit the moment the DMA that
// makes a condition true lands, as polling would, and nothing runs per DMA but these
// compares (a Lua condition function costs a call into Lua on every DMA to the node).
#pragma once

#include "host/model/address_space.h"
#include "host/model/process.h"
#include "sim/node.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace lanaikit::kit {

// One condition on the big-endian 32-bit word at `va`, compared unsigned with `value`.
struct WordWait {
  enum class Test : uint8_t { Equal, NotEqual, AtLeast, Below };
  host::VirtAddr va = 0;
  Test test = Test::Equal;
  uint32_t value = 0;
  bool holds(uint32_t word) const;
};

// "==", "~=" (or "!="), ">=", "<"; throws std::invalid_argument naming the others.
WordWait::Test word_test(const std::string& name);

// The index of the first condition (in the order given) that holds, at once if one does,
// else when a write to the node's memory makes one hold. Throws std::invalid_argument for
// an empty list.
host::Op<size_t> wait_words(host::Process& p, sim::Node& node, const host::AddressSpace& space,
                            std::vector<WordWait> conditions);

} // namespace lanaikit::kit
