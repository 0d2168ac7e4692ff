// Every ncclResult_t export that flashccl does not need to see: generated from
// NCCL_RESULT_FUNCTIONS, each a plain forward to the real NCCL plus its pnccl alias.
//
// The exports that do side-table work are written by hand (exports_lifecycle.cc,
// exports_collectives.cc, exports_forwarded_calls.cc, exports_group.cc, exports_redop.cc) and
// listed here, so the generator skips them: a name in both places is
// a duplicate-symbol link error, a name in neither fails the symbol parity test.
#include "shim/forward.h"

#define FLASHCCL_HANDWRITTEN_ncclCommInitRank FLASHCCL_PROBE
#define FLASHCCL_HANDWRITTEN_ncclCommInitRankConfig FLASHCCL_PROBE
#define FLASHCCL_HANDWRITTEN_ncclCommInitAll FLASHCCL_PROBE
#define FLASHCCL_HANDWRITTEN_ncclCommInitRankScalable FLASHCCL_PROBE
#define FLASHCCL_HANDWRITTEN_ncclCommSplit FLASHCCL_PROBE
#define FLASHCCL_HANDWRITTEN_ncclCommShrink FLASHCCL_PROBE
#define FLASHCCL_HANDWRITTEN_ncclCommDestroy FLASHCCL_PROBE
#define FLASHCCL_HANDWRITTEN_ncclCommAbort FLASHCCL_PROBE
#define FLASHCCL_HANDWRITTEN_ncclCommRevoke FLASHCCL_PROBE
#define FLASHCCL_HANDWRITTEN_ncclCommGetAsyncError FLASHCCL_PROBE
#define FLASHCCL_HANDWRITTEN_ncclGroupStart FLASHCCL_PROBE
#define FLASHCCL_HANDWRITTEN_ncclGroupEnd FLASHCCL_PROBE
#define FLASHCCL_HANDWRITTEN_ncclGroupSimulateEnd FLASHCCL_PROBE
#define FLASHCCL_HANDWRITTEN_ncclRedOpCreatePreMulSum FLASHCCL_PROBE
#define FLASHCCL_HANDWRITTEN_ncclRedOpDestroy FLASHCCL_PROBE
#define FLASHCCL_HANDWRITTEN_ncclAllReduce FLASHCCL_PROBE
#define FLASHCCL_HANDWRITTEN_ncclAllGather FLASHCCL_PROBE
#define FLASHCCL_HANDWRITTEN_ncclReduceScatter FLASHCCL_PROBE
#define FLASHCCL_HANDWRITTEN_ncclReduce FLASHCCL_PROBE
#define FLASHCCL_HANDWRITTEN_ncclBcast FLASHCCL_PROBE
#define FLASHCCL_HANDWRITTEN_ncclBroadcast FLASHCCL_PROBE
#define FLASHCCL_HANDWRITTEN_ncclAlltoAll FLASHCCL_PROBE
#define FLASHCCL_HANDWRITTEN_ncclGather FLASHCCL_PROBE
#define FLASHCCL_HANDWRITTEN_ncclScatter FLASHCCL_PROBE
#define FLASHCCL_HANDWRITTEN_ncclSend FLASHCCL_PROBE
#define FLASHCCL_HANDWRITTEN_ncclRecv FLASHCCL_PROBE
#define FLASHCCL_HANDWRITTEN_ncclCommGrow FLASHCCL_PROBE
#define FLASHCCL_HANDWRITTEN_ncclAllReduceConfig FLASHCCL_PROBE
#define FLASHCCL_HANDWRITTEN_ncclAllGatherConfig FLASHCCL_PROBE
#define FLASHCCL_HANDWRITTEN_ncclReduceScatterConfig FLASHCCL_PROBE
#define FLASHCCL_HANDWRITTEN_ncclReduceConfig FLASHCCL_PROBE
#define FLASHCCL_HANDWRITTEN_ncclBroadcastConfig FLASHCCL_PROBE
#define FLASHCCL_HANDWRITTEN_ncclAlltoAllConfig FLASHCCL_PROBE
#define FLASHCCL_HANDWRITTEN_ncclGatherConfig FLASHCCL_PROBE
#define FLASHCCL_HANDWRITTEN_ncclScatterConfig FLASHCCL_PROBE

// FLASHCCL_IS_HANDWRITTEN(name) is 1 when FLASHCCL_HANDWRITTEN_<name> is defined above, else 0:
// the probe expands to two arguments, shifting the 1 into second place.
#define FLASHCCL_PROBE ~, 1
#define FLASHCCL_SECOND(a, b, ...) b
#define FLASHCCL_IS_PROBE(...) FLASHCCL_SECOND(__VA_ARGS__, 0, ~)
#define FLASHCCL_IS_HANDWRITTEN(name) FLASHCCL_IS_PROBE(FLASHCCL_HANDWRITTEN_##name)
#define FLASHCCL_CAT(a, b) FLASHCCL_CAT_(a, b)
#define FLASHCCL_CAT_(a, b) a##b

#define FLASHCCL_DEFINE_0(name, params, args)                     \
  FLASHCCL_EXPORT ncclResult_t name params { FLASHCCL_FORWARD(name, args); } \
  FLASHCCL_ALIAS(ncclResult_t, name, params)
#define FLASHCCL_DEFINE_1(name, params, args)

#define FLASHCCL_DEFINE_FORWARD(name, params, args) \
  FLASHCCL_CAT(FLASHCCL_DEFINE_, FLASHCCL_IS_HANDWRITTEN(name))(name, params, args)

NCCL_RESULT_FUNCTIONS(FLASHCCL_DEFINE_FORWARD)
