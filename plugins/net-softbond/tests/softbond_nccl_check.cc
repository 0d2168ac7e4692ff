// One rank of the GPU-machine check (tests/gpu/softbond_nccl_check.sh starts two): real NCCL
// collectives and send/recv between two processes that NCCL believes are on different hosts, so
// their traffic goes through the network plugin NCCL_NET_PLUGIN names (or NCCL's own socket
// transport with NCCL_NET_PLUGIN=none). Every result is compared with what it must be (inputs are
// small integers, so float sums are exact) and its checksum written out, one line per call:
//
//   <op> <dtype> <bytes> <iteration> <fnv64 of the result> ok|WRONG
//
//   softbond_nccl_check --rank R --nranks 2 --id-file PATH --out PATH [--max-bytes N] [--iterations K]
#include <cuda_runtime.h>
#include <nccl.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

namespace {

#define CUDA_OK(call)                                                                   \
  do {                                                                                  \
    cudaError_t e = (call);                                                             \
    if (e != cudaSuccess) {                                                             \
      fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e)); \
      exit(2);                                                                          \
    }                                                                                   \
  } while (0)
#define NCCL_OK(call)                                                                   \
  do {                                                                                  \
    ncclResult_t r = (call);                                                            \
    if (r != ncclSuccess) {                                                             \
      fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #call, ncclGetErrorString(r)); \
      exit(3);                                                                          \
    }                                                                                   \
  } while (0)

uint64_t fnv64(const void* data, size_t bytes) {
  uint64_t hash = 1469598103934665603ULL;
  auto* p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < bytes; ++i) hash = (hash ^ p[i]) * 1099511628211ULL;
  return hash;
}

// Element i of rank r's input: small integers, exact in float and in sums of two.
int32_t input(int rank, size_t i, int iteration) { return static_cast<int32_t>((i * 7 + rank * 13 + iteration * 3) % 1000); }

template <typename T>
std::vector<T> inputOf(int rank, size_t count, int iteration) {
  std::vector<T> values(count);
  for (size_t i = 0; i < count; ++i) values[i] = static_cast<T>(input(rank, i, iteration));
  return values;
}

struct Checker {
  std::ofstream out;
  int wrong = 0;
  template <typename T>
  void record(const char* op, const char* dtype, size_t bytes, int iteration, const std::vector<T>& got,
              const std::vector<T>& expected) {
    bool ok = got.size() == expected.size() && memcmp(got.data(), expected.data(), got.size() * sizeof(T)) == 0;
    wrong += !ok;
    char line[256];
    snprintf(line, sizeof(line), "%s %s %zu %d %016llx %s\n", op, dtype, bytes, iteration,
             (unsigned long long)fnv64(got.data(), got.size() * sizeof(T)), ok ? "ok" : "WRONG");
    out << line;
    out.flush();
  }
};

template <typename T>
std::vector<T> download(const T* device, size_t count) {
  std::vector<T> host(count);
  CUDA_OK(cudaMemcpy(host.data(), device, count * sizeof(T), cudaMemcpyDeviceToHost));
  return host;
}

