#include "trace/refusal_log.h"

#include "base/log.h"
#include "trace/trace_clock.h"

namespace flashccl {

namespace {
constexpr int64_t kWindowNs = 60LL * 1000000000;
}

void RefusalLog::refuse(const std::string& line) {
  flushSuppressed();
  if (windowStartNs_ == 0) windowStartNs_ = monotonicNs();
  if (printed_ < limit_) {
    ++printed_;
    FCCL_WARN("%s", line.c_str());
  } else {
    ++suppressed_;
  }
}

void RefusalLog::flushSuppressed() {
  if (windowStartNs_ == 0 || monotonicNs() - windowStartNs_ < kWindowNs) return;
  if (suppressed_ > 0) {
    FCCL_WARN("trace side channel: %d more connections refused in the last minute (not shown)",
              suppressed_);
  }
  windowStartNs_ = 0;
  printed_ = 0;
  suppressed_ = 0;
}

}  // namespace flashccl
