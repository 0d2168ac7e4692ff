// Loads libnccl-net-softbond.so the way NCCL does -- dlopen, then dlsym("ncclNetPlugin_v11") --
// and collects what the plugin logs through the logger NCCL would pass to init().
#pragma once

#include <mutex>
#include <string>
#include <vector>

#include "nccl_net_abi.h"

namespace softbond_test {

struct LogLine {
  ncclDebugLogLevel level;
  std::string text;
};

// Every line the plugin logged in this process (all instances share one logger).
class CapturedLog {
 public:
  static CapturedLog& instance();
  void add(ncclDebugLogLevel level, const std::string& text);
  std::vector<LogLine> lines() const;
  // Lines at `level` whose text contains `needle`.
  int count(ncclDebugLogLevel level, const std::string& needle) const;
  // Echo lines to stderr as they come (WARN always when on, INFO too when `info`).
  void echo(bool on, bool info) { echo_ = on, echoInfo_ = info; }

 private:
  mutable std::mutex mutex_;
  std::vector<LogLine> lines_;
  bool echo_ = false;
  bool echoInfo_ = false;
};

// NCCL's logger signature, recording into CapturedLog.
void captureLog(ncclDebugLogLevel level, unsigned long flags, const char* file, int line, const char* format, ...);

struct Plugin {
  void* library = nullptr;
  ncclNet_v11_t* net = nullptr;
  void* context = nullptr;  // from init
  std::string error;
};

// dlopen + dlsym + init(&ctx, commId, config, captureLog, NULL). On failure, error says why.
Plugin loadPlugin(const std::string& path);

}  // namespace softbond_test
