// NCCL 2.29-2.32 functions through the shim over an NCCL that lacks them (the fake NCCL reports
// 2.28.3): the per-call config form of AllReduce and ncclCommGrow.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "run_child.h"

namespace flashccl {
namespace {

using testing::ChildResult;
using testing::runChild;

ChildResult runWithFake(const std::vector<std::string>& commands) {
  std::vector<std::string> argv = {FLASHCCL_PROBE_FLASHCCL};
  argv.insert(argv.end(), commands.begin(), commands.end());
  ChildResult r = runChild(argv, {{"FLASHCCL_NCCL_LIBRARY", FLASHCCL_FAKE_NCCL}, {"NCCL_DEBUG", "INFO"}});
  EXPECT_EQ(r.exitCode, 0) << "signal " << r.signal << "\n" << r.out << r.err;
  return r;
}

TEST(NewerApi, AllReduceConfigWithoutAConfigIsThePlainCall) {
  ChildResult r = runWithFake({"init", "allreduceconfig0", "destroy", "fakecalls:ncclAllReduce"});
  EXPECT_EQ(r.value("allreduceconfig0"), "0");
  EXPECT_EQ(r.value("fakecalls:ncclAllReduce"), "1");  // NCCL's plain ncclAllReduce ran it
}

TEST(NewerApi, AllReduceConfigOverAnNcclWithoutItIsRefusedWithAWarn) {
  ChildResult r = runWithFake({"init", "allreduceconfig", "destroy", "fakecalls:ncclAllReduce"});
  EXPECT_EQ(r.value("allreduceconfig"), "5");  // ncclInvalidUsage
  EXPECT_EQ(r.value("fakecalls:ncclAllReduce"), "0");  // never quietly run without its config
  const std::string warn = "ncclAllReduceConfig is not available in the loaded NCCL 2.28.3";
  EXPECT_NE(r.err.find(warn), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find(warn), r.err.rfind(warn)) << "one WARN\n" << r.err;
}

TEST(NewerApi, CommGrowOverAnNcclWithoutItIsRefusedWithAWarn) {
  ChildResult r = runWithFake({"init", "grow", "destroy"});
  EXPECT_EQ(r.value("grow"), "5");
  EXPECT_NE(r.err.find("ncclCommGrow is not available in the loaded NCCL 2.28.3"), std::string::npos)
      << r.err;
  EXPECT_EQ(r.value("destroy"), "0");
}

}  // namespace
}  // namespace flashccl
