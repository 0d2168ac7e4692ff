#include "runtime/setup_exchange.h"

#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>

#include <cuda_runtime_api.h>

#include "base/check.h"
#include "base/config.h"
#include "base/log.h"
#include "runtime/comm_context.h"
#include "base/thread_state.h"
#include "base/real_nccl.h"

namespace flashccl {

namespace {

// Non-blocking communicators report ncclInProgress until their work is done.
ncclResult_t waitUntilDone(const std::vector<CommContext*>& ctxs) {
  for (CommContext* ctx : ctxs) {
    if (ctx->blocking) continue;
    FCCL_CHECK(waitWhileInProgress(ctx->comm));
  }
  return ncclSuccess;
}

struct VerdictRecord {
  int32_t ok;
  char failure[124];
};

struct DeviceScratch {
  int device = -1;
  cudaStream_t stream = nullptr;
  char* buffer = nullptr;
  ~DeviceScratch() {
    if (device < 0) return;
    cudaSetDevice(device);
    if (buffer) cudaFree(buffer);
    if (stream) cudaStreamDestroy(stream);
  }
};

double setupWaitSeconds() {
  const double hang = Config::get().hangTimeoutSeconds;
  return hang > 0 ? hang : 480.0;
}

// One round on the node board of each context: every post first (a thread may be driving
// several ranks of one communicator), then every rank's record.
ncclResult_t exchangeOnBoards(const std::vector<CommContext*>& ctxs, size_t recordBytes,
                              const std::vector<const void*>& mine, std::vector<std::vector<char>>* all) {
  for (size_t i = 0; i < ctxs.size(); ++i) ctxs[i]->setupBoard->post(ctxs[i]->rank, ++ctxs[i]->setupRound, mine[i], recordBytes);
  ncclResult_t result = ncclSuccess;
  for (size_t i = 0; i < ctxs.size(); ++i) {
    CommContext& ctx = *ctxs[i];
    std::vector<std::vector<char>> records;
    std::string why;
    if (!ctx.setupBoard->collect(ctx.setupRound, &records, [] { return false; }, setupWaitSeconds(),
                                 "this communicator's set-up round", &why)) {
      FCCL_WARN("comm %p rank %d: set-up exchange: %s", (void*)ctx.comm, ctx.rank, why.c_str());
      result = ncclSystemError;
      continue;
    }
    std::vector<char>& out = (*all)[i];
    out.clear();
    for (int r = 0; r < ctx.nranks && result == ncclSuccess; ++r) {
      if (records[r].size() != recordBytes) {
        FCCL_WARN("comm %p rank %d: set-up exchange: rank %d posted %zu bytes, %zu expected", (void*)ctx.comm, ctx.rank,
                  r, records[r].size(), recordBytes);
        result = ncclSystemError;
      }
      out.insert(out.end(), records[r].begin(), records[r].end());
    }
  }
  return result;
}

// One round through the real NCCL: an AllGather of the records, one NCCL group for all contexts.
ncclResult_t exchangeThroughNccl(const std::vector<CommContext*>& ctxs, size_t recordBytes,
                                 const std::vector<const void*>& mine, std::vector<std::vector<char>>* all) {
  const RealNccl* nccl = realNccl();
  if (nccl == nullptr || nccl->ncclAllGather == nullptr) return ncclSystemError;
  int savedDevice = 0;
  FCCL_CUDA_CHECK(cudaGetDevice(&savedDevice));
  std::vector<DeviceScratch> scratch(ctxs.size());
  ncclResult_t result = ncclSuccess;
  all->assign(ctxs.size(), {});
  for (size_t i = 0; i < ctxs.size() && result == ncclSuccess; ++i) {
    DeviceScratch& s = scratch[i];
    s.device = ctxs[i]->cudaDev;
    const size_t total = recordBytes * (ctxs[i]->nranks + 1);
    if (cudaSetDevice(s.device) != cudaSuccess ||
        cudaStreamCreateWithFlags(&s.stream, cudaStreamNonBlocking) != cudaSuccess ||
        cudaMalloc(&s.buffer, total) != cudaSuccess ||
        cudaMemcpy(s.buffer, mine[i], recordBytes, cudaMemcpyHostToDevice) != cudaSuccess) {
      FCCL_WARN("set-up exchange: cannot prepare device %d: %s", s.device,
                cudaGetErrorString(cudaGetLastError()));
      result = ncclUnhandledCudaError;
    }
  }
  if (result == ncclSuccess) {
    ForwardScope scope;
    result = nccl->ncclGroupStart();
    for (size_t i = 0; i < ctxs.size() && result == ncclSuccess; ++i) {
      cudaSetDevice(scratch[i].device);
      result = nccl->ncclAllGather(scratch[i].buffer, scratch[i].buffer + recordBytes, recordBytes,
                                   ncclUint8, ctxs[i]->comm, scratch[i].stream);
    }
    const ncclResult_t end = nccl->ncclGroupEnd();
    if (result == ncclSuccess) result = end;
  }
  if (result == ncclSuccess || result == ncclInProgress) result = waitUntilDone(ctxs);
  for (size_t i = 0; i < ctxs.size() && result == ncclSuccess; ++i) {
    std::vector<char>& out = (*all)[i];
    out.resize(recordBytes * ctxs[i]->nranks);
    cudaSetDevice(scratch[i].device);
    if (cudaStreamSynchronize(scratch[i].stream) != cudaSuccess ||
        cudaMemcpy(out.data(), scratch[i].buffer + recordBytes, out.size(), cudaMemcpyDeviceToHost) !=
            cudaSuccess) {
      FCCL_WARN("set-up exchange: %s", cudaGetErrorString(cudaGetLastError()));
      result = ncclUnhandledCudaError;
    }
  }
  scratch.clear();
  cudaSetDevice(savedDevice);
  return result;
}

}  // namespace

ncclResult_t exchangeRecords(const std::vector<CommContext*>& ctxs, size_t recordBytes,
                             const std::vector<const void*>& mine,
                             std::vector<std::vector<char>>* all) {
  all->assign(ctxs.size(), {});
  std::vector<CommContext*> boardCtxs, ncclCtxs;
  std::vector<const void*> boardMine, ncclMine;
  std::vector<size_t> boardAt, ncclAt;
  ncclResult_t result = ncclSuccess;
  for (size_t i = 0; i < ctxs.size(); ++i) {
    if (ctxs[i]->setupBoardUnreachable) {
      result = ncclSystemError;  // its peers are on the board: an NCCL round would wait for ever
      continue;
    }
    const bool board = ctxs[i]->setupBoard != nullptr && recordBytes <= NodeBoard::kMaxRecordBytes;
    (board ? boardCtxs : ncclCtxs).push_back(ctxs[i]);
    (board ? boardMine : ncclMine).push_back(mine[i]);
    (board ? boardAt : ncclAt).push_back(i);
  }
  std::vector<std::vector<char>> boardAll(boardCtxs.size()), ncclAll(ncclCtxs.size());
  if (!ncclCtxs.empty()) {
    const ncclResult_t throughNccl = exchangeThroughNccl(ncclCtxs, recordBytes, ncclMine, &ncclAll);
    if (result == ncclSuccess) result = throughNccl;
  }
  if (!boardCtxs.empty()) {
    const ncclResult_t onBoards = exchangeOnBoards(boardCtxs, recordBytes, boardMine, &boardAll);
    if (result == ncclSuccess) result = onBoards;
  }
  for (size_t k = 0; k < boardAt.size(); ++k) (*all)[boardAt[k]] = std::move(boardAll[k]);
  for (size_t k = 0; k < ncclAt.size(); ++k) (*all)[ncclAt[k]] = std::move(ncclAll[k]);
  return result;
}

ncclResult_t waitWhileInProgress(ncclComm_t comm) {
  const RealNccl* nccl = realNccl();
  if (nccl == nullptr || nccl->ncclCommGetAsyncError == nullptr) return ncclSystemError;
  ncclResult_t state = ncclInProgress;
  while (state == ncclInProgress) {
    ForwardScope scope;
    FCCL_CHECK(nccl->ncclCommGetAsyncError(comm, &state));
    if (state == ncclInProgress) std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
  return state;
}

ncclResult_t agreeOnFailures(const std::vector<CommContext*>& ctxs, const std::vector<std::string>& mine,
                             std::vector<std::string>* agreed) {
  std::vector<VerdictRecord> records(ctxs.size());
  std::vector<const void*> pointers(ctxs.size());
  for (size_t i = 0; i < ctxs.size(); ++i) {
    std::memset(&records[i], 0, sizeof(VerdictRecord));
    records[i].ok = mine[i].empty() ? 1 : 0;
    std::snprintf(records[i].failure, sizeof(records[i].failure), "%s", mine[i].c_str());
    pointers[i] = &records[i];
  }
  std::vector<std::vector<char>> all;
  FCCL_CHECK(exchangeRecords(ctxs, sizeof(VerdictRecord), pointers, &all));
  agreed->assign(ctxs.size(), "");
  for (size_t i = 0; i < ctxs.size(); ++i) {
    const VerdictRecord* v = reinterpret_cast<const VerdictRecord*>(all[i].data());
    for (int r = 0; r < ctxs[i]->nranks; ++r) {
      if (!v[r].ok) {
        (*agreed)[i] = v[r].failure;
        break;
      }
    }
  }
  return ncclSuccess;
}

}  // namespace flashccl
