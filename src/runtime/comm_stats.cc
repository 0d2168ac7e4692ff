#include "runtime/comm_stats.h"

#include <string>

namespace flashccl {

namespace {
// Counters past the last free slot land here; 24 slots are far more than there are algorithms and
// fallback reasons, so this only guards against a bug elsewhere.
const char* const kOtherKey = "other";
}  // namespace

void CommStats::bump(Slot* slots, const char* key) {
  for (int i = 0; i < kSlots - 1; ++i) {
    const char* current = slots[i].key.load(std::memory_order_acquire);
    if (current == nullptr) {
      // Claim the free slot; if another thread claimed it first, it may have claimed it for us.
      if (slots[i].key.compare_exchange_strong(current, key, std::memory_order_acq_rel) ||
          current == key) {
        slots[i].count.fetch_add(1, std::memory_order_relaxed);
        return;
      }
      continue;
    }
    if (current == key) {
      slots[i].count.fetch_add(1, std::memory_order_relaxed);
      return;
    }
  }
  Slot& last = slots[kSlots - 1];
  const char* expected = nullptr;
  last.key.compare_exchange_strong(expected, kOtherKey, std::memory_order_acq_rel);
  last.count.fetch_add(1, std::memory_order_relaxed);
}

uint64_t CommStats::read(const Slot* slots, const char* key) {
  for (int i = 0; i < kSlots; ++i) {
    if (slots[i].key.load(std::memory_order_acquire) == key) {
      return slots[i].count.load(std::memory_order_relaxed);
    }
  }
  return 0;
}

uint64_t CommStats::total(const Slot* slots) {
  uint64_t sum = 0;
  for (int i = 0; i < kSlots; ++i) sum += slots[i].count.load(std::memory_order_relaxed);
  return sum;
}

std::string CommStats::summary() const {
  auto describe = [](const char* what, const Slot* slots) {
    std::string text = std::string(what) + " " + std::to_string(total(slots));
    std::string parts;
    for (int i = 0; i < kSlots; ++i) {
      const char* key = slots[i].key.load(std::memory_order_acquire);
      uint64_t count = slots[i].count.load(std::memory_order_relaxed);
      if (key == nullptr || count == 0) continue;
      if (!parts.empty()) parts += ", ";
      parts += std::string(key) + " " + std::to_string(count);
    }
    if (!parts.empty()) text += " (" + parts + ")";
    return text;
  };
  return describe("intercepted", intercepted_) + "; " + describe("forwarded", forwarded_);
}

}  // namespace flashccl
