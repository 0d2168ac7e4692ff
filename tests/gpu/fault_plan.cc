#include "fault_plan.h"

#include <cstdlib>
#include <cstring>

namespace flashccl_gpu_test::fault {

namespace {

struct ScenarioName {
  const char* name;
  Scenario scenario;
};
const ScenarioName kScenarios[] = {{"none", Scenario::kNone},   {"sleep", Scenario::kSleep},
                                   {"kill", Scenario::kKill},   {"other", Scenario::kOther},
                                   {"hold", Scenario::kHold}};

bool parseNumber(const char* text, double* value) {
  char* end = nullptr;
  *value = std::strtod(text, &end);
  return end != text && *end == '\0';
}

}  // namespace

const char* scenarioName(Scenario scenario) {
  for (const ScenarioName& entry : kScenarios) {
    if (entry.scenario == scenario) return entry.name;
  }
  return "none";
}

bool parseFaultPlan(int argc, char** argv, FaultPlan* plan, std::string* error) {
  for (int i = 1; i < argc; i += 2) {
    const std::string key = argv[i];
    if (i + 1 >= argc) {
      *error = key + " needs a value";
      return false;
    }
    const char* value = argv[i + 1];
    double number = 0;
    const bool numeric = parseNumber(value, &number);
    if (key == "--id-file") {
      plan->idFile = value;
    } else if (key == "--scenario") {
      bool known = false;
      for (const ScenarioName& entry : kScenarios) {
        if (std::strcmp(value, entry.name) == 0) {
          plan->scenario = entry.scenario;
          known = true;
        }
      }
      if (!known) {
        *error = std::string("--scenario ") + value + ": expected none, sleep, kill, other or hold";
        return false;
      }
    } else if (!numeric || number < 0) {
      *error = key + " " + value + ": expected a number >= 0 (options: --rank --nranks --id-file "
                                   "--calls --scenario --culprit --at --deadline --pause-every --pause-ms "
                                   "--shrink-calls --app-timeout --also-exclude)";
      return false;
    } else if (key == "--rank") {
      plan->rank = static_cast<int>(number);
    } else if (key == "--nranks") {
      plan->nranks = static_cast<int>(number);
    } else if (key == "--calls") {
      plan->calls = static_cast<uint64_t>(number);
    } else if (key == "--culprit") {
      plan->culprit = static_cast<int>(number);
    } else if (key == "--at") {
      plan->at = static_cast<uint64_t>(number);
    } else if (key == "--deadline") {
      plan->deadlineS = number;
    } else if (key == "--pause-every") {
      plan->pauseEvery = static_cast<uint64_t>(number);
    } else if (key == "--pause-ms") {
      plan->pauseMs = static_cast<uint64_t>(number);
    } else if (key == "--shrink-calls") {
      plan->shrinkCalls = static_cast<uint64_t>(number);
    } else if (key == "--app-timeout") {
      plan->appTimeoutS = number;
    } else if (key == "--also-exclude") {
      plan->alsoExclude = static_cast<int>(number);
    } else {
      *error = "unknown option " + key;
      return false;
    }
  }
  if (plan->nranks < 2 || plan->rank < 0 || plan->rank >= plan->nranks || plan->idFile.empty()) {
    *error = "need --rank R --nranks N (N >= 2, 0 <= R < N) and --id-file PATH";
    return false;
  }
  if (plan->scenario != Scenario::kNone &&
      (plan->culprit < 0 || plan->culprit >= plan->nranks || plan->at < 1 || plan->at > plan->calls)) {
    *error = "--culprit must be a rank and --at a call between 1 and --calls";
    return false;
  }
  const int excluded = plan->alsoExclude >= 0 ? 2 : 1;
  if (plan->shrinkCalls > 0 && (plan->nranks - excluded < 2 || plan->scenario == Scenario::kNone)) {
    *error = "--shrink-calls needs a fault (--scenario) and two ranks or more left in the child";
    return false;
  }
  if (plan->alsoExclude >= plan->nranks || plan->alsoExclude == plan->culprit) {
    *error = "--also-exclude must be a rank other than the culprit";
    return false;
  }
  return true;
}

Step stepAt(const FaultPlan& plan, uint64_t call) {
  if (plan.rank != plan.culprit || call != plan.at) return Step::kAllReduce;
  switch (plan.scenario) {
    case Scenario::kNone: return Step::kAllReduce;
    case Scenario::kSleep: return Step::kSleepForever;
    case Scenario::kKill: return Step::kKillSelf;
    case Scenario::kOther: return Step::kAllGather;
    case Scenario::kHold: return Step::kHoldThenAllReduce;
  }
  return Step::kAllReduce;
}

uint64_t pauseMsAfter(const FaultPlan& plan, uint64_t call) {
  const bool pauses = plan.rank == plan.culprit && plan.pauseEvery > 0 && call % plan.pauseEvery == 0;
  return pauses ? plan.pauseMs : 0;
}

size_t countAt(uint64_t call) { return size_t{1024} << (call % 5); }

CheckedColl checkedCollAt(uint64_t call) { return static_cast<CheckedColl>(call % 3); }

const char* checkedCollName(CheckedColl coll) {
  switch (coll) {
    case CheckedColl::kAllReduce: return "AllReduce";
    case CheckedColl::kAllGather: return "AllGather";
    case CheckedColl::kReduceScatter: return "ReduceScatter";
  }
  return "?";
}

float sendValue(int rank, uint64_t call, size_t i) {
  return static_cast<float>((rank + 1) * 16 + static_cast<int>((i + call) % 13));
}

float expectedValue(CheckedColl coll, int rank, int nranks, uint64_t call, size_t count, size_t i) {
  float sum = 0;
  switch (coll) {
    case CheckedColl::kAllReduce:
      for (int r = 0; r < nranks; ++r) sum += sendValue(r, call, i);
      return sum;
    case CheckedColl::kAllGather:
      return sendValue(static_cast<int>(i / count), call, i % count);
    case CheckedColl::kReduceScatter:
      for (int r = 0; r < nranks; ++r) sum += sendValue(r, call, static_cast<size_t>(rank) * count + i);
      return sum;
  }
  return sum;
}

}  // namespace flashccl_gpu_test::fault
