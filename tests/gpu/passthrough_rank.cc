#include "passthrough_rank.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <string>

#include <cuda_runtime.h>

#include "flashccl/flashccl.h"
#include "passthrough_issue.h"
#include "passthrough_launch.h"
#include "passthrough_nccl_api.h"
#include "test_inputs.h"

namespace flashccl_gpu_test::passthrough {
namespace {

constexpr uint32_t kInputSeed = 7;
// Both work buffers start as this byte, so bytes a call leaves alone compare equal and bytes only
// one path writes show up as a difference.
constexpr int kFillByte = 0xA5;

// "0x3f800000": an element's bytes as the little-endian value they encode.
std::string hexElement(const char* bytes, size_t size) {
  static const char digits[] = "0123456789abcdef";
  std::string text = "0x";
  for (size_t i = size; i-- > 0;) {
    const unsigned char b = static_cast<unsigned char>(bytes[i]);
    text += digits[b >> 4];
    text += digits[b & 15];
  }
  return text;
}

std::string describeState(ncclComm_t comm) {
  const char* reason = nullptr;
  const int state = flashcclCommState(comm, &reason);
  std::string text = std::to_string(state);
  switch (state) {
    case 1: text += " (flashccl's algorithms armed)"; break;
    case 0: text += " (flashccl set-up pending)"; break;
    case -1: text += std::string(" (pass-through: ") + (reason ? reason : "disabled") + ")"; break;
    default: text += " (communicator unknown to flashccl: pass-through)"; break;
  }
  return text;
}

class RankRunner {
 public:
  RankRunner(const RankJob& job, ReportChannel& channel)
      : job_(job), channel_(channel), flashccl_(flashcclApi()) {}
  ~RankRunner() { release(); }
  RankRunner(const RankRunner&) = delete;
  RankRunner& operator=(const RankRunner&) = delete;

  int run();

 private:
  void setUp();
  void allocate();
  void runCase(const Case& c, size_t index);
  void uploadInputs(const std::map<int, size_t>& elementsPerType);
  const char* inputOf(ncclDataType_t dtype) { return inputs_.at(static_cast<int>(dtype)); }
  void prepareWork(const Case& c, char* work);
  void execute(const NcclApi& api, const Case& c, char* work);
  void copyToHost(const char* work, size_t bytes, std::vector<char>* host, const char* what);
  void release();

