#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "trace/seqlock_slot.h"
#include "trace/trace_clock.h"

namespace flashccl {
namespace {

// 32 words, all equal when written: a reader that ever sees two different words got a mix of
// two writes.
struct Wide {
  uint64_t words[32];
};

TEST(SeqlockSlot, EmptyUntilWritten) {
  SeqlockSlot<Wide> slot;
  Wide out;
  EXPECT_FALSE(slot.read(&out));
  Wide value;
  for (uint64_t& word : value.words) word = 7;
  slot.write(value);
  ASSERT_TRUE(slot.read(&out));
  EXPECT_EQ(out.words[31], 7u);
}

TEST(SeqlockSlot, AReaderGetsOneWriteOrNothing) {
  SeqlockSlot<Wide> slot;
  std::atomic<bool> done{false};
  std::atomic<uint64_t> reads{0}, torn{0};
  std::thread reader([&] {
    Wide out;
    while (!done.load(std::memory_order_relaxed)) {
      if (!slot.read(&out, 1)) continue;
      for (uint64_t word : out.words) {
        if (word != out.words[0]) {
          torn.fetch_add(1);
          break;
        }
      }
      reads.fetch_add(1, std::memory_order_relaxed);
    }
  });
  const int64_t end = monotonicNs() + 300LL * 1000000;
  Wide value;
  for (uint64_t n = 1; monotonicNs() < end || reads.load() < 1000; ++n) {
    for (uint64_t& word : value.words) word = n;
    slot.write(value);
  }
  done.store(true);
  reader.join();
  EXPECT_EQ(torn.load(), 0u);
  EXPECT_GE(reads.load(), 1000u);
}

}  // namespace
}  // namespace flashccl
