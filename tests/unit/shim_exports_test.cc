// libflashccl.so exports exactly what the installed libnccl.so.2 exports (nccl* and pnccl*), plus
// flashccl*, and needs no shared library beyond the C/C++ runtime.
#include <gtest/gtest.h>

#include <nccl.h>

#include <map>
#include <set>
#include <sstream>
#include <string>

#include "base/nccl_newer_api.h"
#include "run_child.h"

namespace flashccl {
namespace {

using testing::commandOutput;

// Defined dynamic symbols of `library` (nm -D --defined-only).
std::set<std::string> dynamicSymbols(const std::string& library) {
  std::set<std::string> names;
  std::istringstream lines(commandOutput("nm -D --defined-only '" + library + "' 2>/dev/null"));
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream fields(line);
    std::string address, type, name;
    if (fields >> address >> type >> name) names.insert(name.substr(0, name.find('@')));
  }
  return names;
}

bool startsWith(const std::string& text, const char* prefix) { return text.rfind(prefix, 0) == 0; }

TEST(ShimExports, EveryRealNcclExportIsOurs) {
  const std::string real = FLASHCCL_TEST_NCCL_LIBRARY;
  if (real.empty()) GTEST_SKIP() << "no libnccl.so.2 found at configure time";
  std::set<std::string> theirs = dynamicSymbols(real);
  std::set<std::string> ours = dynamicSymbols(FLASHCCL_SHARED_LIBRARY);
  ASSERT_GT(theirs.size(), 100u) << "nm -D could not read " << real;
  ASSERT_FALSE(ours.empty()) << "nm -D could not read " << FLASHCCL_SHARED_LIBRARY;
  for (const std::string& name : theirs) {
    if (!startsWith(name, "nccl") && !startsWith(name, "pnccl")) continue;
    EXPECT_TRUE(ours.count(name)) << name << " is exported by NCCL but not by flashccl";
  }
  // Ours are NCCL 2.32.3's list (base/nccl_functions.h): an older installed NCCL lacks the
  // newest names, which tools/ci/check_exports.py checks against each header instead (ctest
  // Exports.MatchEveryNcclHeader).
  if (NCCL_VERSION_CODE < FLASHCCL_NCCL_API_VERSION_CODE) return;
  for (const std::string& name : ours) {
    if (startsWith(name, "flashccl") || name == "dlopen") continue;
    EXPECT_TRUE(theirs.count(name)) << name << " is exported by flashccl but not by NCCL";
  }
}

TEST(ShimExports, OnlyNcclAndFlashcclSymbolsAndTheDlopenInterposer) {
  // dlopen is the one exception (src/shim/dlopen_redirect.cc, docs/design.md "Reaching every
  // NCCL user"); nothing else of the C library's may be shadowed.
  bool interposer = false;
  for (const std::string& name : dynamicSymbols(FLASHCCL_SHARED_LIBRARY)) {
    if (name == "dlopen") {
      interposer = true;
      continue;
    }
    EXPECT_TRUE(startsWith(name, "nccl") || startsWith(name, "pnccl") ||
                startsWith(name, "flashccl"))
        << "unexpected export " << name;
  }
  EXPECT_TRUE(interposer) << "libflashccl.so does not export its dlopen interposer";
}

TEST(ShimExports, ProfilingAliasesShareTheAddress) {
  // pncclX is an alias of ncclX, as in NCCL: same address in the dynamic symbol table.
  std::istringstream lines(
      commandOutput(std::string("nm -D --defined-only '") + FLASHCCL_SHARED_LIBRARY + "'"));
  std::map<std::string, std::string> address;
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream fields(line);
    std::string addr, type, name;
    if (fields >> addr >> type >> name) address[name] = addr;
  }
  int pairs = 0;
  for (const auto& entry : address) {
    if (!startsWith(entry.first, "pnccl")) continue;
    auto plain = address.find(entry.first.substr(1));
    ASSERT_NE(plain, address.end()) << entry.first << " without " << entry.first.substr(1);
    EXPECT_EQ(plain->second, entry.second) << entry.first;
    ++pairs;
  }
  EXPECT_GT(pairs, 50);
}

TEST(ShimExports, NoNewNeededLibraries) {
  // The library goes into other people's processes (docs/design.md, "Few dependencies"): the CUDA runtime is static.
  const std::set<std::string> allowed = {"libc.so.6",      "libstdc++.so.6", "libdl.so.2",
                                         "libpthread.so.0", "librt.so.1",     "libm.so.6",
                                         "libgcc_s.so.1",  "ld-linux-x86-64.so.2"};
  std::istringstream lines(commandOutput(std::string("readelf -d '") + FLASHCCL_SHARED_LIBRARY +
                                         "' 2>/dev/null"));
  std::string line;
  int needed = 0;
  while (std::getline(lines, line)) {
    if (line.find("(NEEDED)") == std::string::npos) continue;
    size_t open = line.find('['), close = line.find(']');
    ASSERT_NE(open, std::string::npos);
    std::string name = line.substr(open + 1, close - open - 1);
    EXPECT_TRUE(allowed.count(name)) << "libflashccl.so needs " << name;
    ++needed;
  }
  EXPECT_GT(needed, 0) << "readelf -d printed no NEEDED entries";
}

}  // namespace
}  // namespace flashccl
