#include "msccl/algorithm_loader.h"

#include <map>
#include <mutex>

#include "base/config.h"
#include "base/data_dirs.h"
#include "msccl/algorithm_file.h"
#include "msccl/msccl_algorithm.h"

namespace flashccl::msccl {

namespace {

struct CachedProgram {
  std::shared_ptr<const Program> program;
  std::string error;
};

// Finds the file for `name`; "" when there is none.
std::string findAlgorithmFile(const std::string& name) {
  if (name.find('/') != std::string::npos || isRegularFile(name)) return isRegularFile(name) ? name : "";
  for (const std::string& dir : algorithmDirectories()) {
    if (isRegularFile(dir + "/" + name)) return dir + "/" + name;
  }
  return "";
}

}  // namespace

bool looksLikeAlgorithmFile(const std::string& name) {
  return name.size() > 4 && name.compare(name.size() - 4, 4, ".xml") == 0;
}

std::vector<std::string> algorithmDirectories() {
  const std::string& override = Config::get().algoDir;
  if (!override.empty()) return {override};
  for (const std::string& dir : dataDirectories("algorithms")) {
    if (isDirectory(dir)) return {resolvedPath(dir)};
  }
  return {};
}

std::shared_ptr<const Program> loadProgramOnce(const std::string& name, std::string* error) {
  static std::mutex mutex;
  static std::map<std::string, CachedProgram> cache;
  const std::string path = findAlgorithmFile(name);
  if (path.empty()) {
    std::string dirs;
    for (const std::string& dir : algorithmDirectories()) dirs += (dirs.empty() ? "" : ", ") + dir;
    *error = "algorithm file '" + name + "' not found (searched " + (dirs.empty() ? "no directory" : dirs) + ")";
    return nullptr;
  }
  const std::string key = resolvedPath(path);
  std::lock_guard<std::mutex> lock(mutex);
  auto it = cache.find(key);
  if (it == cache.end()) {
    CachedProgram entry;
    auto program = std::make_shared<Program>();
    std::vector<Diagnostic> errors;
    if (loadAlgorithmFile(path, ValidationOptions(), program.get(), &errors) == ncclSuccess) {
      entry.program = std::move(program);
    } else {
      entry.error = "invalid algorithm file: " + joinDiagnostics(errors);
      while (!entry.error.empty() && entry.error.back() == '\n') entry.error.pop_back();
    }
    it = cache.emplace(key, std::move(entry)).first;
  }
  if (!it->second.program) *error = it->second.error;
  return it->second.program;
}

std::string firstStepAcrossNodes(const Program& program, int nnodes) {
  if (nnodes <= 1 || program.ngpus % nnodes != 0) return "";
  const int perNode = program.ngpus / nnodes;
  auto where = [&](int gpu) { return "gpu " + std::to_string(gpu) + " (node " + std::to_string(gpu / perNode) + ")"; };
  for (const Gpu& gpu : program.gpus) {
    for (const ThreadBlock& tb : gpu.threadBlocks) {
      const std::pair<int, const char*> links[] = {{tb.sendPeer, " sends to "}, {tb.recvPeer, " receives from "}};
      for (const auto& [peer, verb] : links) {
        if (peer >= 0 && peer / perNode != gpu.id / perNode) {
          return where(gpu.id) + verb + where(peer) + " in thread block " + std::to_string(tb.id);
        }
      }
    }
  }
  return "";
}

std::shared_ptr<Algorithm> makeMscclAlgorithm(const std::string& name, int nranks, int nnodes, std::string* error) {
  std::shared_ptr<const Program> program = loadProgramOnce(name, error);
  if (!program) return nullptr;
  if (!program->coll) {
    *error = name + " is a " + program->collName + " algorithm; flashccl runs allreduce, allgather and reducescatter";
    return nullptr;
  }
  if (program->ngpus != nranks) {
    *error = name + " is written for " + std::to_string(program->ngpus) + " GPUs, the communicator has " +
             std::to_string(nranks) + " ranks";
    return nullptr;
  }
  if (nnodes > 1) {
    const std::string step = firstStepAcrossNodes(*program, nnodes);
    *error = name + ": the communicator spans " + std::to_string(nnodes) + " nodes and " +
             (step.empty() ? std::string("the program's steps must cross them") : step) +
             "; flashccl's executor moves data only through one node's peer memory, so it runs MSCCL programs "
             "on one-node communicators only";
    return nullptr;
  }
  const size_t slash = name.rfind('/');
  return std::make_shared<MscclAlgorithm>(slash == std::string::npos ? name : name.substr(slash + 1),
                                          std::move(program));
}

}  // namespace flashccl::msccl
