#include "plugin_loader.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdarg>
#include <cstdio>

namespace softbond_test {

CapturedLog& CapturedLog::instance() {
  static CapturedLog log;
  return log;
}

void CapturedLog::add(ncclDebugLogLevel level, const std::string& text) {
  std::lock_guard<std::mutex> lock(mutex_);
  lines_.push_back({level, text});
  if (echo_ && (level == NCCL_LOG_WARN || echoInfo_))
    fprintf(stderr, "[%d] %s %s\n", getpid(), level == NCCL_LOG_WARN ? "WARN" : "INFO", text.c_str());
}

std::vector<LogLine> CapturedLog::lines() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return lines_;
}

int CapturedLog::count(ncclDebugLogLevel level, const std::string& needle) const {
  std::lock_guard<std::mutex> lock(mutex_);
  int n = 0;
  for (const LogLine& line : lines_)
    if (line.level == level && line.text.find(needle) != std::string::npos) ++n;
  return n;
}

void captureLog(ncclDebugLogLevel level, unsigned long, const char*, int, const char* format, ...) {
  char text[2048];
  va_list args;
  va_start(args, format);
  vsnprintf(text, sizeof(text), format, args);
  va_end(args);
  CapturedLog::instance().add(level, text);
}

Plugin loadPlugin(const std::string& path) {
  Plugin plugin;
  // RTLD_LOCAL, as NCCL loads its plugins.
  plugin.library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!plugin.library) {
    plugin.error = dlerror();
    return plugin;
  }
  plugin.net = static_cast<ncclNet_v11_t*>(dlsym(plugin.library, "ncclNetPlugin_v11"));
  if (!plugin.net) {
    plugin.error = "no ncclNetPlugin_v11";
    return plugin;
  }
  ncclNetCommConfig_v11_t config{-1};
  ncclResult_t result = plugin.net->init(&plugin.context, 0x1234, &config, captureLog, nullptr);
  if (result != ncclSuccess) plugin.error = "init returned " + std::to_string(result);
  return plugin;
}

}  // namespace softbond_test
