#include "fault_injection.h"

#include <cstdlib>
#include <sstream>
#include <vector>

#include "log.h"
#include "settings.h"

namespace flashccl::softbond {

bool parseFaultPlan(const std::string& text, FaultPlan* plan, std::string* error) {
  FaultPlan parsed;
  std::vector<std::string> fields;
  std::stringstream stream(text);
  for (std::string field; std::getline(stream, field, ':');) fields.push_back(field);
  if (fields.empty() || fields[0].rfind("rail", 0) != 0 || fields[0].size() < 5) {
    *error = "must start with rail<N>";
    return false;
  }
  char* end = nullptr;
  long rail = strtol(fields[0].c_str() + 4, &end, 10);
  if (*end != '\0' || rail < 0 || rail > 3) {
    *error = "rail<N> needs N from 0 to 3";
    return false;
  }
  parsed.rail = static_cast<int>(rail);
  bool sawAfter = false;
  for (size_t i = 1; i < fields.size(); ++i) {
    const std::string& field = fields[i];
    if (field.rfind("after=", 0) == 0) {
      if (!parseByteSize(field.substr(6), &parsed.afterBytes)) {
        *error = "after= needs a size such as 64M";
        return false;
      }
      sawAfter = true;
    } else if (field.rfind("for=", 0) == 0) {
      long ms = strtol(field.c_str() + 4, &end, 10);
      if (*end != '\0' || ms < 0) {
        *error = "for= needs milliseconds";
        return false;
      }
      parsed.forMs = ms;
    } else if (field == "reset") {
      parsed.reset = true;
    } else {
      *error = "unknown field '" + field + "'";
      return false;
    }
  }
  if (!sawAfter) {
    *error = "missing after=<size>";
    return false;
  }
  *plan = parsed;
  return true;
}

void FaultInjector::arm(const FaultPlan& plan) {
  plan_ = plan;
  putBytes_ = 0;
  triggeredAtMs_ = -1;
}

void FaultInjector::countPut(int rail, uint64_t bytes, int64_t nowMs) {
  if (rail != plan_.rail) return;
  uint64_t total = putBytes_.fetch_add(bytes, std::memory_order_relaxed) + bytes;
  int64_t expected = -1;
  if (total >= plan_.afterBytes && triggeredAtMs_.compare_exchange_strong(expected, nowMs)) {
    SB_WARN("test fault (FLASHCCL_SOFTBOND_FAULT): rail %d %s after %llu bytes%s", rail,
            plan_.reset ? "sockets closed" : "goes dark", (unsigned long long)total,
            plan_.reset || plan_.forMs < 0 ? "" : " for a while");
  }
}

bool FaultInjector::dark(int rail, int64_t nowMs) const {
  if (rail != plan_.rail || plan_.reset) return false;
  int64_t at = triggeredAtMs_.load(std::memory_order_relaxed);
  if (at < 0) return false;
  return plan_.forMs < 0 || nowMs < at + plan_.forMs;
}

int FaultInjector::resetEpoch(int rail) const {
  if (rail != plan_.rail || !plan_.reset) return 0;
  return triggeredAtMs_.load(std::memory_order_relaxed) >= 0 ? 1 : 0;
}

FaultInjector& faultInjector() {
  static FaultInjector injector;
  return injector;
}

}  // namespace flashccl::softbond
