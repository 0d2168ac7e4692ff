// The shared library as NCCL sees it: struct layouts of every table version it exports, only the
// plugin symbols exported, and nothing but the C/C++ runtime in its dependencies.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdio>
#include <set>
#include <sstream>
#include <string>

#include "nccl_net_abi.h"

namespace {

// x86-64 / aarch64 (LP64) sizes and offsets of NCCL's own definitions (net_v8..v11.h).
static_assert(sizeof(ncclNet_v11_t) == 22 * sizeof(void*), "v11 table: name + 21 functions");
static_assert(sizeof(ncclNet_v10_t) == 20 * sizeof(void*), "v10 table: name + 19 functions");
static_assert(sizeof(ncclNet_v9_t) == 20 * sizeof(void*), "v9 table: name + 19 functions");
static_assert(sizeof(ncclNet_v8_t) == 19 * sizeof(void*), "v8 table: name + 18 functions");
static_assert(offsetof(ncclNet_v11_t, finalize) == 20 * sizeof(void*));
static_assert(offsetof(ncclNet_v11_t, setNetAttr) == 21 * sizeof(void*));
static_assert(offsetof(ncclNet_v8_t, irecvConsumed) == 18 * sizeof(void*));
static_assert(sizeof(ncclNetDeviceHandle_v11_t) == 32);
static_assert(sizeof(ncclNetVDeviceProps_v11_t) == 20);
static_assert(offsetof(ncclNetProperties_v11_t, ptrSupport) == 24);
static_assert(offsetof(ncclNetProperties_v11_t, latency) == 44);
static_assert(offsetof(ncclNetProperties_v11_t, netDeviceType) == 56);
static_assert(offsetof(ncclNetProperties_v11_t, vProps) == 64);
static_assert(offsetof(ncclNetProperties_v11_t, maxP2pBytes) == 88);
static_assert(offsetof(ncclNetProperties_v11_t, maxMultiRequestSize) == 104);
static_assert(sizeof(ncclNetProperties_v11_t) == 112);
static_assert(sizeof(ncclNetProperties_v10_t) == 104);
static_assert(offsetof(ncclNetProperties_v8_t, speed) == 32);
static_assert(offsetof(ncclNetProperties_v8_t, netDeviceVersion) == 56);
static_assert(sizeof(ncclNetProperties_v8_t) == 64);
static_assert(sizeof(ncclNetAttr_v11_t) == 44);

std::string run(const std::string& command) {
  std::string output;
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return output;
  char line[512];
  while (fgets(line, sizeof(line), pipe)) output += line;
  pclose(pipe);
  return output;
}

TEST(SharedLibrary, ExportsTheNetTablesAndNothingElse) {
  std::string symbols = run(std::string("nm -D --defined-only ") + SOFTBOND_PLUGIN_PATH);
  ASSERT_FALSE(symbols.empty()) << "nm gave no output (binutils missing?)";
  std::set<std::string> exported;
  std::istringstream lines(symbols);
  for (std::string address, kind, name; lines >> address >> kind >> name;) exported.insert(name);
  EXPECT_EQ(exported, (std::set<std::string>{"ncclNetPlugin_v8", "ncclNetPlugin_v9", "ncclNetPlugin_v10",
                                             "ncclNetPlugin_v11"}))
      << symbols;
}

TEST(SharedLibrary, NeedsOnlyTheCAndCxxRuntimes) {
  const std::set<std::string> allowed = {"libc.so.6", "libstdc++.so.6", "libgcc_s.so.1", "libm.so.6",
                                         "libpthread.so.0", "libdl.so.2"};
  std::string dynamic = run(std::string("readelf -d ") + SOFTBOND_PLUGIN_PATH);
  ASSERT_NE(dynamic.find("NEEDED"), std::string::npos) << dynamic;
  std::istringstream lines(dynamic);
  for (std::string line; std::getline(lines, line);) {
    if (line.find("(NEEDED)") == std::string::npos) continue;
    std::string library = line.substr(line.find('[') + 1);
    library = library.substr(0, library.find(']'));
    EXPECT_TRUE(allowed.count(library)) << "unexpected dependency " << library;
  }
  EXPECT_EQ(dynamic.find("libflashccl"), std::string::npos);
  EXPECT_EQ(dynamic.find("libibverbs"), std::string::npos) << "libibverbs must be dlopen'ed, not linked";
}

}  // namespace
