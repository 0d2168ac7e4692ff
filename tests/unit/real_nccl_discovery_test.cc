// Finding the real NCCL (docs/design.md, "Finding the real NCCL") in the situations apps create: linked with -lnccl, loaded in
// a local scope (PyTorch), flashccl linked instead of NCCL, an explicit FLASHCCL_NCCL_LIBRARY
// (right, wrong, or naming flashccl itself), and no NCCL at all.
#include <gtest/gtest.h>
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include <nccl.h>

#include <map>
#include <string>
#include <vector>

#include "run_child.h"

namespace flashccl {
namespace {

using testing::ChildResult;
using testing::directoryOf;
using testing::runChild;

std::string canonical(const std::string& path) {
  char buffer[PATH_MAX];
  return realpath(path.c_str(), buffer) ? std::string(buffer) : path;
}

bool haveRealNccl() { return !std::string(FLASHCCL_TEST_NCCL_LIBRARY).empty(); }

// flashccl linked in place of NCCL, with no NCCL on the library path: only what the test sets.
ChildResult runLinked(const std::vector<std::string>& commands,
                      std::map<std::string, std::string> env) {
  std::vector<std::string> argv = {FLASHCCL_PROBE_FLASHCCL};
  argv.insert(argv.end(), commands.begin(), commands.end());
  env.emplace("NCCL_DEBUG", "INFO");
  return runChild(argv, env);
}

TEST(Discovery, MissingConfiguredLibraryIsAClearError) {
  const std::string missing = "/nonexistent/flashccl-test/libnccl.so.2";
  ChildResult r = runLinked({"version", "errstr", "lasterror", "uniqueid", "lla2a"},
                            {{"FLASHCCL_NCCL_LIBRARY", missing}});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(r.value("version"), "2,0");  // ncclSystemError
  EXPECT_EQ(r.value("uniqueid"), "2,empty");
  EXPECT_EQ(r.value("errstr"), "invalid usage (run with NCCL_DEBUG=WARN for details)");
  EXPECT_NE(r.value("lasterror").find(missing), std::string::npos) << r.out;
  EXPECT_EQ(r.value("lla2a"), "-1");
  // One WARN, naming the path and every step tried.
  EXPECT_NE(r.err.find("flashccl WARN"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(missing), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("dlsym(RTLD_NEXT"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("flashccl WARN"), r.err.rfind("flashccl WARN")) << r.err;
}

TEST(Discovery, MissingLibraryWarnsEvenWithoutNcclDebug) {
  ChildResult r = runChild({FLASHCCL_PROBE_FLASHCCL, "version"},
                           {{"FLASHCCL_NCCL_LIBRARY", "/nonexistent/libnccl.so.2"}});
  EXPECT_NE(r.err.find("/nonexistent/libnccl.so.2"), std::string::npos) << r.err;
  // ... unless the user explicitly asked for less.
  r = runChild({FLASHCCL_PROBE_FLASHCCL, "version"},
               {{"FLASHCCL_NCCL_LIBRARY", "/nonexistent/libnccl.so.2"}, {"NCCL_DEBUG", "VERSION"}});
  EXPECT_EQ(r.err.find("WARN"), std::string::npos) << r.err;
}

TEST(Discovery, ConfiguredLibrary) {
  if (!haveRealNccl()) GTEST_SKIP();
  ChildResult r = runLinked({"version", "path"},
                            {{"FLASHCCL_NCCL_LIBRARY", FLASHCCL_TEST_NCCL_LIBRARY}});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(r.value("version"), "0," + std::to_string(NCCL_VERSION_CODE));
  EXPECT_EQ(r.value("path"), canonical(FLASHCCL_TEST_NCCL_LIBRARY));
  EXPECT_NE(r.err.find("found by FLASHCCL_NCCL_LIBRARY"), std::string::npos) << r.err;
}

TEST(Discovery, LinkedInsteadOfNcclLoadsItBySoname) {
  if (!haveRealNccl()) GTEST_SKIP();
  ChildResult r = runLinked({"version", "path"},
                            {{"LD_LIBRARY_PATH", directoryOf(FLASHCCL_TEST_NCCL_LIBRARY)}});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(r.value("version"), "0," + std::to_string(NCCL_VERSION_CODE));
  EXPECT_NE(r.err.find("found by dlopen(libnccl.so.2)"), std::string::npos) << r.err;
}

TEST(Discovery, LocalScopeNcclIsFoundNotLoadedTwice) {
  // libnccl dlopen'ed RTLD_LOCAL, so RTLD_NEXT cannot see it. The shim must find that copy
  // (RTLD_NOLOAD), not load another. FLASHCCL_DLOPEN=0: with the redirect on, that dlopen would
  // give flashccl instead (the next test).
  if (!haveRealNccl()) GTEST_SKIP();
  ChildResult r = runChild({FLASHCCL_PROBE_DLOPEN, "version", "path"},
                           {{"LD_PRELOAD", FLASHCCL_SHARED_LIBRARY},
                            {"PROBE_NCCL", FLASHCCL_TEST_NCCL_LIBRARY},
                            {"FLASHCCL_DLOPEN", "0"},
                            {"NCCL_DEBUG", "INFO"}});
  ASSERT_EQ(r.exitCode, 0) << r.out << r.err;
  EXPECT_EQ(r.value("version"), "0," + std::to_string(NCCL_VERSION_CODE));
  EXPECT_EQ(r.value("path"), canonical(FLASHCCL_TEST_NCCL_LIBRARY));
  EXPECT_NE(r.err.find("found by dlopen(libnccl.so.2, RTLD_NOLOAD)"), std::string::npos) << r.err;
}

TEST(Discovery, RedirectedDlopenOfTheRealNcclLoadsThatOneOnce) {
  // The same program with the redirect on: its dlopen gives flashccl, and flashccl loads the
  // library the program named, once.
  if (!haveRealNccl()) GTEST_SKIP();
  ChildResult r = runChild({FLASHCCL_PROBE_DLOPEN, "version", "path"},
                           {{"LD_PRELOAD", FLASHCCL_SHARED_LIBRARY},
                            {"PROBE_NCCL", FLASHCCL_TEST_NCCL_LIBRARY},
                            {"NCCL_DEBUG", "INFO"}});
  ASSERT_EQ(r.exitCode, 0) << r.out << r.err;
  EXPECT_EQ(r.value("version"), "0," + std::to_string(NCCL_VERSION_CODE));
  EXPECT_EQ(r.value("path"), canonical(FLASHCCL_TEST_NCCL_LIBRARY));
  EXPECT_NE(r.err.find(std::string("found by the application's dlopen(") + FLASHCCL_TEST_NCCL_LIBRARY),
            std::string::npos)
      << r.err;
}

TEST(Discovery, LoadedNcclWinsOverADifferentConfiguredOne) {
  // Two NCCLs in one process do not share communicators: the loaded one wins, with a WARN.
  if (std::string(FLASHCCL_PROBE_NCCL).empty()) GTEST_SKIP();
  ChildResult r = runChild({FLASHCCL_PROBE_NCCL, "version", "path"},
                           {{"LD_PRELOAD", FLASHCCL_SHARED_LIBRARY},
                            {"FLASHCCL_NCCL_LIBRARY", FLASHCCL_FAKE_NCCL}});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(r.value("version"), "0," + std::to_string(NCCL_VERSION_CODE));
  EXPECT_EQ(r.value("path"), canonical(FLASHCCL_TEST_NCCL_LIBRARY));
  EXPECT_NE(r.err.find("ignored"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(FLASHCCL_FAKE_NCCL), std::string::npos) << r.err;
}

TEST(Discovery, NeverItselfThroughTheVariable) {
  ChildResult r = runLinked({"version"}, {{"FLASHCCL_NCCL_LIBRARY", FLASHCCL_SHARED_LIBRARY}});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(r.value("version"), "2,0");
  EXPECT_NE(r.err.find("is flashccl itself"), std::string::npos) << r.err;
}

TEST(Discovery, NeverItselfUnderTheNcclSoname) {
  // A libnccl.so.2 that is really flashccl (a symlink, as a proxy package might ship) comes first
  // on the search path: discovery must see through it and not forward to itself.
  char dir[] = "/tmp/flashccl_selfXXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string link = std::string(dir) + "/libnccl.so.2";
  ASSERT_EQ(symlink(canonical(FLASHCCL_SHARED_LIBRARY).c_str(), link.c_str()), 0);
  ChildResult r = runLinked({"version"}, {{"LD_LIBRARY_PATH", dir}});
  unlink(link.c_str());
  rmdir(dir);
  ASSERT_EQ(r.exitCode, 0) << "signal " << r.signal << "\n" << r.err;
  // With the system NCCL registered in ld.so.cache the soname step finds our symlink first
  // (LD_LIBRARY_PATH wins), so the result must be the "itself" error, not a recursion.
  EXPECT_EQ(r.value("version"), "2,0") << r.err;
  EXPECT_NE(r.err.find("is flashccl itself"), std::string::npos) << r.err;
}

TEST(Discovery, FakeNcclThroughTheVariable) {
  ChildResult r = runLinked({"version", "path"}, {{"FLASHCCL_NCCL_LIBRARY", FLASHCCL_FAKE_NCCL}});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(r.value("version"), "0,22803");
  EXPECT_NE(r.err.find("active over NCCL 2.28.3"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace flashccl
