#include "passthrough_cases.h"

#include <algorithm>

#include "test_inputs.h"

namespace flashccl_gpu_test::passthrough {
namespace {

bool reduces(Collective c) {
  return c == Collective::kAllReduce || c == Collective::kReduce ||
         c == Collective::kReduceScatter || c == Collective::kGroupedBatch;
}

bool hasRoot(Collective c) {
  return c == Collective::kBroadcast || c == Collective::kReduce || c == Collective::kGather ||
         c == Collective::kScatter;
}

// AlltoAll has no in-place form in nccl.h; send/recv and the batch keep inputs and outputs apart.
bool hasInPlaceForm(Collective c) {
  return c != Collective::kAlltoAll && c != Collective::kSendRecv && c != Collective::kGroupedBatch;
}

}  // namespace

const char* collectiveName(Collective c) {
  switch (c) {
    case Collective::kAllReduce: return "AllReduce";
    case Collective::kBroadcast: return "Broadcast";
    case Collective::kReduce: return "Reduce";
    case Collective::kAllGather: return "AllGather";
    case Collective::kReduceScatter: return "ReduceScatter";
    case Collective::kAlltoAll: return "AlltoAll";
    case Collective::kGather: return "Gather";
    case Collective::kScatter: return "Scatter";
    case Collective::kSendRecv: return "SendRecv";
    case Collective::kGroupedBatch: return "GroupedBatch";
  }
  return "?";
}

size_t inputCount(const Case& c, int nranks) {
  const size_t n = static_cast<size_t>(nranks);
  switch (c.collective) {
    case Collective::kReduceScatter:
    case Collective::kAlltoAll:
    case Collective::kScatter:
    case Collective::kGroupedBatch: return n * c.count;
    default: return c.count;
  }
}

size_t outputCount(const Case& c, int nranks) {
  const size_t n = static_cast<size_t>(nranks);
  switch (c.collective) {
    case Collective::kAllGather:
    case Collective::kAlltoAll:
    case Collective::kGather: return n * c.count;
    // The batch's outputs side by side: AllReduce, Reduce, Broadcast and ReduceScatter one count
    // each, AllGather and AlltoAll nranks counts each, the ring exchange one count.
    case Collective::kGroupedBatch: return (5 + 2 * n) * c.count;
    default: return c.count;
  }
}

size_t workCount(const Case& c, int nranks) {
  return std::max(inputCount(c, nranks), outputCount(c, nranks));
}

size_t inPlaceInputOffset(const Case& c, int rank) {
  const bool ownSlot = c.collective == Collective::kAllGather || c.collective == Collective::kGather;
  return ownSlot ? static_cast<size_t>(rank) * c.count : 0;
}

size_t inPlaceOutputOffset(const Case& c, int rank) {
  const bool ownSlot =
      c.collective == Collective::kReduceScatter || c.collective == Collective::kScatter;
  return ownSlot ? static_cast<size_t>(rank) * c.count : 0;
}

std::string describe(const Case& c) {
  std::string text = std::string(collectiveName(c.collective)) + " " + typeName(c.dtype);
  if (reduces(c.collective)) text += std::string(" ") + opName(c.op);
  if (hasRoot(c.collective)) text += " root=" + std::to_string(c.root);
  text += " count=" + std::to_string(c.count);
  text += c.inPlace ? " in-place" : " out-of-place";
  return text;
}

std::vector<Case> buildCases(int nranks, const std::vector<size_t>& counts) {
  // The brief's minimum (float, bf16, int32, int8, double) plus half: every element width and
  // both 16-bit float formats.
  const ncclDataType_t dtypes[] = {ncclFloat32, ncclBfloat16, ncclFloat16,
                                   ncclInt32,   ncclInt8,     ncclFloat64};
  const ncclRedOp_t ops[] = {ncclSum, ncclProd, ncclMax, ncclMin, ncclAvg};
  const Collective collectives[] = {
      Collective::kAllReduce, Collective::kBroadcast,     Collective::kReduce,
      Collective::kAllGather, Collective::kReduceScatter, Collective::kAlltoAll,
      Collective::kGather,    Collective::kScatter,       Collective::kSendRecv,
      Collective::kGroupedBatch};
  // Rank 0 and the last rank as roots: NCCL's rings and trees start from the root, so a
  // non-zero root takes a different path than the default one.
  const std::vector<int> roots = nranks > 1 ? std::vector<int>{0, nranks - 1} : std::vector<int>{0};

  std::vector<Case> cases;
  for (Collective coll : collectives) {
    // The batch mixes collectives; one op (sum) keeps its share of the list small.
    const size_t opCount = coll == Collective::kGroupedBatch ? 1 : reduces(coll) ? std::size(ops) : 1;
    const std::vector<int> collRoots = hasRoot(coll) ? roots : std::vector<int>{-1};
    for (ncclDataType_t dtype : dtypes) {
      for (size_t count : counts) {
        for (size_t o = 0; o < opCount; ++o) {
          for (int root : collRoots) {
            for (bool inPlace : {false, true}) {
              if (inPlace && !hasInPlaceForm(coll)) continue;
              cases.push_back(Case{coll, dtype, ops[o], root, count, inPlace});
            }
          }
        }
      }
    }
  }
  return cases;
}

}  // namespace flashccl_gpu_test::passthrough
