// One rank of issue 26's footprint checks (tests/gpu/footprint_check.sh): every rank on GPU 0 in
// its own process (its own NCCL_HOSTID), linked with the real NCCL and run with or without
// LD_PRELOAD=libflashccl.so, so the same program measures flashccl and plain NCCL.
//
//   footprint_rank RANK NRANKS IDFILE MODE [N]
//   memory N   N communicators (ncclCommSplit of the world), one 4 KiB AllReduce on each, then
//              one 32 MiB AllReduce on each, then all destroyed: GPU memory at every step
//   setup N    N times: ncclCommInitRank -> first 4 KiB AllReduce completed -> destroy
//   churn N    N communicators created, used (4 KiB and 32 MiB), destroyed one after another
//   budget     3 communicators, a 32 MiB AllReduce on each, run with a FLASHCCL_MEMORY_LIMIT that
//              one grown buffer fits: the first runs on flashccl, the others on NCCL, all right
//   capture    a 32 MiB AllReduce inside a CUDA-graph capture on a fresh communicator (NCCL runs
//              it), the graph replayed, then the same call eagerly (the buffer grows: flashccl)
// Prints one line "RESULT {json}" (the script gathers them) and "CHECK name PASS|FAIL detail"
// lines; exits 1 when a check failed. Memory: this process's as NVML reports it (the GPU is
// shared by every rank), and the device's used bytes (cudaMemGetInfo).
#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <cuda_runtime_api.h>
#include <nccl.h>

