// The dlopen redirect (docs/design.md, "Reaching every NCCL user"): a client shaped like vLLM's
// and SGLang's wrapper (dlopen of a libnccl.so* by path or by name, every call through that
// handle) under LD_PRELOAD=libflashccl.so gets flashccl's exports, while flashccl's own loader
// still gets the NCCL the client named (here the fake NCCL, reached through a libnccl.so.2 link).
#include <gtest/gtest.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <map>
#include <string>
#include <vector>

#include "run_child.h"

namespace flashccl {
namespace {

using testing::ChildResult;
using testing::runChild;

std::string canonical(const std::string& path) {
  char buffer[PATH_MAX];
  return realpath(path.c_str(), buffer) ? std::string(buffer) : path;
}

// A folder holding libnccl.so.2 -> the fake NCCL: the name the redirect answers for.
class DlopenRedirect : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/flashccl_dlopen_XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
    link_ = dir_ + "/libnccl.so.2";
    ASSERT_EQ(symlink(FLASHCCL_FAKE_NCCL, link_.c_str()), 0);
  }
  void TearDown() override {
    unlink(link_.c_str());
    rmdir(dir_.c_str());
  }

  // The handle client, loading `library`, with the given environment on top of the preload.
  ChildResult runClient(const std::string& library, const std::vector<std::string>& commands,
                        std::map<std::string, std::string> env = {}, bool preload = true) {
    std::vector<std::string> argv = {FLASHCCL_PROBE_HANDLE};
    argv.insert(argv.end(), commands.begin(), commands.end());
    env.emplace("PROBE_NCCL", library);
    env.emplace("FAKE_NCCL_FILE", FLASHCCL_FAKE_NCCL);
    env.emplace("NCCL_DEBUG", "INFO");
    if (preload) env.emplace("LD_PRELOAD", FLASHCCL_SHARED_LIBRARY);
    ChildResult r = runChild(argv, env);
    EXPECT_EQ(r.exitCode, 0) << "signal " << r.signal << "\n" << r.out << r.err;
    return r;
  }

  std::string dir_, link_;
};

TEST_F(DlopenRedirect, ByPathUnderThePreloadTheHandleIsFlashccl) {
  ChildResult r = runClient(link_, {"handle", "version", "path", "init", "allreduce", "destroy",
                                    "fakecalls:ncclAllReduce"});
  EXPECT_EQ(r.value("handle"), "flashccl") << r.err;
  EXPECT_EQ(r.value("version"), "0,22803");  // the fake's version, through flashccl
  // flashccl's own loader opened the library the client named, not flashccl, not a second NCCL.
  EXPECT_EQ(r.value("path"), canonical(FLASHCCL_FAKE_NCCL));
  EXPECT_EQ(r.value("allreduce"), "0");
  EXPECT_EQ(r.value("fakecalls:ncclAllReduce"), "1");
  EXPECT_NE(r.err.find("destroyed: intercepted 0; forwarded 1 ("), std::string::npos) << r.err;
  // The first-use INFO line says how flashccl was reached and how the real NCCL was found.
  EXPECT_NE(r.err.find("flashccl reached by LD_PRELOAD, and the application's dlopen(" + link_ + ")"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("found by the application's dlopen(" + link_ + ")"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("FLASHCCL_DLOPEN=0 turns this off"), std::string::npos) << r.err;
}

TEST_F(DlopenRedirect, BySonameUnderThePreloadTheHandleIsFlashccl) {
  // vLLM's default: ctypes.CDLL("libnccl.so.2"), found through the library path.
  ChildResult r = runClient("libnccl.so.2", {"handle", "version", "path"},
                            {{"LD_LIBRARY_PATH", dir_}});
  EXPECT_EQ(r.value("handle"), "flashccl") << r.err;
  EXPECT_EQ(r.value("version"), "0,22803");
  EXPECT_EQ(r.value("path"), canonical(FLASHCCL_FAKE_NCCL));
  EXPECT_NE(r.err.find("found by dlopen(libnccl.so.2)"), std::string::npos) << r.err;
}

TEST_F(DlopenRedirect, OffWithFlashcclDlopenZero) {
  ChildResult r = runClient(link_, {"handle", "version"}, {{"FLASHCCL_DLOPEN", "0"}});
  EXPECT_EQ(r.value("handle"), "fake") << r.err;
  EXPECT_EQ(r.value("version"), "0,22803");
  EXPECT_EQ(r.err.find("gives flashccl"), std::string::npos) << r.err;
}

TEST_F(DlopenRedirect, NotPreloadedNothingIsRedirected) {
  ChildResult r = runClient(link_, {"handle"}, {}, /*preload=*/false);
  EXPECT_EQ(r.value("handle"), "fake") << r.err;
}

TEST_F(DlopenRedirect, TheLibraryByItsOwnPathReportsHowItWasReached) {
  ChildResult r = runClient(FLASHCCL_SHARED_LIBRARY, {"handle", "version"},
                            {{"FLASHCCL_NCCL_LIBRARY", FLASHCCL_FAKE_NCCL}}, /*preload=*/false);
  EXPECT_EQ(r.value("handle"), "flashccl") << r.err;
  EXPECT_NE(r.err.find("flashccl reached by dlopen by path"), std::string::npos) << r.err;
}

TEST_F(DlopenRedirect, OtherNamesKeepTheCallersRunpath) {
  // The redirect must call the C library's dlopen as a tail call: a name without a slash is
  // searched with the calling object's RUNPATH, which must stay the client's, not flashccl's.
  const std::string folder = FLASHCCL_PROBE_RUNPATH_DIR;
  mkdir(folder.c_str(), 0755);
  const std::string only = folder + "/libflashccl_runpath_probe.so";
  unlink(only.c_str());
  ASSERT_EQ(symlink(FLASHCCL_FAKE_NCCL, only.c_str()), 0);
  ChildResult r = runClient(link_, {"open:libflashccl_runpath_probe.so"});
  EXPECT_EQ(r.value("open:libflashccl_runpath_probe.so"), "found") << r.out << r.err;
  unlink(only.c_str());
}

}  // namespace
}  // namespace flashccl
