#include "progress_watchdog.h"

#include <chrono>
#include <map>
#include <mutex>
#include <thread>

#include "gpu_errors.h"

namespace flashccl {
namespace perf {
namespace {

using Clock = std::chrono::steady_clock;

struct SlotState {
  Clock::time_point since;
  std::string what;
};

std::mutex gMutex;
std::map<int, SlotState> gSlots;
bool gStarted = false;

void watch(int timeoutSeconds, int exitStatus) {
  const auto limit = std::chrono::seconds(timeoutSeconds);
  for (;;) {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    std::lock_guard<std::mutex> lock(gMutex);
    const Clock::time_point now = Clock::now();
    for (const auto& slot : gSlots) {
      if (now - slot.second.since < limit) continue;
      std::string message = "no progress for " + std::to_string(timeoutSeconds) +
                            " s: a collective is probably hung (raise the limit with -T if the "
                            "step is just slow). Last step of each rank:";
      for (const auto& other : gSlots) {
        const long seconds = static_cast<long>(
            std::chrono::duration_cast<std::chrono::seconds>(now - other.second.since).count());
        message += "\n  rank " + std::to_string(other.first) + " (" + std::to_string(seconds) +
                   " s ago): " + other.second.what;
      }
      exitWithFailure(message, exitStatus);
    }
  }
}

}  // namespace

void startProgressWatchdog(int timeoutSeconds, int exitStatus) {
  std::lock_guard<std::mutex> lock(gMutex);
  if (gStarted) return;
  gStarted = true;
  std::thread(watch, timeoutSeconds, exitStatus).detach();
}

void reportProgress(int slot, const std::string& what) {
  std::lock_guard<std::mutex> lock(gMutex);
  gSlots[slot] = SlotState{Clock::now(), what};
}

void finishProgress(int slot) {
  std::lock_guard<std::mutex> lock(gMutex);
  gSlots.erase(slot);
}

}  // namespace perf
}  // namespace flashccl
