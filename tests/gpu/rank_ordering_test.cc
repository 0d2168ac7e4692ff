// Across processes: one communicator's kernels never overlap, however they are issued (captures
// on forked streams, graph replays beside eager calls, several communicators and streams at
// once), and large-message kernels finish beside a kernel that holds most of the GPU. Every
// call's result is compared with the real NCCL's.
#include <algorithm>
#include <functional>
#include <vector>

#include "case_checks.h"
#include "multiprocessor_hold.h"
#include "rank_process.h"
#include "test_inputs.h"

namespace flashccl_gpu_test {
namespace {

// One AllReduce's buffers: input, flashccl's output, NCCL's reference output.
struct Slot {
  size_t count = 0;
  ncclDataType_t dtype = ncclFloat32;
  char* in = nullptr;
  char* ours = nullptr;
  char* ref = nullptr;
  Slot(RankProcess& p, size_t n, ncclDataType_t t, uint32_t seed) : count(n), dtype(t) {
    const size_t bytes = n * typeSize(t);
    CUDA_EXPECT(cudaMalloc(&in, bytes));
    CUDA_EXPECT(cudaMalloc(&ours, bytes));
    CUDA_EXPECT(cudaMalloc(&ref, bytes));
    copyIn(in, makeInput(t, n, p.rank, seed));
    CUDA_EXPECT(cudaMemset(ours, 0xA5, bytes));
    // cudaMemset and a cudaMemcpy from pageable memory can return before they land, and they run
    // on the legacy stream, which the non-blocking streams of the calls do not wait for.
    CUDA_EXPECT(cudaDeviceSynchronize());
  }
  ~Slot() {
    cudaFree(in);
    cudaFree(ours);
    cudaFree(ref);
  }
  Slot(const Slot&) = delete;
  ncclResult_t ours_(ncclComm_t comm, cudaStream_t s) const {
    return ncclAllReduce(in, ours, count, dtype, ncclSum, comm, s);
  }
  // NCCL's result of the same call on the same communicator, computed afterwards.
  void reference(RankProcess& p, ncclComm_t comm, cudaStream_t s) const {
    EXPECT_EQ(p.real.allReduce(in, ref, count, dtype, ncclSum, comm, s), ncclSuccess);
  }
  std::string compare(int nranks) const {
    const size_t bytes = count * typeSize(dtype);
    return compareWithNccl(copyOut(ours, bytes), copyOut(ref, bytes), dtype, nranks);
  }
};

cudaStream_t newStream() {
  cudaStream_t s = nullptr;
  CUDA_EXPECT(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  return s;
}

TEST(RankOrdering, CaptureOnTwoForkedStreams) {
  RANK_PROCESS_OR_SKIP(p);
  cudaStream_t s0 = newStream(), s1 = newStream();
  cudaEvent_t fork, join;
  CUDA_EXPECT(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
  CUDA_EXPECT(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));
  Slot small(*p, 3001, ncclFloat32, 1), large(*p, 3u << 20, ncclBfloat16, 2);  // LL and chunked kernels
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  CUDA_EXPECT(cudaStreamBeginCapture(s0, cudaStreamCaptureModeThreadLocal));
  CUDA_EXPECT(cudaEventRecord(fork, s0));
  CUDA_EXPECT(cudaStreamWaitEvent(s1, fork, 0));
  EXPECT_EQ(small.ours_(p->world, s0), ncclSuccess);
  EXPECT_EQ(large.ours_(p->world, s1), ncclSuccess);  // a parallel branch of the graph
  EXPECT_EQ(small.ours_(p->world, s1), ncclSuccess);
  CUDA_EXPECT(cudaEventRecord(join, s1));
  CUDA_EXPECT(cudaStreamWaitEvent(s0, join, 0));
  CUDA_EXPECT(cudaStreamEndCapture(s0, &graph));
  CUDA_EXPECT(cudaGraphInstantiate(&exec, graph, 0));
  for (int replay = 0; replay < 4; ++replay) CUDA_EXPECT(cudaGraphLaunch(exec, s0));
  CUDA_EXPECT(cudaStreamSynchronize(s0));
  small.reference(*p, p->world, s0);
  large.reference(*p, p->world, s0);
  CUDA_EXPECT(cudaStreamSynchronize(s0));
  EXPECT_EQ(small.compare(p->nranks), "");
  EXPECT_EQ(large.compare(p->nranks), "");
  ncclResult_t async = ncclSuccess;
  EXPECT_EQ(ncclCommGetAsyncError(p->world, &async), ncclSuccess);
  EXPECT_EQ(async, ncclSuccess);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaEventDestroy(fork);
  cudaEventDestroy(join);
  cudaStreamDestroy(s0);
  cudaStreamDestroy(s1);
}

TEST(RankOrdering, ReplaysBesideEagerCallsOnAnotherStream) {
  RANK_PROCESS_OR_SKIP(p);
  cudaStream_t graphStream = newStream(), eagerStream = newStream();
  Slot captured(*p, 70000, ncclFloat32, 3), eager(*p, 5000, ncclFloat32, 4), big(*p, 5u << 20, ncclFloat32, 5);
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  CUDA_EXPECT(cudaStreamBeginCapture(graphStream, cudaStreamCaptureModeThreadLocal));
  EXPECT_EQ(captured.ours_(p->world, graphStream), ncclSuccess);
  EXPECT_EQ(big.ours_(p->world, graphStream), ncclSuccess);
  CUDA_EXPECT(cudaStreamEndCapture(graphStream, &graph));
  CUDA_EXPECT(cudaGraphInstantiate(&exec, graph, 0));
  for (int round = 0; round < 6; ++round) {
    CUDA_EXPECT(cudaGraphLaunch(exec, graphStream));
    EXPECT_EQ(eager.ours_(p->world, eagerStream), ncclSuccess);  // no stream order between the two
  }
  CUDA_EXPECT(cudaDeviceSynchronize());
  for (const Slot* s : {&captured, &eager, &big}) s->reference(*p, p->world, graphStream);
  CUDA_EXPECT(cudaStreamSynchronize(graphStream));
  for (const Slot* s : {&captured, &eager, &big}) EXPECT_EQ(s->compare(p->nranks), "");
  ncclResult_t async = ncclSuccess;
  EXPECT_EQ(ncclCommGetAsyncError(p->world, &async), ncclSuccess);
  EXPECT_EQ(async, ncclSuccess);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaStreamDestroy(graphStream);
  cudaStreamDestroy(eagerStream);
}

// Many calls of changing sizes and types on two communicators and two streams each, every
// call's result checked (not only the last one's).
TEST(RankOrdering, TwoCommunicatorsManyStreamsEveryResultChecked) {
  RANK_PROCESS_OR_SKIP(p);
  ncclComm_t second = p->newCommunicator();
  ASSERT_NE(second, nullptr);
  const ncclComm_t comms[2] = {p->world, second};
  cudaStream_t streams[4] = {newStream(), newStream(), newStream(), newStream()};
  const size_t counts[] = {1, 17, 1000, 65536, 300001, 2u << 20};
  const ncclDataType_t types[] = {ncclFloat32, ncclBfloat16, ncclInt32, ncclFloat16};
  std::vector<std::unique_ptr<Slot>> slots;
  for (int i = 0; i < 96; ++i) {
    slots.emplace_back(new Slot(*p, counts[(i * 7) % 6], types[i % 4], 100 + i));
    const int c = i % 2, s = (i / 2) % 2;
    EXPECT_EQ(slots.back()->ours_(comms[c], streams[2 * c + s]), ncclSuccess) << "call " << i;
  }
  CUDA_EXPECT(cudaDeviceSynchronize());
  for (size_t i = 0; i < slots.size(); ++i) slots[i]->reference(*p, comms[i % 2], streams[0]);
  CUDA_EXPECT(cudaStreamSynchronize(streams[0]));
  for (size_t i = 0; i < slots.size(); ++i) EXPECT_EQ(slots[i]->compare(p->nranks), "") << "call " << i;
  for (ncclComm_t comm : comms) {
    ncclResult_t async = ncclSuccess;
    EXPECT_EQ(ncclCommGetAsyncError(comm, &async), ncclSuccess);
    EXPECT_EQ(async, ncclSuccess);
  }
  slots.clear();
  for (cudaStream_t s : streams) cudaStreamDestroy(s);
  EXPECT_EQ(ncclCommDestroy(second), ncclSuccess);
}

TEST(RankResidency, LargeKernelsOfTwoCommunicatorsFinishBesideAKernelHoldingMostSMs) {
  RANK_PROCESS_OR_SKIP(p);
  ncclComm_t second = p->newCommunicator();
  ASSERT_NE(second, nullptr);
  cudaStream_t hogStream = newStream(), a = newStream(), b = newStream();
  Slot first(*p, 8u << 20, ncclFloat32, 21), other(*p, 6u << 20, ncclFloat32, 22);
  CUDA_EXPECT(holdMultiprocessors(p->device, /*free=*/4, /*seconds=*/0.4, hogStream));
  EXPECT_EQ(first.ours_(p->world, a), ncclSuccess);
  EXPECT_EQ(other.ours_(second, b), ncclSuccess);
  EXPECT_EQ(first.ours_(p->world, a), ncclSuccess);
  CUDA_EXPECT(cudaDeviceSynchronize());
  first.reference(*p, p->world, a);
  other.reference(*p, second, a);
  CUDA_EXPECT(cudaStreamSynchronize(a));
  EXPECT_EQ(first.compare(p->nranks), "");
  EXPECT_EQ(other.compare(p->nranks), "");
  EXPECT_STRNE(flashcclLastAlgorithm(p->world), "NCCL");
  EXPECT_STRNE(flashcclLastAlgorithm(second), "NCCL");
  for (cudaStream_t s : {hogStream, a, b}) cudaStreamDestroy(s);
  EXPECT_EQ(ncclCommDestroy(second), ncclSuccess);
}

}  // namespace
}  // namespace flashccl_gpu_test
