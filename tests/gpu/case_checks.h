// What every GPU check of a collective against NCCL shares: whether flashccl is meant to run the
// call (so a case that silently went to NCCL fails), and how its output is compared with NCCL's:
// bitwise with 2 ranks and for integers (wrapping sums do not depend on order); within a stated
// tolerance for floating types above 2 ranks, where NCCL's ring adds in another order than our
// fixed rank order.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <nccl.h>

namespace flashccl_gpu_test {

// True when flashccl's own kernels take the call (everything but fp8 avg and fp8 PreMulSum,
// which go to NCCL because its exact fp8 recipe there is not pinned down).
bool flashcclShouldRun(ncclDataType_t dtype, ncclRedOp_t op, bool gather);

// The relative tolerance for `dtype` among `nranks` contributions: 0 where results must be
// bitwise equal.
double toleranceFor(ncclDataType_t dtype, int nranks);

// "" when `ours` matches `theirs` (bitwise, or within toleranceFor), else where and by how much.
std::string compareWithNccl(const std::vector<char>& ours, const std::vector<char>& theirs, ncclDataType_t dtype,
                            int nranks);

// The first byte where two buffers differ, as "element i (byte b)", or "".
std::string firstDifference(const std::vector<char>& a, const std::vector<char>& b, size_t elementSize);

}  // namespace flashccl_gpu_test
