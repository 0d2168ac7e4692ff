#include "software_checks.h"

#include <sstream>

#include "base/config.h"

namespace flashccl {
namespace doctor {

namespace {

const char* const kEnv = kFamilyEnvironment;

std::vector<std::string> splitPreload(const std::string& text) {
  // ld.so takes spaces or colons between LD_PRELOAD entries.
  std::vector<std::string> entries;
  std::string entry;
  for (char c : text + ":") {
    if (c == ':' || c == ' ') {
      if (!entry.empty()) entries.push_back(entry);
      entry.clear();
    } else {
      entry += c;
    }
  }
  return entries;
}

bool isFlashcclLibrary(const std::string& path) {
  const size_t slash = path.rfind('/');
  const std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  return base.compare(0, 11, "libflashccl") == 0;
}

}  // namespace

std::string driverVersionFromProc(const std::string& procText) {
  // "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.65.06  Sun Jul 27 07:09:22 UTC 2025"
  std::istringstream in(procText);
  std::string word, previous;
  while (in >> word) {
    if (previous == "Module" && !word.empty() && std::isdigit(static_cast<unsigned char>(word[0]))) {
      return word;
    }
    previous = word;
  }
  return "";
}

std::string cudaVersionText(int version) {
  if (version <= 0) return "none";
  return std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
}

std::string ncclVersionText(int version) {
  if (version <= 0) return "?";
  const int major = version >= 10000 ? version / 10000 : version / 1000;
  const int minor = version >= 10000 ? (version % 10000) / 100 : (version % 1000) / 100;
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(version % 100);
}

std::vector<CheckResult> judgeSoftware(const SoftwareFacts& facts,
                                       bool (*exists)(const std::string& path)) {
  std::vector<CheckResult> checks;
  if (facts.driverVersion.known) {
    checks.push_back(makeCheck(kEnv, "driver", "node", Verdict::kPass, facts.driverVersion.value,
                               "an NVIDIA driver", "the kernel driver every GPU call goes through"));
  } else {
    checks.push_back(makeCheck(kEnv, "driver", "node", Verdict::kFail, "none found",
                               "an NVIDIA driver",
                               "no NVIDIA kernel driver answers (" + facts.driverVersion.why +
                                   "): install or load it (nvidia-smi should list the GPUs)"));
  }

  const std::string runtime = cudaVersionText(facts.cudaRuntimeVersion);
  const std::string expectedCuda = ">= " + runtime + " (flashccl's CUDA runtime)";
  if (facts.cudaDriverVersion <= 0) {
    checks.push_back(makeCheck(kEnv, "cuda", "node", Verdict::kFail, "no CUDA driver",
                               expectedCuda,
                               "the CUDA driver library (libcuda.so.1) does not answer" +
                                   (facts.cudaDriverWhy.empty() ? std::string()
                                                                : " (" + facts.cudaDriverWhy + ")") +
                                   ": no CUDA program can run"));
  } else if (facts.cudaDriverVersion < facts.cudaRuntimeVersion) {
    checks.push_back(makeCheck(kEnv, "cuda", "node", Verdict::kFail,
                               "driver supports CUDA " + cudaVersionText(facts.cudaDriverVersion),
                               expectedCuda,
                               "flashccl's kernels need a driver for CUDA " + runtime +
                                   " or later (cudaErrorInsufficientDriver otherwise): upgrade "
                                   "the driver"));
  } else {
    checks.push_back(makeCheck(kEnv, "cuda", "node", Verdict::kPass,
                               "driver supports CUDA " + cudaVersionText(facts.cudaDriverVersion),
                               expectedCuda, "flashccl's kernels are built for CUDA " + runtime));
  }

  if (facts.ncclPath.empty()) {
    checks.push_back(makeCheck(kEnv, "nccl", "node", Verdict::kFail, "none found",
                               "a libnccl.so.2 flashccl can forward to",
                               "every NCCL call would return ncclSystemError: " + facts.ncclError +
                                   "; set FLASHCCL_NCCL_LIBRARY or LD_LIBRARY_PATH"));
  } else {
    checks.push_back(makeCheck(kEnv, "nccl", "node", Verdict::kPass,
                               ncclVersionText(facts.ncclVersion) + " at " + facts.ncclPath,
                               "a libnccl.so.2 flashccl can forward to",
                               "what flashccl forwards to for a program that loads no NCCL of its "
                               "own (one that does, like PyTorch with its bundled NCCL, gets "
                               "that one); FLASHCCL_NCCL_LIBRARY chooses another"));
  }

  std::string preloaded, missingPreload;
  for (const std::string& entry : splitPreload(facts.ldPreload)) {
    if (!isFlashcclLibrary(entry)) continue;
    if (exists(entry)) preloaded = entry;
    else missingPreload = entry;
  }
  const std::string version = "flashccl " + facts.flashcclVersion;
  if (!missingPreload.empty() && preloaded.empty()) {
    checks.push_back(makeCheck(kEnv, "flashccl", "node", Verdict::kWarn,
                               "LD_PRELOAD names " + missingPreload + ", which does not exist",
                               "an existing libflashccl.so",
                               "the loader skips it with an error line and jobs run plain NCCL; "
                               "fix the path (python -c 'import flashccl; print(flashccl.lib_paths())')"));
  } else if (bool disabled = false; !preloaded.empty() && parseBool(facts.flashcclDisable, &disabled) && disabled) {
    // The library's own reading of FLASHCCL_DISABLE (base/config.h: on, yes, true, 1, any case).
    checks.push_back(makeCheck(kEnv, "flashccl", "node", Verdict::kWarn,
                               "preloaded (" + preloaded + ") but FLASHCCL_DISABLE=" + facts.flashcclDisable,
                               "active", "FLASHCCL_DISABLE makes flashccl a pure pass-through: "
                               "every call runs NCCL's own algorithm"));
  } else if (!preloaded.empty()) {
    checks.push_back(makeCheck(kEnv, "flashccl", "node", Verdict::kPass,
                               "preloaded: " + preloaded, "-", version + " runs the collectives "
                               "it has a faster algorithm for and forwards the rest"));
  } else {
    checks.push_back(makeCheck(kEnv, "flashccl", "node", Verdict::kPass,
                               "not preloaded in this environment", "-",
                               "jobs started from here call NCCL directly; preload libflashccl.so "
                               "(LD_PRELOAD) or call flashccl.enable() to use " + version));
  }
  return checks;
}

}  // namespace doctor
}  // namespace flashccl
