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
  // Recovery (issue 27): a survivor that sees its call fail shrinks the communicator without the
  // culprit (ncclCommShrink, NCCL_SHRINK_ABORT) and runs this many checked calls on the child
  // (0: it aborts and exits, as before).
  uint64_t shrinkCalls = 0;
  // The application's own timeout: a call not done after this many seconds makes it revoke the
  // communicator itself (ncclCommRevoke; 0: it waits for the watchdog's verdict or deadlineS).
  double appTimeoutS = 0;
  // A rank the survivors exclude too (-1: none), e.g. the culprit's node-mate when a whole node is
  // cut out; it leaves the job (aborts its communicator, exits 0) when its call fails.
  int alsoExclude = -1;
};

enum class Step {
  kAllReduce,         // the normal call
  kSleepForever,
  kKillSelf,
  kAllGather,
  kHoldThenAllReduce,
};

// Parses `fault_rank --rank R --nranks N --id-file PATH [--calls K] [--scenario S]
// [--culprit C] [--at A] [--deadline S] [--pause-every P --pause-ms M] [--shrink-calls K]
// [--app-timeout S] [--also-exclude R]`. False, with a one-line
// reason, on anything else.
bool parseFaultPlan(int argc, char** argv, FaultPlan* plan, std::string* error);
const char* scenarioName(Scenario scenario);

// What this rank does at call `call` (1-based).
Step stepAt(const FaultPlan& plan, uint64_t call);
// How long this rank pauses after call `call` completed (milliseconds, 0: not at all).
uint64_t pauseMsAfter(const FaultPlan& plan, uint64_t call);
// Elements per rank at call `call`: sizes change from call to call (1 K to 16 K floats).
size_t countAt(uint64_t call);

// The survivors' checked calls on the child: the three collectives flashccl runs, in turn.
enum class CheckedColl { kAllReduce, kAllGather, kReduceScatter };
CheckedColl checkedCollAt(uint64_t call);
const char* checkedCollName(CheckedColl coll);
// Element i of rank `rank`'s send buffer at checked call `call`: small integers, so that every
// sum is exact in float and a wrong, stale or missing contribution shows.
float sendValue(int rank, uint64_t call, size_t i);
// Element i of the result on rank `rank` of `nranks` for `coll` with `count` elements per rank
// (AllGather: count sent, count * nranks received; ReduceScatter: count * nranks sent).
float expectedValue(CheckedColl coll, int rank, int nranks, uint64_t call, size_t count, size_t i);

}  // namespace flashccl_gpu_test::fault
