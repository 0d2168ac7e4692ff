// Selection rows and the Selector, with stand-in algorithms.
#include <gtest/gtest.h>

#include <string>

#include "algo/algorithm.h"
#include "runtime/comm_context.h"
#include "topo/selection_table.h"
#include "select/selector.h"

namespace flashccl {
namespace {

class StubAlgorithm : public Algorithm {
 public:
  StubAlgorithm(const char* name, CollKind kind, size_t maxCount = ~size_t{0})
      : name_(name), kind_(kind), maxCount_(maxCount) {}
  const char* name() const override { return name_; }
  CollKind kind() const override { return kind_; }
  bool supports(const CollCall& call, const CommView&) const override {
    return call.count <= maxCount_;
  }
  ncclResult_t launch(const CollCall&, const CommView&) override { return ncclSuccess; }

 private:
  const char* name_;
  CollKind kind_;
  size_t maxCount_;
};

StubAlgorithm gOneShot("stub_oneshot", CollKind::kAllReduce, 1024);
StubAlgorithm gTwoShot("stub_twoshot", CollKind::kAllReduce);
StubAlgorithm gGather("stub_gather", CollKind::kAllGather);

std::shared_ptr<Algorithm> resolveStub(const std::string& name, int, int, std::string* error) {
  for (Algorithm* a : {static_cast<Algorithm*>(&gOneShot), static_cast<Algorithm*>(&gTwoShot),
                       static_cast<Algorithm*>(&gGather)}) {
    if (name == a->name()) return unownedAlgorithm(a);
  }
  *error = "unknown algorithm '" + name + "'";
  return nullptr;
}

SelectionRow row(CollKind kind, size_t minBytes, size_t maxBytes, const char* algorithm,
                 int nranks = 0) {
  SelectionRow r;
  r.kind = kind;
  r.minBytes = minBytes;
  r.maxBytes = maxBytes;
  r.algorithm = algorithm;
  r.nranks = nranks;
  r.source = std::string("test:") + algorithm;
  return r;
}

CollCall allreduce(size_t count, bool inPlace = true) {
  static float buffers[2];
  return CollCall{CollKind::kAllReduce, inPlace ? &buffers[0] : &buffers[1], &buffers[0], count,
                  ncclFloat32, ncclSum, 0, nullptr, nullptr};
}

TEST(SelectionRow, Matches) {
  SelectionRow r = row(CollKind::kAllReduce, 1024, 4096, "x", 2);
  EXPECT_TRUE(r.matches(CollKind::kAllReduce, 2, 1, 1024));
  EXPECT_TRUE(r.matches(CollKind::kAllReduce, 2, 1, 4096));
  EXPECT_FALSE(r.matches(CollKind::kAllReduce, 2, 1, 4097));
  EXPECT_FALSE(r.matches(CollKind::kAllReduce, 2, 1, 1023));
  EXPECT_FALSE(r.matches(CollKind::kAllReduce, 4, 1, 2048));
  EXPECT_FALSE(r.matches(CollKind::kAllGather, 2, 1, 2048));
  SelectionRow open = row(CollKind::kAllGather, 0, 0, "x");
  EXPECT_TRUE(open.matches(CollKind::kAllGather, 8, 2, size_t{1} << 40));
}

TEST(Selector, FirstMatchingSupportedRowWins) {
  SelectionTable table;
  table.rows = {row(CollKind::kAllReduce, 0, 64 << 10, "stub_oneshot"),
                row(CollKind::kAllReduce, 0, 0, "stub_twoshot"),
                row(CollKind::kAllReduce, 0, 0, "stub_oneshot", /*nranks=*/8)};
  std::string warnings;
  auto selector = Selector::build(table, "", 2, 1, resolveStub, &warnings);
  EXPECT_EQ(warnings, "");
  CommContext ctx(nullptr, 0, 2, -1, true);
  EXPECT_EQ(selector->choose(allreduce(256), ctx).algorithm, &gOneShot);
  // 2048 floats = 8 KiB: row 1 matches by size, but the algorithm refuses > 1024 elements.
  EXPECT_EQ(selector->choose(allreduce(2048), ctx).algorithm, &gTwoShot);
  EXPECT_EQ(selector->choose(allreduce(1 << 20), ctx).algorithm, &gTwoShot);
  Plan none = selector->choose(
      CollCall{CollKind::kReduceScatter, nullptr, nullptr, 4, ncclFloat32, ncclSum, 0, nullptr,
               nullptr},
      ctx);
  EXPECT_EQ(none.algorithm, nullptr);
  EXPECT_EQ(none.reason, reason::kNoRow);
}

TEST(Selector, NcclRowsAndUnknownNames) {
  SelectionTable table;
  table.rows = {row(CollKind::kAllReduce, 0, 1024, "nccl"),
                row(CollKind::kAllReduce, 0, 0, "does_not_exist"),
                row(CollKind::kAllReduce, 0, 0, "stub_gather")};
  std::string warnings;
  auto selector = Selector::build(table, "", 2, 1, resolveStub, &warnings);
  EXPECT_NE(warnings.find("does_not_exist"), std::string::npos) << warnings;
  EXPECT_NE(warnings.find("implements allgather, not allreduce"), std::string::npos) << warnings;
  CommContext ctx(nullptr, 0, 2, -1, true);
  Plan plan = selector->choose(allreduce(16), ctx);
  EXPECT_EQ(plan.algorithm, nullptr);
  EXPECT_EQ(plan.reason, reason::kForcedNccl);
  EXPECT_EQ(selector->choose(allreduce(1 << 20), ctx).reason, reason::kNoRow);
}

TEST(Selector, ForcedAlgorithms) {
  SelectionTable table;
  table.rows = {row(CollKind::kAllReduce, 0, 0, "stub_twoshot")};
  CommContext ctx(nullptr, 0, 2, -1, true);
  std::string warnings;
  auto forcedNccl = Selector::build(table, "nccl", 2, 1, resolveStub, &warnings);
  EXPECT_EQ(forcedNccl->choose(allreduce(16), ctx).reason, reason::kForcedNccl);
  auto forced = Selector::build(table, "allreduce:stub_oneshot", 2, 1, resolveStub, &warnings);
  EXPECT_EQ(forced->choose(allreduce(16), ctx).algorithm, &gOneShot);
  EXPECT_EQ(forced->choose(allreduce(4096), ctx).reason, reason::kUnsupported);
  EXPECT_NE(forced->fingerprint(), forcedNccl->fingerprint());
  warnings.clear();
  Selector::build(table, "bogus:stub_oneshot,allgather:stub_oneshot", 2, 1, resolveStub, &warnings);
  EXPECT_NE(warnings.find("unknown collective"), std::string::npos) << warnings;
  EXPECT_NE(warnings.find("implements allreduce, not allgather"), std::string::npos) << warnings;
}

TEST(Selector, DescribeListsRows) {
  SelectionTable table;
  table.rows = {row(CollKind::kAllReduce, 0, 1024, "stub_oneshot")};
  std::string warnings;
  auto selector = Selector::build(table, "", 2, 1, resolveStub, &warnings);
  EXPECT_NE(selector->describe().find("allreduce [0, 1024] -> stub_oneshot"), std::string::npos)
      << selector->describe();
}

}  // namespace
}  // namespace flashccl
