// The validator on a corpus of broken files: each must be rejected with its own message, at the
// line the file's header names.
#include <gtest/gtest.h>

#include <dirent.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include "msccl/algorithm_file.h"
#include "msccl/validator.h"
#include "msccl_test_support.h"

namespace flashccl::msccl {
namespace {

using testing::dataPath;

using testing::xmlFilesIn;

struct Expectation {
  int line = -1;
  std::string message;
};

// Every broken file starts with "<!-- Broken on purpose: why.\n     expect line N: text\n-->".
Expectation expectationOf(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  std::smatch m;
  std::string s = text.str();
  Expectation e;
  if (std::regex_search(s, m, std::regex("expect line ([0-9]+): ([^\n]*)\n"))) {
    e.line = std::stoi(m[1]);
    e.message = m[2];
  }
  return e;
}

class BrokenFile : public ::testing::TestWithParam<std::string> {};

TEST_P(BrokenFile, IsRejectedWithItsOwnMessageAndLine) {
  const std::string path = dataPath("broken/" + GetParam());
  Expectation want = expectationOf(path);
  ASSERT_GE(want.line, 0) << path << " has no 'expect line N: text' header";
  Program program;
  std::vector<Diagnostic> errors;
  EXPECT_EQ(loadAlgorithmFile(path, ValidationOptions(), &program, &errors), ncclInvalidUsage);
  ASSERT_FALSE(errors.empty());
  const Diagnostic& first = errors[0];
  EXPECT_EQ(first.file, path);
  EXPECT_EQ(first.line, want.line) << first.str();
  EXPECT_NE(first.message.find(want.message), std::string::npos)
      << "expected: " << want.message << "\ngot:\n" << joinDiagnostics(errors);

  std::string report;
  EXPECT_FALSE(checkAlgorithmFile(path, &report));
  EXPECT_NE(report.find(path + ":" + std::to_string(want.line) + ": "), std::string::npos) << report;
}

INSTANTIATE_TEST_SUITE_P(MscclValidator, BrokenFile,
                         ::testing::ValuesIn(xmlFilesIn(dataPath("broken"))),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string n = info.param.substr(0, info.param.size() - 4);
                           std::replace(n.begin(), n.end(), '-', '_');
                           return n;
                         });

TEST(MscclValidator, BrokenCorpusHasOneFilePerRuleEachWithItsOwnMessage) {
  std::vector<std::string> files = xmlFilesIn(dataPath("broken"));
  EXPECT_GE(files.size(), 50u);
  std::map<std::string, std::string> byMessage;
  for (const std::string& f : files) {
    Expectation e = expectationOf(dataPath("broken/" + f));
    auto [it, fresh] = byMessage.emplace(e.message, f);
    EXPECT_TRUE(fresh) << f << " and " << it->second << " expect the same message";
  }
}

TEST(MscclValidator, CoResidencyLimitIsAnOption) {
  const std::string path = dataPath("broken/too_many_thread_blocks.xml");
  Program program;
  std::vector<Diagnostic> errors;
  ValidationOptions roomy;
  roomy.maxThreadBlocksPerRank = 132;
  EXPECT_EQ(loadAlgorithmFile(path, roomy, &program, &errors), ncclSuccess) << joinDiagnostics(errors);
}

TEST(MscclValidator, ConnectionDepthIsAnOption) {
  const std::string path = dataPath("broken/deadlock_full_buffers.xml");
  Program program;
  std::vector<Diagnostic> errors;
  ValidationOptions deep;
  deep.connectionDepth = 9;
  deep.checkResults = false;  // it swaps chunks, it does not allgather
  EXPECT_EQ(loadAlgorithmFile(path, deep, &program, &errors), ncclSuccess) << joinDiagnostics(errors);
}

TEST(MscclValidator, ReportsEveryStructuralProblemNotJustTheFirst) {
  Program p = testing::parseFileOrDie(dataPath("vector_a_allpairs_2gpus_ll.xml"));
  p.gpus[0].threadBlocks[1].steps[0].count = 90;   // cnt out of range
  p.gpus[1].threadBlocks[1].channel = 3;           // channel out of range
  std::vector<Diagnostic> errors;
  EXPECT_EQ(validateProgram(p, ValidationOptions(), &errors), ncclInvalidUsage);
  std::string all = joinDiagnostics(errors);
  EXPECT_NE(all.find("cnt=90 is out of range"), std::string::npos) << all;
  EXPECT_NE(all.find("channel 3 is out of range"), std::string::npos) << all;
}

TEST(MscclValidator, CheckAlgorithmFileDescribesAValidFile) {
  std::string report;
  const std::string path = dataPath("vector_b_ring_3gpus_ll.xml");
  EXPECT_TRUE(checkAlgorithmFile(path, &report));
  EXPECT_EQ(report, path + ": OK: allreduce, 3 gpus, LL, nchannels=1, nchunksperloop=3, 1 thread "
                           "blocks/rank, in-place only\n");
}

TEST(MscclValidator, CheckAlgorithmFileOnAMissingFile) {
  std::string report;
  EXPECT_FALSE(checkAlgorithmFile(dataPath("nope.xml"), &report));
  EXPECT_NE(report.find("nope.xml: cannot open"), std::string::npos) << report;
}

}  // namespace
}  // namespace flashccl::msccl
