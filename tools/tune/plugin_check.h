// Finding libnccl-tuner-flashccl.so and making sure it is the plugin before a sweep that depends
// on it: a path NCCL could not load, or another tuner, would leave every forced choice unforced
// and the sweep would measure NCCL's default under every name.
#pragma once

#include <string>
#include <vector>

namespace flashccl {
namespace tune {

constexpr const char* kTunerPluginFile = "libnccl-tuner-flashccl.so";

// Where to look when --plugin is not given, in order: NCCL_TUNER_PLUGIN when it names a file, then
// beside the flashccl command as installed (<prefix>/bin/flashccl, <prefix>/lib/; the wheel's
// flashccl/bin and flashccl/lib alike) and as built (build/tools/flashccl, build/plugins/tuner/).
std::vector<std::string> pluginSearchPaths(const std::string& executable, const std::string& ncclTunerPlugin);

// The first of `paths` that exists, made absolute; "" when none does.
std::string firstExistingFile(const std::vector<std::string>& paths);

// Loads `path` as NCCL would (dlopen, RTLD_LOCAL) and checks it exports an ncclTunerPlugin_v5..v2
// named "flashccl". False with *error saying what is wrong.
bool checkTunerPlugin(const std::string& path, std::string* error);

}  // namespace tune
}  // namespace flashccl
