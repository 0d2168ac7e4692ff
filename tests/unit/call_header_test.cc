// The call header kernels compare before they touch a peer's data: equal exactly when ranks may
// pair their calls, and readable in the WARN that names what each side called.
#include <set>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "runtime/call_header.h"

namespace flashccl {
namespace {

bool sameHeader(const CallHeader& a, const CallHeader& b) {
  return a.sequence == b.sequence && a.shape == b.shape && a.count == b.count;
}

const CollCall kBase{CollKind::kAllReduce, nullptr, nullptr, 1000, ncclFloat32, ncclSum, 0, nullptr, nullptr};

TEST(CallHeader, IgnoresWhatEachRankMayChooseForItself) {
  CollCall other = kBase;
  other.send = &other;  // buffers (and so placement) and streams are each rank's own business
  other.recv = &other;
  other.stream = reinterpret_cast<cudaStream_t>(0x10);
  EXPECT_TRUE(sameHeader(makeCallHeader(kBase, 7, 1), makeCallHeader(other, 7, 1)));
  // PreMulSum ops are handles each rank numbers itself: one class.
  CollCall a = kBase, b = kBase;
  a.op = static_cast<ncclRedOp_t>(ncclNumOps);
  b.op = static_cast<ncclRedOp_t>(ncclNumOps + 3);
  EXPECT_TRUE(sameHeader(makeCallHeader(a, 7, 1), makeCallHeader(b, 7, 1)));
  // AllGather has no op.
  a = kBase;
  b = kBase;
  a.kind = b.kind = CollKind::kAllGather;
  b.op = ncclMax;
  EXPECT_TRUE(sameHeader(makeCallHeader(a, 7, 1), makeCallHeader(b, 7, 1)));
}

TEST(CallHeader, DiffersInEveryFieldRanksMustShare) {
  const CallHeader base = makeCallHeader(kBase, 7, 1);
  CollCall other = kBase;
  other.count = 1001;
  EXPECT_FALSE(sameHeader(base, makeCallHeader(other, 7, 1)));
  other = kBase;
  other.dtype = ncclBfloat16;
  EXPECT_FALSE(sameHeader(base, makeCallHeader(other, 7, 1)));
  other = kBase;
  other.op = ncclMax;
  EXPECT_FALSE(sameHeader(base, makeCallHeader(other, 7, 1)));
  other = kBase;
  other.kind = CollKind::kReduceScatter;
  EXPECT_FALSE(sameHeader(base, makeCallHeader(other, 7, 1)));
  EXPECT_FALSE(sameHeader(base, makeCallHeader(kBase, 8, 1)));  // another point of the sequence
  EXPECT_FALSE(sameHeader(base, makeCallHeader(kBase, 7, 2)));  // another algorithm chosen
  other.count = (size_t{1} << 40) + 1000;  // counts are carried whole, not hashed
  other.kind = kBase.kind;
  EXPECT_FALSE(sameHeader(base, makeCallHeader(other, 7, 1)));
}

TEST(CallHeader, DistinctOverEveryKindTypeAndOp) {
  std::set<std::tuple<uint32_t, uint64_t>> seen;
  size_t made = 0;
  for (int kind = 0; kind < kNumCollKinds; ++kind) {
    for (int dtype = 0; dtype < ncclNumTypes; ++dtype) {
      for (int op = 0; op <= ncclNumOps; ++op) {
        if (kind == static_cast<int>(CollKind::kAllGather) && op > 0) continue;
        const CollCall call{static_cast<CollKind>(kind), nullptr, nullptr, 42, static_cast<ncclDataType_t>(dtype),
                            static_cast<ncclRedOp_t>(op), 0, nullptr, nullptr};
        const CallHeader h = makeCallHeader(call, 1, 1);
        seen.insert({h.shape, h.count});
        ++made;
      }
    }
  }
  EXPECT_EQ(seen.size(), made);
}

TEST(CallHeader, DescribesTheCall) {
  EXPECT_EQ(describeCallHeader(makeCallHeader(kBase, 6, 1)), "AllReduce(1000 x float, sum)");
  CollCall gather = kBase;
  gather.kind = CollKind::kAllGather;
  gather.count = 1024;
  EXPECT_EQ(describeCallHeader(makeCallHeader(gather, 6, 1)), "AllGather(1024 x float)");
  CollCall premul = kBase;
  premul.kind = CollKind::kReduceScatter;
  premul.dtype = ncclBfloat16;
  premul.op = static_cast<ncclRedOp_t>(ncclNumOps + 1);
  EXPECT_EQ(describeCallHeader(makeCallHeader(premul, 6, 1)), "ReduceScatter(1000 x bfloat16, premulsum)");
}

TEST(CallHeader, MismatchLineNamesBothSidesAndTheSequence) {
  CollCall gather = kBase;
  gather.kind = CollKind::kAllGather;
  gather.count = 1024;
  CollCall reduce = kBase;
  reduce.count = 1024;
  DeviceErrorRecord record{};
  record.code = kDeviceErrorCallMismatch;
  record.peer = 1;
  record.launch = 5;
  record.mine = makeCallHeader(reduce, 6, 1);
  record.theirs = makeCallHeader(gather, 6, 2);
  const std::string line = describeMismatch(reinterpret_cast<void*>(0x1234), 0, record);
  EXPECT_NE(line.find("comm 0x1234"), std::string::npos) << line;
  EXPECT_NE(line.find("at call 6"), std::string::npos) << line;
  EXPECT_NE(line.find("rank 0 AllReduce(1024 x float, sum) vs rank 1 AllGather(1024 x float)"), std::string::npos)
      << line;
  EXPECT_NE(line.find("ncclInvalidUsage"), std::string::npos) << line;

  record.theirs = makeCallHeader(reduce, 7, 1);  // the peer made a call more (or fewer) before
  EXPECT_NE(describeMismatch(nullptr, 0, record).find("rank 1 was at call 7"), std::string::npos);
  record.theirs = makeCallHeader(reduce, 6, 2);  // same call, another algorithm
  EXPECT_NE(describeMismatch(nullptr, 0, record).find("different algorithms"), std::string::npos);
}

}  // namespace
}  // namespace flashccl