  const RankJob& job_;
  ReportChannel& channel_;
  NcclApi flashccl_;
  NcclApi nccl_;
  ncclComm_t comm_ = nullptr;
  cudaStream_t stream_ = nullptr;
  // Per dtype, the input every case of that dtype reads a prefix of (makeInput's sequence does
  // not depend on its length). Made once: regenerating megabytes of input per case would cost
  // more host time than the calls themselves.
  std::map<int, char*> inputs_;
  char* flashcclWork_ = nullptr;
  char* ncclWork_ = nullptr;
  bool failed_ = false;
  std::vector<char> flashcclHost_, ncclHost_;
};

int RankRunner::run() {
  constexpr size_t kNoCase = static_cast<size_t>(-1);
  size_t current = kNoCase;  // the case running when something failed, if any
  try {
    setUp();
    for (size_t index = 0; index < job_.cases->size(); ++index) {
      current = index;
      runCase((*job_.cases)[index], index);
    }
  } catch (const std::exception& failure) {  // CallFailure, or std::bad_alloc for host copies
    if (current == kNoCase) channel_.rankError(job_.rank, failure.what());
    else channel_.caseError(current, job_.rank, failure.what());
    if (comm_ != nullptr) {
      ncclCommAbort(comm_);
      comm_ = nullptr;
    }
    // cudaFree waits for the device, and a kernel of this case may never finish: leave the
    // buffers to the process's end rather than hang here.
    failed_ = true;
    return 1;
  }
  const ncclResult_t destroyed = ncclCommDestroy(comm_);
  comm_ = nullptr;
  if (destroyed != ncclSuccess) {
    channel_.rankError(job_.rank, std::string("ncclCommDestroy: ") + ncclGetErrorString(destroyed));
    return 1;
  }
  return 0;
}

void RankRunner::setUp() {
  const std::string error = realNcclApi(&nccl_);
  if (!error.empty()) throw CallFailure(error);
  checkCuda(cudaSetDevice(job_.device), "cudaSetDevice(" + std::to_string(job_.device) + ")");
  ncclComm_t comm = nullptr;
  checkNccl(ncclCommInitRank(&comm, job_.nranks, job_.id, job_.rank), "ncclCommInitRank", nullptr);
  comm_ = comm;
  if (job_.rank == 0) channel_.fact("flashccl_comm_state", describeState(comm_));
  checkCuda(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
  allocate();
}

void RankRunner::allocate() {
  std::map<int, size_t> inputElements;  // per dtype: the most input elements any case sends
  size_t workBytes = 0;
  for (const Case& c : *job_.cases) {
    size_t& elements = inputElements[static_cast<int>(c.dtype)];
    elements = std::max(elements, inputCount(c, job_.nranks));
    workBytes = std::max(workBytes, workCount(c, job_.nranks) * typeSize(c.dtype));
  }
  checkCuda(cudaMalloc(&flashcclWork_, workBytes), "cudaMalloc(flashccl output, " + std::to_string(workBytes) + ")");
  checkCuda(cudaMalloc(&ncclWork_, workBytes), "cudaMalloc(NCCL output, " + std::to_string(workBytes) + ")");
  uploadInputs(inputElements);
}

void RankRunner::uploadInputs(const std::map<int, size_t>& elementsPerType) {
  for (const auto& [type, elements] : elementsPerType) {
    const auto dtype = static_cast<ncclDataType_t>(type);
    const std::vector<char> host = makeInput(dtype, elements, job_.rank, kInputSeed);
    char*& input = inputs_[type];
    checkCuda(cudaMalloc(&input, host.size()), "cudaMalloc(" + std::string(typeName(dtype)) + " input, " +
                                                    std::to_string(host.size()) + ")");
    checkCuda(cudaMemcpyAsync(input, host.data(), host.size(), cudaMemcpyHostToDevice, stream_),
              "cudaMemcpyAsync(" + std::string(typeName(dtype)) + " input)");
    waitForStream(stream_, comm_, job_.caseTimeoutS, "the input copy");
  }
}

// Everything runs on the rank's one stream, so the fill and copy are ordered before the call.
void RankRunner::prepareWork(const Case& c, char* work) {
  const size_t size = typeSize(c.dtype);
  checkCuda(cudaMemsetAsync(work, kFillByte, workCount(c, job_.nranks) * size, stream_), "cudaMemsetAsync(output)");
  if (!c.inPlace) return;
  checkCuda(cudaMemcpyAsync(work + inPlaceInputOffset(c, job_.rank) * size, inputOf(c.dtype),
                            inputCount(c, job_.nranks) * size, cudaMemcpyDeviceToDevice, stream_),
            "cudaMemcpyAsync(in-place input)");
}

void RankRunner::execute(const NcclApi& api, const Case& c, char* work) {
  prepareWork(c, work);
  const RankBuffers buffers{job_.rank, job_.nranks, inputOf(c.dtype), work};
  Launch launch;
  launch.stream = stream_;
  launch.comm = comm_;
  launch.graph = job_.graph;
  // In place changes its own input, so replaying would not reproduce one call's result.
  launch.launches = c.inPlace ? 1 : 2;
  launch.timeoutS = job_.caseTimeoutS;
  launch.label = api.label;
  runOnStream([&] { return issueCase(api, c, buffers, comm_, stream_); }, launch);
}

void RankRunner::copyToHost(const char* work, size_t bytes, std::vector<char>* host, const char* what) {
  host->resize(bytes);
  checkCuda(cudaMemcpyAsync(host->data(), work, bytes, cudaMemcpyDeviceToHost, stream_),
            std::string("cudaMemcpyAsync(") + what + " to host)");
  waitForStream(stream_, comm_, job_.caseTimeoutS, std::string("the copy of ") + what);
}

void RankRunner::runCase(const Case& c, size_t index) {
  execute(flashccl_, c, flashcclWork_);
  execute(nccl_, c, ncclWork_);
  const size_t size = typeSize(c.dtype);
  const size_t bytes = workCount(c, job_.nranks) * size;
  copyToHost(flashcclWork_, bytes, &flashcclHost_, "flashccl's output");
  copyToHost(ncclWork_, bytes, &ncclHost_, "NCCL's output");
  if (std::memcmp(flashcclHost_.data(), ncclHost_.data(), bytes) == 0) {
    channel_.caseIdentical(index, job_.rank);
    return;
  }
  const auto first = std::mismatch(flashcclHost_.begin(), flashcclHost_.end(), ncclHost_.begin());
  const size_t element = static_cast<size_t>(first.first - flashcclHost_.begin()) / size;
  channel_.caseDiffers(index, job_.rank, element,
                       "flashccl " + hexElement(flashcclHost_.data() + element * size, size) +
                           " vs NCCL " + hexElement(ncclHost_.data() + element * size, size));
}

void RankRunner::release() {
  if (failed_) return;
  for (auto& [type, input] : inputs_)
    if (input != nullptr) cudaFree(input);
  inputs_.clear();
  if (flashcclWork_ != nullptr) cudaFree(flashcclWork_);
  if (ncclWork_ != nullptr) cudaFree(ncclWork_);
  if (stream_ != nullptr) cudaStreamDestroy(stream_);
  flashcclWork_ = ncclWork_ = nullptr;
  stream_ = nullptr;
}

}  // namespace

int runRank(const RankJob& job, ReportChannel& channel) {
  RankRunner runner(job, channel);
  return runner.run();
}

}  // namespace flashccl_gpu_test::passthrough
