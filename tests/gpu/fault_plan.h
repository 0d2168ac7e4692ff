// What one rank of a fault-localization job does (fault_rank.cc): the options, and at each call
// whether it runs normally or commits the job's fault. No CUDA here, so the CPU tests check it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace flashccl_gpu_test::fault {

enum class Scenario {
  kNone,   // every rank calls every AllReduce
  kSleep,  // the culprit sleeps instead of calling (stuck in data loading)
  kKill,   // the culprit kills itself with SIGKILL
  kOther,  // the culprit calls AllGather where the others call AllReduce
  kHold,   // the culprit's stream is held by a kernel that never ends, queued before the call
};

struct FaultPlan {
  int rank = -1;
  int nranks = 0;
  std::string idFile;       // rank 0 writes the ncclUniqueId there, the others read it
  uint64_t calls = 1000;
  Scenario scenario = Scenario::kNone;
  int culprit = 1;
  uint64_t at = 50;         // the call at which the culprit misbehaves (1-based)
  double deadlineS = 600;   // a wait that lasts this long ends the rank with "no error seen"
  // A healthy job's slow rank: the culprit pauses pauseMs after every pauseEvery-th call (0: never).
  uint64_t pauseEvery = 0;
  uint64_t pauseMs = 0;
};

enum class Step {
  kAllReduce,         // the normal call
  kSleepForever,
  kKillSelf,
  kAllGather,
  kHoldThenAllReduce,
};

// Parses `fault_rank --rank R --nranks N --id-file PATH [--calls K] [--scenario S]
// [--culprit C] [--at A] [--deadline S] [--pause-every P --pause-ms M]`. False, with a one-line
// reason, on anything else.
bool parseFaultPlan(int argc, char** argv, FaultPlan* plan, std::string* error);
const char* scenarioName(Scenario scenario);

// What this rank does at call `call` (1-based).
Step stepAt(const FaultPlan& plan, uint64_t call);
// How long this rank pauses after call `call` completed (milliseconds, 0: not at all).
uint64_t pauseMsAfter(const FaultPlan& plan, uint64_t call);
// Elements per rank at call `call`: sizes change from call to call (1 K to 16 K floats).
size_t countAt(uint64_t call);

}  // namespace flashccl_gpu_test::fault