template <typename T>
void sweep(ncclComm_t comm, cudaStream_t stream, int rank, int nranks, size_t bytes, int iteration,
           ncclDataType_t type, const char* typeName, Checker* check) {
  const size_t count = bytes / sizeof(T);
  T *send, *recv;
  CUDA_OK(cudaMalloc(&send, count * nranks * sizeof(T)));
  CUDA_OK(cudaMalloc(&recv, count * nranks * sizeof(T)));
  std::vector<T> mine = inputOf<T>(rank, count * nranks, iteration);
  CUDA_OK(cudaMemcpy(send, mine.data(), count * nranks * sizeof(T), cudaMemcpyHostToDevice));

  // AllReduce (sum) of `count` elements.
  NCCL_OK(ncclAllReduce(send, recv, count, type, ncclSum, comm, stream));
  CUDA_OK(cudaStreamSynchronize(stream));
  std::vector<T> expected(count, 0);
  for (int r = 0; r < nranks; ++r) {
    std::vector<T> theirs = inputOf<T>(r, count, iteration);
    for (size_t i = 0; i < count; ++i) expected[i] += theirs[i];
  }
  check->record("allreduce", typeName, bytes, iteration, download(recv, count), expected);

  // AllGather: every rank's first `count` elements, in rank order.
  NCCL_OK(ncclAllGather(send, recv, count, type, comm, stream));
  CUDA_OK(cudaStreamSynchronize(stream));
  expected.clear();
  for (int r = 0; r < nranks; ++r) {
    std::vector<T> theirs = inputOf<T>(r, count, iteration);
    expected.insert(expected.end(), theirs.begin(), theirs.end());
  }
  check->record("allgather", typeName, bytes, iteration, download(recv, count * nranks), expected);

  // ReduceScatter: rank r gets the sum of block r of everyone's `count * nranks` elements.
  NCCL_OK(ncclReduceScatter(send, recv, count, type, ncclSum, comm, stream));
  CUDA_OK(cudaStreamSynchronize(stream));
  expected.assign(count, 0);
  for (int r = 0; r < nranks; ++r) {
    std::vector<T> theirs = inputOf<T>(r, count * nranks, iteration);
    for (size_t i = 0; i < count; ++i) expected[i] += theirs[rank * count + i];
  }
  check->record("reducescatter", typeName, bytes, iteration, download(recv, count), expected);

  // Send/recv: each rank sends `count` elements to the next and receives from the previous.
  const int next = (rank + 1) % nranks, previous = (rank + nranks - 1) % nranks;
  NCCL_OK(ncclGroupStart());
  NCCL_OK(ncclSend(send, count, type, next, comm, stream));
  NCCL_OK(ncclRecv(recv, count, type, previous, comm, stream));
  NCCL_OK(ncclGroupEnd());
  CUDA_OK(cudaStreamSynchronize(stream));
  check->record("sendrecv", typeName, bytes, iteration, download(recv, count), inputOf<T>(previous, count, iteration));

  CUDA_OK(cudaFree(send));
  CUDA_OK(cudaFree(recv));
}

}  // namespace

int main(int argc, char** argv) {
  int rank = -1, nranks = 2, device = 0, iterations = 3;
  size_t maxBytes = 64u << 20;
  std::string idFile, outFile;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string arg = argv[i];
    if (arg == "--rank") rank = atoi(argv[i + 1]);
    else if (arg == "--nranks") nranks = atoi(argv[i + 1]);
    else if (arg == "--device") device = atoi(argv[i + 1]);
    else if (arg == "--id-file") idFile = argv[i + 1];
    else if (arg == "--out") outFile = argv[i + 1];
    else if (arg == "--max-bytes") maxBytes = strtoull(argv[i + 1], nullptr, 10);
    else if (arg == "--iterations") iterations = atoi(argv[i + 1]);
  }
  if (rank < 0 || idFile.empty() || outFile.empty()) {
    fprintf(stderr, "usage: softbond_nccl_check --rank R --nranks N --id-file PATH --out PATH "
                    "[--device D] [--max-bytes N] [--iterations K]\n");
    return 2;
  }
  CUDA_OK(cudaSetDevice(device));
  ncclUniqueId id;
  if (rank == 0) {
    NCCL_OK(ncclGetUniqueId(&id));
    std::string tmp = idFile + ".tmp";
    std::ofstream(tmp, std::ios::binary).write(reinterpret_cast<const char*>(&id), sizeof(id));
    rename(tmp.c_str(), idFile.c_str());  // appears whole
  } else {
    for (int waited = 0;; ++waited) {
      std::ifstream file(idFile, std::ios::binary);
      if (file.read(reinterpret_cast<char*>(&id), sizeof(id))) break;
      if (waited > 600) {
        fprintf(stderr, "rank %d: no unique id in %s after 60 s\n", rank, idFile.c_str());
        return 2;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }
  ncclComm_t comm;
  NCCL_OK(ncclCommInitRank(&comm, nranks, id, rank));
  cudaStream_t stream;
  CUDA_OK(cudaStreamCreate(&stream));
  Checker check;
  check.out.open(outFile);
  const auto start = std::chrono::steady_clock::now();
  for (int iteration = 0; iteration < iterations; ++iteration) {
    for (size_t bytes = 1024; bytes <= maxBytes; bytes *= 8) {
      sweep<float>(comm, stream, rank, nranks, bytes, iteration, ncclFloat32, "float32", &check);
      sweep<int32_t>(comm, stream, rank, nranks, bytes, iteration, ncclInt32, "int32", &check);
    }
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ncclResult_t async = ncclSuccess;
  NCCL_OK(ncclCommGetAsyncError(comm, &async));
  NCCL_OK(ncclCommDestroy(comm));
  printf("rank %d: %s, %d wrong result(s), %.1f s, async error %d\n", rank, check.wrong ? "FAIL" : "ok", check.wrong,
         seconds, static_cast<int>(async));
  return check.wrong || async != ncclSuccess ? 1 : 0;
}
