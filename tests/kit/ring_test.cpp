// The kit's sequenced queue (host/kit/ring.h) against real firmware: a host process fills a
// 4-entry SRAM queue by PIO with 64 entries (16 laps: the wrap), always ahead of the
// firmware (the producer waits on `consumed`: the overtaking case), and the firmware copies
// every entry out in order (tests/kit/fw/queue_consumer.fw). Built with the firmware
// publishing `consumed` before it copied, the same traffic loses entries: the test sees the
// class of bug VMMC's commit ed14907 fixed.
#include "lcp_bench.h"

#include "host/kit/ring.h"

#include <gtest/gtest.h>

namespace lanaikit {
namespace {

struct QueueRun {
  uint32_t entries = 0, wrong = 0;
  uint64_t consumed_reads = 0;
};

uint32_t value(uint32_t seq, uint32_t field) {
  return seq * 0x01000193u ^ (field + 1) * 0x9E3779B9u;
}

QueueRun run_queue(const std::vector<std::string>& defines) {
  const assembler::FirmwareImage img =
      test::build_firmware({test::source("tests/kit/fw/queue_consumer.fw")}, defines);
  test::LcpBench h(img, "lua-scripts/platforms/vmmc.lua", 1, "queue");
  const uint32_t entries = h.constant("ENTRIES");
  kit::SramQueue q(h.ref("q.entries"), "seq", h.ref("q.consumed"));
  EXPECT_EQ(q.slots(), h.constant("SLOTS"));
  h.start();
  bool posted = false;
  h.spawn(0, "producer", [&](host::Process& p) -> host::Task {
    sim::Node& node = h.node(0);
    const uint32_t a = h.offset("Entry", "a"), b = h.offset("Entry", "b"),
                   c = h.offset("Entry", "c");
    for (uint32_t k = 0; k < entries; ++k) {
      co_await q.acquire(p, node);
      const uint32_t at = q.entry(q.next_seq());
      node.pio_write_word(p, at + a, value(q.next_seq(), 0));
      node.pio_write_word(p, at + b, value(q.next_seq(), 1));
      node.pio_write_word(p, at + c, value(q.next_seq(), 2));
      q.publish(p, node);
    }
    posted = true;
  });
  h.run([&] { return posted && h.peek(0, "q.done") == 1; }, 50 * sim::kMillisecond);
  QueueRun r;
  r.consumed_reads = q.consumed_reads();
  for (uint32_t k = 0; k < entries; ++k) {
    const std::string e = "q.out[" + std::to_string(k) + "]";
    const uint32_t seq = uint32_t(h.peek(0, e + ".seq"));
    ++r.entries;
    if (seq != k + 1 || h.peek(0, e + ".a") != value(seq, 0) ||
        h.peek(0, e + ".b") != value(seq, 1) || h.peek(0, e + ".c") != value(seq, 2))
      ++r.wrong;
  }
  EXPECT_EQ(q.posted(), entries);
  EXPECT_EQ(q.peek_consumed(h.node(0)), entries);
  return r;
}

TEST(KitSramQueue, PublishAfterCopyDeliversEveryEntryAcrossWrapsAndOvertaking) {
  const QueueRun r = run_queue({});
  EXPECT_EQ(r.entries, 64u);
  EXPECT_EQ(r.wrong, 0u);
  // The producer ran into a full queue (it had to read `consumed`): the overtaking case
  // was exercised, not avoided.
  EXPECT_GT(r.consumed_reads, 16u);
}

TEST(KitSramQueue, PublishBeforeCopyIsCaught) {
  const QueueRun r = run_queue({"PUBLISH_FIRST=1"});
  EXPECT_EQ(r.entries, 64u);
  EXPECT_GT(r.wrong, 0u)
      << "publishing `consumed` before copying must let the producer overwrite entries";
}

} // namespace
} // namespace lanaikit
