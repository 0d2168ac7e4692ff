// Environment values: the input is lines "NAME=value" (a NUL or a newline ends a value). Every
// variable flashccl, its tuner and its net plugin read is cleared, the input's are set, then each
// reader runs as at start-up: Config::fromEnvironment, the fault locator's settings, the tuner's
// FLASHCCL_TUNER_FORCE, the net plugin's readSettings and rail list, and the size and switch
// parsers on every value. A bad value is a WARN and a default, never a crash.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "base/config.h"
#include "base/size_text.h"
#include "forced_choice.h"
#include "quiet_logs.h"
#include "rail_spec.h"
#include "settings.h"
#include "trace/interface_choice.h"
#include "trace/trace_settings.h"

using namespace flashccl;

namespace {

const char* const kOtherVariables[] = {
    kForceVariable,           "FLASHCCL_SOFTBOND_RAILS",     "FLASHCCL_SOFTBOND_BACKEND",
    "FLASHCCL_SOFTBOND_TIMEOUT_MS", "FLASHCCL_SOFTBOND_PROBE_MS", "FLASHCCL_SOFTBOND_STREAMS",
    "FLASHCCL_SOFTBOND_CHUNK_BYTES", "FLASHCCL_SOFTBOND_GDR",    "FLASHCCL_SOFTBOND_IB_GID_INDEX",
    "FLASHCCL_SOFTBOND_FAULT", "NCCL_SOCKET_IFNAME",         "NCCL_SOCKET_FAMILY",
};

std::vector<std::string> knownVariables() {
  std::vector<std::string> names;
  for (const EnvParam& p : envParams()) names.push_back(p.name);
  for (const char* name : kOtherVariables) names.push_back(name);
  return names;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  fuzz::quietLogs();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::vector<std::string> known = knownVariables();
  std::map<std::string, std::string> values;
  const std::string text(reinterpret_cast<const char*>(data), size);
  size_t at = 0;
  while (at < text.size() && values.size() < 64) {
    size_t end = text.find_first_of(std::string("\n\0", 2), at);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(at, end - at);
    at = end + 1;
    const size_t equals = line.find('=');
    if (equals == std::string::npos) continue;
    values[line.substr(0, equals)] = line.substr(equals + 1);
  }
  for (const std::string& name : known) {
    const auto it = values.find(name);
    if (it == values.end()) {
      unsetenv(name.c_str());
    } else {
      setenv(name.c_str(), it->second.c_str(), 1);
    }
  }
  const Config config = Config::fromEnvironment();
  (void)TraceSettings::fromConfig(config);
  for (const auto& entry : values) {
    size_t bytes = 0;
    bool flag = false;
    int signal = 0;
    uint64_t size64 = 0;
    (void)parseBytes(entry.second, &bytes);
    (void)parseBool(entry.second, &flag);
    (void)parseSignal(entry.second, &signal);
    (void)softbond::parseByteSize(entry.second, &size64);
    (void)interfaceMatches("eth0", entry.second);
    (void)socketFamilyFromEnv(entry.second.c_str());
  }
  TuningTable forced;
  std::string error;
  (void)parseForcedChoice(values[kForceVariable], &forced, &error);
  (void)softbond::readSettings([&](const char* name) -> const char* {
    const auto it = values.find(name);
    return it == values.end() ? nullptr : it->second.c_str();
  });
  std::vector<std::vector<std::string>> bonds;
  (void)softbond::parseRailSpec(values["FLASHCCL_SOFTBOND_RAILS"], &bonds, &error);
  return 0;
}
