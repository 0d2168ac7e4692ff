#include "run_environment.h"

#include <cuda_runtime.h>
#include <flashccl/flashccl.h>
#include <nccl.h>
#include <unistd.h>

#include <cstdlib>
#include <ctime>
#include <set>

#include "flashccl_build_commit.h"
#include "gpu_errors.h"

namespace flashccl {
namespace perf {

std::string machineDescription(const std::string& host, int nranks, const std::vector<DeviceInfo>& devices) {
  const std::string name = devices.empty() ? std::string("GPU") : devices.front().name;
  if (static_cast<int>(devices.size()) != nranks) return host + ": " + std::to_string(nranks) + " ranks on " + name;
  // GPUs, not ranks: several ranks may share one (each its own NCCL_HOSTID), and a record that
  // said "2 x H200" for one GPU would be read as a two-GPU measurement.
  std::set<std::string> gpus;
  for (const DeviceInfo& d : devices) gpus.insert(d.host + "/" + d.busId);
  std::string text = host + ": " + std::to_string(gpus.size()) + " x " + name;
  if (static_cast<int>(gpus.size()) != nranks) text += " (" + std::to_string(nranks) + " ranks)";
  return text;
}

namespace {
std::vector<EnvSetting>& setByPerf() {
  static std::vector<EnvSetting> settings;
  return settings;
}
}  // namespace

void disableNvlsUnlessSet() { setForNcclUnlessSet("NCCL_NVLS_ENABLE", "0"); }

void setForNcclUnlessSet(const char* name, const std::string& value) {
  if (std::getenv(name)) return;
  setenv(name, value.c_str(), 0);
  setByPerf().push_back({name, true, value});
}

const std::vector<EnvSetting>& environmentSetByPerf() { return setByPerf(); }

const char* buildCommit() { return FLASHCCL_BUILD_COMMIT; }

const std::vector<const char*>& reportedEnvironmentNames() {
  static const std::vector<const char*> names = {
      "FLASHCCL_DISABLE", "FLASHCCL_ALGO",  "FLASHCCL_ALGO_DIR",   "FLASHCCL_NCCL_LIBRARY",
      "NCCL_NVLS_ENABLE", "NCCL_ALGO",      "NCCL_PROTO",          "CUDA_VISIBLE_DEVICES"};
  return names;
}

std::vector<EnvSetting> reportedEnvironment() {
  std::vector<EnvSetting> settings;
  for (const char* name : reportedEnvironmentNames()) {
    const char* value = std::getenv(name);
    settings.push_back({name, value != nullptr, value ? value : ""});
  }
  return settings;
}

namespace {

std::string hostName() {
  char name[256] = {0};
  if (gethostname(name, sizeof(name) - 1) != 0) return "unknown-host";
  return name;
}

}  // namespace

DeviceInfo describeDevice(int rank, int device) {
  DeviceInfo info;
  info.rank = rank;
  info.device = device;
  info.pid = static_cast<int>(getpid());
  info.host = hostName();
  const std::string context = "describing GPU " + std::to_string(device);
  cudaDeviceProp properties;
  PERF_CUDA_CHECK(cudaGetDeviceProperties(&properties, device), context);
  info.name = properties.name;
  char busId[64] = {0};
  PERF_CUDA_CHECK(cudaDeviceGetPCIBusId(busId, sizeof(busId), device), context);
  info.busId = busId;
  return info;
}

std::string ncclVersionText(int code) {
  int major, minor, patch;
  if (code >= 20900) {  // NCCL_VERSION(X,Y,Z) = X*10000 + Y*100 + Z since 2.9
    major = code / 10000;
    minor = (code % 10000) / 100;
    patch = code % 100;
  } else {
    major = code / 1000;
    minor = (code % 1000) / 100;
    patch = code % 100;
  }
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

RunInfo makeRunInfo(const PerfOptions& options, const RankLayout& layout,
                    const std::vector<DeviceInfo>& devices) {
  RunInfo info;
  info.flashcclVersion = flashcclVersion();
  info.flashcclCommit = buildCommit();
  int code = 0;
  // Through flashccl, which reports the real NCCL's version (docs/design.md, "The real NCCL's version").
  info.ncclVersion = ncclGetVersion(&code) == ncclSuccess ? ncclVersionText(code) : "unknown";
  const char* path = flashcclRealLibraryPath();
  info.ncclLibrary = path && *path ? path : "not found";
  char date[64];
  const std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof(date), "%Y-%m-%d %H:%M:%S %Z", std::localtime(&now));
  info.date = date;
  info.host = hostName();
  info.layout = layout;
  info.devices = devices;
  if (!options.machineLabel.empty()) {
    info.machine = options.machineLabel;
  } else {
    info.machine = machineDescription(info.host, layout.nranks(), devices);
  }
  info.command = quotedCommand(options.arguments);
  info.environment = reportedEnvironment();
  info.environmentSetByPerf = environmentSetByPerf();
  info.minBytes = options.sizes.minBytes;
  info.maxBytes = options.sizes.maxBytes;
  info.stepFactor = options.stepBytes ? 0 : options.sizes.stepFactor;
  info.stepBytes = options.stepBytes;
  info.iters = options.iters;
  info.warmupIters = options.warmupIters;
  info.aggIters = options.aggIters;
  info.cycles = options.cycles;
  info.pairs = options.pairs;
  info.graphReplays = options.graphReplays;
  info.average = static_cast<int>(options.average);
  info.blocking = options.blocking;
  info.cpuTime = options.cpuTime;
  info.check = options.check;
  info.seed = options.seed;
  return info;
}

}  // namespace perf
}  // namespace flashccl
