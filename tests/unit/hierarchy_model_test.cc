// `flashccl plan --nodes N --gpus-per-node G --nic-gbps B`: the cost model across nodes
// (tools/plan/hierarchy_model.h, docs/multinode.md) and its place in the plan's output.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "plan/hierarchy_model.h"
#include "plan/plan.h"

namespace flashccl {
namespace {

int runPlanArgs(std::vector<std::string> args, std::string* out, std::string* err) {
  args.insert(args.begin(), "plan");
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(&arg[0]);
  std::ostringstream o, e;
  const int code = runPlan(static_cast<int>(argv.size()), argv.data(), o, e);
  *out = o.str();
  *err = e.str();
  return code;
}

ClusterShape twoHgxNodes() {
  ClusterShape s;
  s.nodes = 2;
  s.gpusPerNode = 8;
  s.nicGBps = 50;  // 400 Gb/s
  return s;
}

TEST(HierarchyModel, TimesGrowWithSizeAndNcclHasNoTreeForGathers) {
  const ClusterShape s = twoHgxNodes();
  for (CollKind kind : {CollKind::kAllReduce, CollKind::kAllGather, CollKind::kReduceScatter}) {
    double previous = 0;
    for (size_t bytes = 8; bytes <= (size_t(1) << 30); bytes *= 4) {
      const double ring = ncclRingUs(kind, bytes, s);
      EXPECT_GE(ring, previous) << collKindName(kind) << " " << bytes;
      previous = ring;
    }
  }
  EXPECT_GT(ncclTreeUs(CollKind::kAllReduce, 4096, s), 0);
  EXPECT_LT(ncclTreeUs(CollKind::kAllGather, 4096, s), 0);
  EXPECT_LT(ncclTreeUs(CollKind::kReduceScatter, 4096, s), 0);
}

TEST(HierarchyModel, OnlyTheAlgorithmsAcrossNodesHaveAModel) {
  const ClusterShape s = twoHgxNodes();
  EXPECT_LT(hierarchyUs("allreduce_twoshot", CollKind::kAllReduce, 4096, s), 0);
  EXPECT_LT(hierarchyUs("allgather_hier", CollKind::kAllReduce, 4096, s), 0);
  for (const char* name : {"allreduce_hier", "allreduce_hier_oneshot"}) {
    EXPECT_GT(hierarchyUs(name, CollKind::kAllReduce, 4096, s), 0) << name;
  }
  EXPECT_GT(hierarchyUs("allgather_hier", CollKind::kAllGather, 4096, s), 0);
  EXPECT_GT(hierarchyUs("reducescatter_hier", CollKind::kReduceScatter, 4096, s), 0);
}

TEST(HierarchyModel, LargeAllReduceIsBoundByTheSlowerStream) {
  // Each rail carries 2(N-1)/N of a 1/G shard through one NIC; the call's stream moves (G-1)/G of
  // the buffer twice over NVLink (reduce-scatter, all-gather). Pipelined, the slower of the two
  // sets the time, and little is lost to filling the pipeline.
  ClusterShape s = twoHgxNodes();
  const size_t bytes = size_t(1) << 30;
  for (double nic : {12.5, 50.0, 100.0}) {
    s.nicGBps = nic;
    const double rail = 2.0 * (s.nodes - 1) / s.nodes * (static_cast<double>(bytes) / s.gpusPerNode) / (nic * 1e3);
    const double nvlink = 2.0 * (s.gpusPerNode - 1) / s.gpusPerNode * static_cast<double>(bytes) / (s.nvlinkGBps * 1e3);
    const double bound = std::max(rail, nvlink);
    const double modelled = hierarchyUs("allreduce_hier", CollKind::kAllReduce, bytes, s);
    EXPECT_GE(modelled, bound) << nic;
    EXPECT_LT(modelled, 1.25 * bound) << nic;
  }
}

TEST(HierarchyModel, PlanPrintsTheModelBesideNccl) {
  unsetenv("FLASHCCL_ALGO");
  unsetenv("FLASHCCL_TOPO_FILE");
  // The rows across nodes are model bands, not measurements: armed only when asked for.
  setenv("FLASHCCL_UNMEASURED", "1", 1);
  std::string out, err;
  const int code = runPlanArgs({"--topo", "hopper-8gpu-nvswitch", "--nodes", "2", "--gpus-per-node", "8",
                                "--nic-gbps", "400", "-b", "8", "-e", "64M", "-f", "8"},
                               &out, &err);
  unsetenv("FLASHCCL_UNMEASURED");
  EXPECT_EQ(code, 0) << err << out;
  EXPECT_NE(out.find("communicator:  16 ranks (--nodes x --gpus-per-node), 2 nodes"), std::string::npos) << out;
  EXPECT_NE(out.find("model across nodes: 2 nodes x 8 GPUs, 400 Gb/s NIC per GPU"), std::string::npos) << out;
  EXPECT_NE(out.find("docs/multinode.md"), std::string::npos) << out;
  // The selection's choice, with its modelled time and NCCL's, on every size line.
  const size_t model = out.find("model across nodes");
  const std::string section = out.substr(model);
  EXPECT_NE(section.find("  8 B        allreduce_hier_oneshot"), std::string::npos) << section;
  EXPECT_NE(section.find("allreduce_hier "), std::string::npos) << section;
  EXPECT_NE(section.find("allgather_hier"), std::string::npos) << section;
  EXPECT_NE(section.find("reducescatter_hier"), std::string::npos) << section;
}

TEST(HierarchyModel, WithoutOptingInTheModelShowsWhatTheLibraryRuns) {
  unsetenv("FLASHCCL_ALGO");
  unsetenv("FLASHCCL_TOPO_FILE");
  unsetenv("FLASHCCL_UNMEASURED");
  std::string out, err;
  const int code = runPlanArgs({"--topo", "hopper-2gpu-nvlink", "--nodes", "2", "--gpus-per-node", "2", "-b", "4M",
                                "-e", "4M", "--coll", "allreduce"},
                               &out, &err);
  EXPECT_EQ(code, 0) << err << out;
  // The plan names the unmeasured row it left out; the model's "runs" column is NCCL's, while
  // NCCL's own models are still printed beside it.
  EXPECT_NE(out.find("allreduce_hier left out, selection table not measured on this machine class"), std::string::npos)
      << out;
  const size_t model = out.find("model across nodes");
  ASSERT_NE(model, std::string::npos) << out;
  const std::string section = out.substr(model);
  EXPECT_NE(section.find("  4 MiB      nccl "), std::string::npos) << section;
  EXPECT_EQ(section.find("allreduce_hier"), std::string::npos) << section;
}

TEST(HierarchyModel, BadOptionsAreUsageErrors) {
  // Usage errors of the shared command line (docs/cli.md): one line naming the option, status 2.
  std::string out, err;
  EXPECT_EQ(runPlanArgs({"--nodes", "2", "--gpus-per-node", "x"}, &out, &err), 2);
  EXPECT_EQ(err.rfind("flashccl plan: ", 0), 0u) << err;
  EXPECT_NE(err.find("--gpus-per-node"), std::string::npos) << err;
  EXPECT_NE(err.find("x"), std::string::npos) << err;
  EXPECT_EQ(runPlanArgs({"--nodes", "2", "--gpus-per-node", "0"}, &out, &err), 2);
  EXPECT_NE(err.find("--gpus-per-node"), std::string::npos) << err;
  EXPECT_EQ(runPlanArgs({"--nodes", "2", "--gpus-per-node", "8", "--nic-gbps", "0"}, &out, &err), 2);
  EXPECT_NE(err.find("--nic-gbps"), std::string::npos) << err;
  EXPECT_EQ(runPlanArgs({"--nodes", "2", "--gpus-per-node", "8", "--nic-gbps", "fast"}, &out, &err), 2);
  EXPECT_NE(err.find("--nic-gbps"), std::string::npos) << err;
  EXPECT_EQ(err.find('\n'), err.size() - 1) << err;
  // Both appear in --help.
  EXPECT_EQ(runPlanArgs({"--help"}, &out, &err), 0);
  EXPECT_NE(out.find("--gpus-per-node"), std::string::npos) << out;
  EXPECT_NE(out.find("--nic-gbps"), std::string::npos) << out;
}

}  // namespace
}  // namespace flashccl
