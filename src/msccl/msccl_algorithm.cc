#include "msccl/msccl_algorithm.h"

#include <cuda_runtime_api.h>

#include "algo/launch_common.h"
#include "algo/comm_view.h"
#include "base/log.h"
#include "msccl/executor.h"
#include "transport/p2p/peer_memory.h"

namespace flashccl::msccl {

MscclAlgorithm::MscclAlgorithm(std::string name, std::shared_ptr<const Program> program)
    : name_(std::move(name)), program_(std::move(program)), facts_(programFacts(*program_)) {
  scratchCapacity_ = facts_.scratchChunks > 0 ? kExecutorScratchBytes : 0;
}

MscclAlgorithm::~MscclAlgorithm() {
  // cudaFree waits for the kernels still using them; errors at teardown must not leak into the
  // application's next CUDA call.
  if (deviceImage_) cudaFree(deviceImage_);
  if (scratch_) cudaFree(scratch_);
  cudaGetLastError();
}

bool MscclAlgorithm::planCall(const CollCall& call, const CommView& ctx, ExecCallShape* shape,
                              ReduceSpec* spec, const char** why) const {
  const Program& p = *program_;
  if (call.kind != *p.coll || ctx.nranks != p.ngpus || !peerPathUsable(call, ctx)) {
    *why = "not this program's collective or rank count";
    return false;
  }
  if (!makeReduceSpec(call.op, call.dtype, ctx, spec) || !executorRunsReduction(spec->kind)) {
    *why = "MSCCL programs run sum, prod, min and max";
    return false;
  }
  const size_t elem = dtypeSize(call.dtype);
  const size_t total = call.count * elem * static_cast<size_t>(p.sizeMultiplier());
  if (total < static_cast<size_t>(p.minBytes) || (p.maxBytes != 0 && total > static_cast<size_t>(p.maxBytes))) {
    *why = "outside the program's minBytes..maxBytes";
    return false;
  }
  // Ranks of one call may differ in placement; every rank must choose the same algorithm, so a
  // program is used only when it runs both ways.
  if (!p.inplace || !p.outofplace) {
    *why = "the program does not run both in place and out of place";
    return false;
  }
  const DeviceComm& comm = deviceComm(ctx);
  if (facts_.threadBlocks > comm.maxResidentBlocks) {
    *why = "more thread blocks than fit on the GPU at once";
    return false;
  }
  return shapeCall(p, facts_, comm.layout, total, elem, scratchCapacity_, shape, why);
}

bool MscclAlgorithm::supports(const CollCall& call, const CommView& ctx) const {
  ExecCallShape shape;
  ReduceSpec spec;
  const char* why = nullptr;
  return planCall(call, ctx, &shape, &spec, &why);
}

bool MscclAlgorithm::prepare(const CommView& ctx, std::string* why) {
  if (deviceImage_) return true;
  std::string error;
  const std::vector<char> image = buildExecImage(*program_, ctx.rank, &error);
  if (image.empty()) {
    *why = name_ + ": " + error;
    return false;
  }
  cudaError_t err = cudaMalloc(&deviceImage_, image.size());
  if (err == cudaSuccess) err = cudaMemcpy(deviceImage_, image.data(), image.size(), cudaMemcpyHostToDevice);
  if (err == cudaSuccess && scratchCapacity_ > 0) err = cudaMalloc(&scratch_, scratchCapacity_);
  if (err != cudaSuccess) {
    cudaGetLastError();
    *why = name_ + ": device image: " + cudaGetErrorString(err);
    return false;
  }
  threadBlocks_ = static_cast<int>(program_->gpus[ctx.rank].threadBlocks.size());
  FCCL_INFO(kLogInit, "comm %p rank %d: %s ready (%zu-byte image, %zu MiB scratch)", (void*)ctx.comm, ctx.rank,
            name_.c_str(), image.size(), scratchCapacity_ >> 20);
  return true;
}

ncclResult_t MscclAlgorithm::launch(const CollCall& call, const CommView& ctx) {
  ExecLaunch launch{};
  const char* why = nullptr;
  if (!deviceImage_ || !planCall(call, ctx, &launch.shape, &launch.reduce, &why)) return ncclInternalError;
  launch.image = static_cast<const ExecImageHeader*>(deviceImage_);
  launch.threadBlocks = threadBlocks_;
  launch.input = static_cast<const char*>(call.send);
  launch.output = static_cast<char*>(call.recv);
  launch.scratch = scratch_;
  launch.dtype = call.dtype;
  return launchResult(launchExecutor(deviceComm(ctx), launch, call.stream), name());
}

}  // namespace flashccl::msccl
