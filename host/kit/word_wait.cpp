#include "host/kit/word_wait.h"

#include "base/bytes.h"

#include <functional>
#include <stdexcept>

namespace lanaikit::kit {

bool WordWait::holds(uint32_t word) const {
  switch (test) {
  case Test::Equal: return word == value;
  case Test::NotEqual: return word != value;
  case Test::AtLeast: return word >= value;
  case Test::Below: return word < value;
  }
  return false;
}

WordWait::Test word_test(const std::string& name) {
  if (name == "==") return WordWait::Test::Equal;
  if (name == "~=" || name == "!=") return WordWait::Test::NotEqual;
  if (name == ">=") return WordWait::Test::AtLeast;
  if (name == "<") return WordWait::Test::Below;
  throw std::invalid_argument("unknown word test '" + name + "' (use ==, ~=, >= or <)");
}

// GCC 12 destroys a lambda temporary written inside a co_await expression twice: the
// condition is a named std::function, built outside the co_await.
host::Op<size_t> wait_words(host::Process& p, sim::Node& node, const host::AddressSpace& space,
                            std::vector<WordWait> conditions) {
  if (conditions.empty()) throw std::invalid_argument("wait_words: no condition to wait for");
  size_t found = 0;
  const std::function<bool()> any = [&space, &conditions, &found] {
    for (size_t i = 0; i < conditions.size(); ++i) {
      uint8_t b[4];
      space.copy_out(conditions[i].va, b);
      if (conditions[i].holds(load_be32(b))) {
        found = i;
        return true;
      }
    }
    return false;
  };
  if (!any()) co_await p.wait(node.memory_watch(), any);
  co_return found;
}

} // namespace lanaikit::kit