namespace {

int gRank = 0, gNranks = 0;
int gFailures = 0;
ncclComm_t gWorld = nullptr;
cudaStream_t gStream = nullptr;

double nowSeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void check(bool ok, const char* name, const std::string& detail) {
  std::printf("CHECK %s %s rank %d: %s\n", name, ok ? "PASS" : "FAIL", gRank, detail.c_str());
  std::fflush(stdout);
  if (!ok) ++gFailures;
}

#define NCCL_OR_DIE(call)                                                                   \
  do {                                                                                      \
    const ncclResult_t r_ = (call);                                                         \
    if (r_ != ncclSuccess) {                                                                \
      std::fprintf(stderr, "rank %d: %s failed: %s\n", gRank, #call, ncclGetErrorString(r_)); \
      std::exit(2);                                                                         \
    }                                                                                       \
  } while (0)
#define CUDA_OR_DIE(call)                                                                        \
  do {                                                                                           \
    const cudaError_t e_ = (call);                                                               \
    if (e_ != cudaSuccess) {                                                                     \
      std::fprintf(stderr, "rank %d: %s failed: %s\n", gRank, #call, cudaGetErrorString(e_));    \
      std::exit(2);                                                                              \
    }                                                                                            \
  } while (0)

// flashccl's own report of what ran a communicator's last call; "-" without flashccl.
const char* lastAlgorithm(ncclComm_t comm) {
  using Fn = const char* (*)(ncclComm_t);
  static Fn fn = reinterpret_cast<Fn>(dlsym(RTLD_DEFAULT, "flashcclLastAlgorithm"));
  return fn ? fn(comm) : "-";
}
bool withFlashccl() { return dlsym(RTLD_DEFAULT, "flashcclLastAlgorithm") != nullptr; }

// NVML through dlopen: this process's GPU memory, or -1 where NVML cannot say.
struct Nvml {
  using Init = int (*)();
  using Handle = int (*)(unsigned, void**);
  struct ProcInfo {
    unsigned pid;
    unsigned long long usedGpuMemory;
    unsigned gpuInstanceId, computeInstanceId;
  };
  using Procs = int (*)(void*, unsigned*, ProcInfo*);
  void* device = nullptr;
  Procs procs = nullptr;
  Nvml() {
    void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW);
    if (!lib) return;
    auto init = reinterpret_cast<Init>(dlsym(lib, "nvmlInit_v2"));
    auto handle = reinterpret_cast<Handle>(dlsym(lib, "nvmlDeviceGetHandleByIndex_v2"));
    procs = reinterpret_cast<Procs>(dlsym(lib, "nvmlDeviceGetComputeRunningProcesses_v3"));
    if (!init || !handle || !procs || init() != 0 || handle(0, &device) != 0) procs = nullptr;
  }
  double processMiB() const {
    if (!procs) return -1;
    std::vector<ProcInfo> info(256);
    unsigned count = static_cast<unsigned>(info.size());
    if (procs(device, &count, info.data()) != 0) return -1;
    for (unsigned i = 0; i < count; ++i) {
      if (info[i].pid != static_cast<unsigned>(getpid())) continue;
      // NVML_VALUE_NOT_AVAILABLE (some virtual machines): the device's total must do.
      return info[i].usedGpuMemory == ~0ull ? -1 : info[i].usedGpuMemory / 1048576.0;
    }
    return -1;
  }
};

double deviceUsedMiB() {
  size_t freeBytes = 0, total = 0;
  cudaMemGetInfo(&freeBytes, &total);
  return (total - freeBytes) / 1048576.0;
}

// Every rank here before any goes on: an AllReduce of one int on the world communicator.
int* gBarrierWord = nullptr;
void barrier() {
  NCCL_OR_DIE(ncclAllReduce(gBarrierWord, gBarrierWord, 1, ncclInt32, ncclSum, gWorld, gStream));
  CUDA_OR_DIE(cudaStreamSynchronize(gStream));
}

struct Memory {
  double process, device;
};
Memory measure(const Nvml& nvml) {
  CUDA_OR_DIE(cudaDeviceSynchronize());
  barrier();
  Memory m{nvml.processMiB(), deviceUsedMiB()};
  barrier();  // nobody allocates while another rank reads the device's total
  return m;
}

std::string json(const char* key, double v) {
  char text[96];
  std::snprintf(text, sizeof(text), "\"%s\": %.2f", key, v);
  return text;
}

bool shareUniqueId(const std::string& file, ncclUniqueId* id) {
  if (gRank == 0) {
    if (ncclGetUniqueId(id) != ncclSuccess) return false;
    const std::string tmp = file + ".tmp";
    std::ofstream(tmp, std::ios::binary).write(reinterpret_cast<const char*>(id), sizeof(*id));
    return std::rename(tmp.c_str(), file.c_str()) == 0;
  }
  for (int tries = 0; tries < 6000; ++tries) {
    std::ifstream in(file, std::ios::binary);
    if (in.read(reinterpret_cast<char*>(id), sizeof(*id))) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

ncclComm_t split() {
  ncclComm_t comm = nullptr;
  NCCL_OR_DIE(ncclCommSplit(gWorld, 0, gRank, &comm, nullptr));
  return comm;
}

constexpr size_t kSmallCount = 1024;              // 4 KiB of floats
constexpr size_t kLargeCount = (32u << 20) / 4;   // 32 MiB of floats

struct Buffers {
  float* data = nullptr;
  Buffers() { CUDA_OR_DIE(cudaMalloc(&data, kLargeCount * sizeof(float))); }
  ~Buffers() { cudaFree(data); }
  // Every rank contributes rank + 1: the sum is n (n + 1) / 2 everywhere.
  void fill(size_t count) {
    std::vector<float> host(count, static_cast<float>(gRank + 1));
    CUDA_OR_DIE(cudaMemcpy(data, host.data(), count * sizeof(float), cudaMemcpyHostToDevice));
  }
  bool summed(size_t count) const {
    std::vector<float> host(count);
    CUDA_OR_DIE(cudaMemcpy(host.data(), data, count * sizeof(float), cudaMemcpyDeviceToHost));
    const float want = gNranks * (gNranks + 1) / 2.0f;
    return std::all_of(host.begin(), host.end(), [want](float v) { return v == want; });
  }
};

const char* allReduce(ncclComm_t comm, Buffers& b, size_t count) {
  NCCL_OR_DIE(ncclAllReduce(b.data, b.data, count, ncclFloat32, ncclSum, comm, gStream));
  CUDA_OR_DIE(cudaStreamSynchronize(gStream));
  return lastAlgorithm(comm);
}

int runMemory(int n) {
  Nvml nvml;
  Buffers b;
  const Memory base = measure(nvml);
  std::vector<ncclComm_t> comms;
  for (int i = 0; i < n; ++i) comms.push_back(split());
  const Memory created = measure(nvml);
  std::string smallAlgo, largeAlgo;
  for (ncclComm_t c : comms) smallAlgo = allReduce(c, b, kSmallCount);
  const Memory small = measure(nvml);
  for (ncclComm_t c : comms) largeAlgo = allReduce(c, b, kLargeCount);
  const Memory large = measure(nvml);
  for (ncclComm_t c : comms) NCCL_OR_DIE(ncclCommDestroy(c));
  const Memory destroyed = measure(nvml);
  std::printf("RESULT {\"mode\": \"memory\", \"rank\": %d, \"nranks\": %d, \"comms\": %d, \"flashccl\": %s, "
              "\"small_algorithm\": \"%s\", \"large_algorithm\": \"%s\", %s, %s, %s, %s, %s, %s, %s, %s, %s, %s}\n",
              gRank, gNranks, n, withFlashccl() ? "true" : "false", smallAlgo.c_str(), largeAlgo.c_str(),
              json("process_base_mib", base.process).c_str(), json("process_created_mib", created.process).c_str(),
              json("process_small_mib", small.process).c_str(), json("process_large_mib", large.process).c_str(),
              json("process_destroyed_mib", destroyed.process).c_str(), json("device_base_mib", base.device).c_str(),
              json("device_created_mib", created.device).c_str(), json("device_small_mib", small.device).c_str(),
              json("device_large_mib", large.device).c_str(), json("device_destroyed_mib", destroyed.device).c_str());
  return 0;
}

int runSetup(int n, const std::string& idFile) {
  Buffers b;
  std::vector<double> seconds;
  for (int i = 0; i < n; ++i) {
    // A fresh id each time, from rank 0, through the world communicator.
    ncclUniqueId id{};
    if (gRank == 0) NCCL_OR_DIE(ncclGetUniqueId(&id));
    char* wire = nullptr;
    CUDA_OR_DIE(cudaMalloc(&wire, sizeof(id)));
    CUDA_OR_DIE(cudaMemcpy(wire, &id, sizeof(id), cudaMemcpyHostToDevice));
    NCCL_OR_DIE(ncclBroadcast(wire, wire, sizeof(id), ncclChar, 0, gWorld, gStream));
    CUDA_OR_DIE(cudaStreamSynchronize(gStream));
    CUDA_OR_DIE(cudaMemcpy(&id, wire, sizeof(id), cudaMemcpyDeviceToHost));
    cudaFree(wire);
    barrier();
    const double start = nowSeconds();
    ncclComm_t comm = nullptr;
    NCCL_OR_DIE(ncclCommInitRank(&comm, gNranks, id, gRank));
    allReduce(comm, b, kSmallCount);
    seconds.push_back(nowSeconds() - start);
    NCCL_OR_DIE(ncclCommDestroy(comm));
  }
  (void)idFile;
  std::vector<double> sorted = seconds;
  std::sort(sorted.begin(), sorted.end());
  const double median = sorted.empty() ? 0 : sorted[sorted.size() / 2];
  std::printf("RESULT {\"mode\": \"setup\", \"rank\": %d, \"nranks\": %d, \"runs\": %d, \"flashccl\": %s, %s, %s, %s}\n",
              gRank, gNranks, n, withFlashccl() ? "true" : "false", json("median_ms", median * 1e3).c_str(),
              json("min_ms", sorted.empty() ? 0 : sorted.front() * 1e3).c_str(),
              json("max_ms", sorted.empty() ? 0 : sorted.back() * 1e3).c_str());
  return 0;
}

int runChurn(int n) {
  Nvml nvml;
  Buffers b;
  // One round first: NCCL and CUDA allocate some things once per process (proxy, caches).
  ncclComm_t warm = split();
  allReduce(warm, b, kSmallCount);
  allReduce(warm, b, kLargeCount);
  NCCL_OR_DIE(ncclCommDestroy(warm));
  const Memory start = measure(nvml);
  for (int i = 0; i < n; ++i) {
    ncclComm_t comm = split();
    allReduce(comm, b, kSmallCount);
    if (i % 4 == 0) allReduce(comm, b, kLargeCount);  // a grown buffer must go too
    NCCL_OR_DIE(ncclCommDestroy(comm));
  }
  const Memory end = measure(nvml);
  const double grew = end.process >= 0 ? end.process - start.process : end.device - start.device;
  char detail[200];
  std::snprintf(detail, sizeof(detail), "%d communicators created and destroyed: %.2f MiB -> %.2f MiB (%s)", n,
                end.process >= 0 ? start.process : start.device, end.process >= 0 ? end.process : end.device,
                end.process >= 0 ? "this process, NVML" : "device, cudaMemGetInfo");
  check(grew <= 1.0, "churn_returns_within_1MiB", detail);
  std::printf("RESULT {\"mode\": \"churn\", \"rank\": %d, \"nranks\": %d, \"comms\": %d, \"flashccl\": %s, %s, %s, %s, %s}\n",
              gRank, gNranks, n, withFlashccl() ? "true" : "false", json("process_start_mib", start.process).c_str(),
              json("process_end_mib", end.process).c_str(), json("device_start_mib", start.device).c_str(),
              json("device_end_mib", end.device).c_str());
  return 0;
}

int runBudget() {
  Buffers b;
  std::vector<ncclComm_t> comms = {split(), split(), split()};
  for (size_t i = 0; i < comms.size(); ++i) {
    b.fill(kSmallCount);
    const std::string small = allReduce(comms[i], b, kSmallCount);
    check(b.summed(kSmallCount) && small != "NCCL", "budget_small_call_on_flashccl",
          "comm " + std::to_string(i) + " 4 KiB ran on " + small);
    b.fill(kLargeCount);
    const std::string large = allReduce(comms[i], b, kLargeCount);
    const bool wantOurs = i == 0;
    check(b.summed(kLargeCount) && (large != "NCCL") == wantOurs, "budget_large_call",
          "comm " + std::to_string(i) + " 32 MiB ran on " + large + (wantOurs ? " (grew)" : " (over budget: NCCL)"));
  }
  for (ncclComm_t c : comms) NCCL_OR_DIE(ncclCommDestroy(c));
  return 0;
}

int runCapture() {
  Buffers b;
  ncclComm_t comm = split();
  b.fill(kSmallCount);
  allReduce(comm, b, kSmallCount);
  b.fill(kLargeCount);
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  CUDA_OR_DIE(cudaStreamBeginCapture(gStream, cudaStreamCaptureModeGlobal));
  NCCL_OR_DIE(ncclAllReduce(b.data, b.data, kLargeCount, ncclFloat32, ncclSum, comm, gStream));
  CUDA_OR_DIE(cudaStreamEndCapture(gStream, &graph));
  const std::string captured = lastAlgorithm(comm);
  CUDA_OR_DIE(cudaGraphInstantiate(&exec, graph, 0));
  CUDA_OR_DIE(cudaGraphLaunch(exec, gStream));
  CUDA_OR_DIE(cudaStreamSynchronize(gStream));
  check(b.summed(kLargeCount) && captured == "NCCL", "capture_large_call_in_graph_on_nccl",
        "the captured 32 MiB call ran on " + captured);
  b.fill(kLargeCount);
  const std::string eager = allReduce(comm, b, kLargeCount);
  check(b.summed(kLargeCount) && eager != "NCCL", "capture_next_eager_call_grows",
        "the next eager 32 MiB call ran on " + eager);
  b.fill(kLargeCount);
  CUDA_OR_DIE(cudaGraphLaunch(exec, gStream));  // the graph still runs, after the growth
  CUDA_OR_DIE(cudaStreamSynchronize(gStream));
  check(b.summed(kLargeCount), "capture_graph_replays_after_growth", "replayed");
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  NCCL_OR_DIE(ncclCommDestroy(comm));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr, "usage: %s RANK NRANKS IDFILE memory|setup|churn|budget|capture [N]\n", argv[0]);
    return 2;
  }
  gRank = std::atoi(argv[1]);
  gNranks = std::atoi(argv[2]);
  const std::string idFile = argv[3], mode = argv[4];
  const int n = argc > 5 ? std::atoi(argv[5]) : 1;
  if (gNranks < 1 || gRank < 0 || gRank >= gNranks || n < 1) {
    std::fprintf(stderr, "bad rank %d / nranks %d / N %d\n", gRank, gNranks, n);
    return 2;
  }
  CUDA_OR_DIE(cudaSetDevice(0));
  CUDA_OR_DIE(cudaStreamCreateWithFlags(&gStream, cudaStreamNonBlocking));
  CUDA_OR_DIE(cudaMalloc(&gBarrierWord, sizeof(int)));
  ncclUniqueId id;
  if (!shareUniqueId(idFile, &id)) {
    std::fprintf(stderr, "rank %d: no unique id in %s\n", gRank, idFile.c_str());
    return 2;
  }
  NCCL_OR_DIE(ncclCommInitRank(&gWorld, gNranks, id, gRank));
  int status = 2;
  if (mode == "memory") status = runMemory(n);
  else if (mode == "setup") status = runSetup(n, idFile);
  else if (mode == "churn") status = runChurn(n);
  else if (mode == "budget") status = runBudget();
  else if (mode == "capture") status = runCapture();
  else std::fprintf(stderr, "unknown mode %s\n", mode.c_str());
  barrier();
  ncclCommDestroy(gWorld);
  std::printf("done\n");
  return status != 0 ? status : (gFailures ? 1 : 0);
}
