// The side table follows the communicators' lifecycle, against a GPU-free fake NCCL
// (fake_nccl.c): blocking, grouped and non-blocking inits, splits, InitAll, destroy with the
// counters printed, nested calls from NCCL into its own exports, and functions the loaded NCCL
// lacks.
#include <gtest/gtest.h>

#include <nccl.h>

#include <map>
#include <string>
#include <vector>

#include "run_child.h"

namespace flashccl {
namespace {

using testing::ChildResult;
using testing::runChild;

// Set-up ran (the context left Pending): ready, or disabled when the transport cannot come up
// on this GPU-free machine. Which of the two is the transport's business, not the lifecycle's.
bool setUpRan(const std::string& state) {
  return state.rfind("1,", 0) == 0 || state.rfind("-1,", 0) == 0;
}

ChildResult runWithFake(const std::vector<std::string>& commands,
                        std::map<std::string, std::string> env = {},
                        const char* fake = FLASHCCL_FAKE_NCCL) {
  std::vector<std::string> argv = {FLASHCCL_PROBE_FLASHCCL};
  argv.insert(argv.end(), commands.begin(), commands.end());
  env.emplace("FLASHCCL_NCCL_LIBRARY", fake);
  env.emplace("NCCL_DEBUG", "INFO");
  ChildResult r = runChild(argv, env);
  EXPECT_EQ(r.exitCode, 0) << "signal " << r.signal << "\n" << r.out << r.err;
  return r;
}

TEST(Lifecycle, BlockingInitIsSetUpAndDestroyPrintsCounters) {
  ChildResult r = runWithFake({"init", "state", "allreduce", "allgather", "reducescatter",
                               "allreduce0", "last", "plan", "destroy", "state",
                               "fakecalls:ncclAllReduce"});
  EXPECT_EQ(r.value("init"), "0");
  EXPECT_TRUE(setUpRan(r.value("state"))) << r.value("state");
  EXPECT_EQ(r.value("allreduce"), "0");
  EXPECT_EQ(r.value("allreduce0"), "0");
  EXPECT_EQ(r.value("last"), "NCCL");  // no algorithm can run here: everything falls back
  EXPECT_EQ(r.value("plan").rfind("NCCL,", 0), 0u) << r.value("plan");
  EXPECT_EQ(r.value("destroy"), "0");
  EXPECT_EQ(r.value("fakecalls:ncclAllReduce"), "2");
  EXPECT_NE(r.err.find("rank 0/2 cudaDev 0: flashccl "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("destroyed: intercepted 0; forwarded 4 ("), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("zero count 1)"), std::string::npos) << r.err;
  // After destroy the comm is unknown again.
  EXPECT_NE(r.out.find("state=-2,"), std::string::npos) << r.out;
}

TEST(Lifecycle, NestedCallsFromNcclAreForwardedUntouched) {
  // The fake's ncclBcast calls ncclAllReduce through the PLT, which lands in our export: that
  // call must reach NCCL without being counted as the app's.
  ChildResult r = runWithFake({"init", "allreduce", "bcast", "destroy", "fakecalls:ncclAllReduce"});
  EXPECT_EQ(r.value("bcast"), "0");
  EXPECT_EQ(r.value("fakecalls:ncclAllReduce"), "2");
  EXPECT_NE(r.err.find("destroyed: intercepted 0; forwarded 1 ("), std::string::npos) << r.err;
}

TEST(Lifecycle, GroupedInitIsSetUpAtTheOutermostGroupEnd) {
  ChildResult r = runWithFake({"groupstart", "groupstart", "init", "state", "groupend", "state",
                               "groupend", "state"});
  std::vector<std::string> states;
  size_t at = 0;
  while ((at = r.out.find("state=", at)) != std::string::npos) {
    states.push_back(r.out.substr(at + 6, r.out.find('\n', at) - at - 6));
    at += 6;
  }
  ASSERT_EQ(states.size(), 3u) << r.out;
  EXPECT_EQ(states[0], "0,");  // pending inside the group
  EXPECT_EQ(states[1], "0,");  // still pending: not the outermost end
  EXPECT_TRUE(setUpRan(states[2])) << states[2];
  // NCCL refuses ncclCommCount & co. on a comm that is not ready: we must not have asked.
  EXPECT_EQ(r.err.find("cannot read rank/size"), std::string::npos) << r.err;
}

TEST(Lifecycle, NonBlockingInitIsSetUpAtItsFirstCall) {
  // The fake's non-blocking comm is ready at the second ncclCommGetAsyncError. Set-up does not
  // happen whenever this rank happens to see it ready (its peers would not be in set-up then):
  // the first collective waits for NCCL and sets the communicator up, at the same point of the
  // call sequence on every rank.
  ChildResult r = runWithFake({"initnb", "state", "allreduce", "state", "destroy"});
  EXPECT_EQ(r.value("initnb"), std::to_string(ncclInProgress));
  EXPECT_NE(r.out.find("state=0,\nallreduce=0\nstate="), std::string::npos) << r.out;
  EXPECT_TRUE(setUpRan(r.out.substr(r.out.rfind("state=") + 6))) << r.out;
  EXPECT_EQ(r.err.find("set-up not done yet"), std::string::npos) << r.err;
}

TEST(Lifecycle, NonBlockingCommFirstUsedInAGroupIsSetUpAtTheGroupEnd) {
  ChildResult r = runWithFake({"initnb", "groupstart", "allreduce", "state", "groupend", "state", "destroy"});
  EXPECT_EQ(r.value("groupend"), "0");
  // The call went into NCCL's group (the fake refuses it as NCCL refuses a comm still starting).
  EXPECT_NE(r.out.find("\nstate=0,\ngroupend=0\nstate="), std::string::npos) << r.out;
  EXPECT_TRUE(setUpRan(r.out.substr(r.out.rfind("state=") + 6))) << r.out;
  EXPECT_NE(r.err.find("forwarded 1 (set-up not done yet 1)"), std::string::npos) << r.err;
}

TEST(Lifecycle, InitAllSplitAndAbort) {
  ChildResult r = runWithFake({"initall", "state", "split", "state", "splitnocolor", "abort",
                               "state", "destroy", "destroy"});
  EXPECT_EQ(r.value("initall"), "0");
  EXPECT_EQ(r.value("split"), "0");
  EXPECT_EQ(r.value("splitnocolor"), "0,null");
  EXPECT_EQ(r.value("abort"), "0");
  EXPECT_EQ(r.out.find("state=0,"), std::string::npos) << r.out;  // none left pending
  EXPECT_EQ(r.out.find("state=-2,"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("rank 0/2 cudaDev 0: flashccl "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("rank 1/2 cudaDev 1: flashccl "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("rank 0/1 cudaDev 0: flashccl "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("aborted: intercepted 0; forwarded 0"), std::string::npos) << r.err;
}

TEST(Lifecycle, PreMulSumIsForwarded) {
  ChildResult r = runWithFake({"init", "premulsum", "destroy"});
  EXPECT_EQ(r.value("premulsum"), "0");
  EXPECT_EQ(r.value("redopdestroy"), "0");
}

TEST(Lifecycle, FunctionsTheLoadedNcclLacks) {
  ChildResult r = runWithFake({"init", "state", "revoke", "shrink", "lla2a",
                               "realfn:ncclCommRevoke", "realfn:ncclAllReduce",
                               "realfn:pncclAllReduce", "state"});
  EXPECT_EQ(r.value("revoke"), std::to_string(ncclInvalidUsage));
  EXPECT_EQ(r.value("shrink"), std::to_string(ncclInvalidUsage));
  EXPECT_EQ(r.value("lla2a"), "-1");
  EXPECT_EQ(r.value("realfn:ncclCommRevoke"), "null");
  EXPECT_EQ(r.value("realfn:ncclAllReduce"), "found");
  EXPECT_EQ(r.value("realfn:pncclAllReduce"), "found");
  // A refused revoke changes nothing.
  EXPECT_EQ(r.out.substr(r.out.rfind("state=")), "state=" + r.value("state") + "\n");
  EXPECT_NE(r.err.find("ncclCommRevoke is not available in the loaded NCCL 2.28.3"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("ncclCommShrink is not available"), std::string::npos) << r.err;
}

// Recovery (docs/trace.md, "Recovery"), against an NCCL that has ncclCommShrink: the shrink with
// NCCL_SHRINK_ABORT reaches NCCL, the child is registered and set up like any new communicator
// (here: disabled for its single rank, with the reason) and forwards, the parent is still
// destroyed afterwards.
TEST(Lifecycle, ShrinkAbortStopsTheParentAndSetsUpTheChild) {
  ChildResult r = runWithFake({"init", "shrinkabort", "state", "firststate", "faultcalls:ncclCommShrinkAbort",
                               "allreduce", "destroy", "destroy"},
                              {{"FAKE_NCCL_VERSION", "22809"}}, FLASHCCL_FAKE_NCCL_2289);
  EXPECT_EQ(r.value("shrinkabort"), "0");
  EXPECT_EQ(r.value("faultcalls:ncclCommShrinkAbort"), "1");
  EXPECT_TRUE(setUpRan(r.value("state"))) << r.value("state");  // the child: not unknown, not pending
  // The parent forwards from now on (here it already did: the fake cannot carry the set-up
  // exchange, so the first reason stays).
  EXPECT_EQ(r.value("firststate").rfind("-1,", 0), 0u) << r.value("firststate");
  EXPECT_EQ(r.value("allreduce"), "0");  // the child forwards
  EXPECT_NE(r.out.find("destroy=0\ndestroy=0\n"), std::string::npos) << r.out;  // child, then parent
}

// ncclCommRevoke reaches NCCL after our kernels on the communicator were told to stop; the
// communicator forwards from then on.
TEST(Lifecycle, RevokeStopsOursAndReachesNccl) {
  ChildResult r = runWithFake({"init", "revoke", "state", "faultcalls:ncclCommRevoke", "destroy"},
                              {{"FAKE_NCCL_VERSION", "22809"}}, FLASHCCL_FAKE_NCCL_2289);
  EXPECT_EQ(r.value("revoke"), "0");
  EXPECT_EQ(r.value("faultcalls:ncclCommRevoke"), "1");
  EXPECT_EQ(r.value("state").rfind("-1,", 0), 0u) << r.value("state");
  EXPECT_EQ(r.value("destroy"), "0");
}

// FLASHCCL_DISABLE=1 forwards every call, but the rank still joins the set-up exchange of each
// new communicator (saying it is disabled), so peers without the variable fall back with it
// instead of waiting for it there forever.
TEST(Lifecycle, DisabledRankForwardsEverythingButJoinsSetUp) {
  ChildResult r = runWithFake({"init", "state", "allreduce", "destroy",
                               "fakecalls:ncclAllReduce"},
                              {{"FLASHCCL_DISABLE", "1"}});
  EXPECT_EQ(r.value("state").rfind("-1,", 0), 0u) << r.value("state");
  EXPECT_EQ(r.value("allreduce"), "0");
  EXPECT_EQ(r.value("fakecalls:ncclAllReduce"), "1");
  EXPECT_NE(r.err.find("destroyed: intercepted 0; forwarded 0"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace flashccl
