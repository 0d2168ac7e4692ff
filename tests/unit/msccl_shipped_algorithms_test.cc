// Every shipped algorithm file (algorithms/*.xml) is valid, computes its collective on every
// rank in both layouts it claims (and claims exactly the layouts it computes), reduces
// deterministically, and is exactly what tools/msccl/gen_algorithms.py generates.
#include <gtest/gtest.h>

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

#include "msccl/algorithm_file.h"
#include "msccl/simulator.h"
#include "msccl_test_support.h"

namespace flashccl::msccl {
namespace {

using testing::sourcePath;

using testing::xmlFilesIn;

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

const std::string kAlgorithmDir = sourcePath("algorithms");

class ShippedAlgorithm : public ::testing::TestWithParam<std::string> {};

TEST_P(ShippedAlgorithm, IsValidAndComputesItsCollectiveOnEveryRank) {
  const std::string path = kAlgorithmDir + "/" + GetParam();
  Program p;
  std::vector<Diagnostic> errors;
  ASSERT_EQ(loadAlgorithmFile(path, ValidationOptions(), &p, &errors), ncclSuccess)
      << joinDiagnostics(errors);
  ASSERT_TRUE(p.coll.has_value());

  for (Layout layout : {Layout::kInPlace, Layout::kOutOfPlace}) {
    const bool claimed = layout == Layout::kInPlace ? p.inplace : p.outofplace;
    CollectiveCheck c = checkCollective(p, layout);
    // Honest flags: claimed exactly when proven.
    EXPECT_EQ(c.ok, claimed) << layoutName(layout) << ": " << c.report;
    if (!c.ok) continue;
    if (p.coll == CollKind::kAllReduce) {
      EXPECT_TRUE(c.identicalOnAllRanks) << c.report;  // docs/design.md, "Deterministic order"
    }
    // Everything but the rings reduces in rank order (rings: once per chunk, in ring order).
    if (GetParam().find("_ring--") == std::string::npos) {
      EXPECT_TRUE(c.rankOrder) << layoutName(layout) << ": " << c.report;
    }
  }
}

// The reference kernel does not store step numbers: it counts (msccl-format.md §2.4), adding
// numDependencies-1 after a wait and numReductions-1 after a fused re. In a valid program that
// count must land on the step each transmission publishes.
void expectExecutorStepCounterMatches(const Program& p, const std::string& what) {
  for (const Gpu& g : p.gpus) {
    for (const ThreadBlock& tb : g.threadBlocks) {
      int step = 0;
      for (const Transmission& t : tb.transmissions) {
        if (!t.deps.empty()) step += static_cast<int>(t.deps.size()) - 1;
        if (t.type == StepType::kReduce) step += static_cast<int>(t.reduceSrcOffs.size()) - 1;
        EXPECT_EQ(step, t.step) << what << " gpu " << g.id << " tb " << tb.id << " line " << t.line;
        ++step;
      }
      EXPECT_EQ(step, static_cast<int>(tb.steps.size())) << what << " gpu " << g.id << " tb " << tb.id;
    }
  }
}

TEST_P(ShippedAlgorithm, PublishedStepsAreWhatTheExecutorsCounterGives) {
  expectExecutorStepCounterMatches(testing::parseFileOrDie(kAlgorithmDir + "/" + GetParam()), GetParam());
}

TEST(MscclShipped, ReferenceVectorsStepCounterMatchesToo) {
  for (const char* name : {"vector_a_allpairs_2gpus_ll.xml", "vector_b_ring_3gpus_ll.xml",
                           "vector_c_1step_4gpus_gpu0_tb0.xml"}) {
    expectExecutorStepCounterMatches(testing::parseFileOrDie(testing::dataPath(name)), name);
  }
}

TEST_P(ShippedAlgorithm, NameSaysWhatItIs) {
  Program p = testing::parseFileOrDie(kAlgorithmDir + "/" + GetParam());
  const std::string& name = GetParam();
  EXPECT_EQ(name, p.name + ".xml");
  EXPECT_EQ(name.rfind(p.collName + "_", 0), 0u) << name;
  EXPECT_NE(name.find("-gpus_" + std::to_string(p.ngpus) + "-"), std::string::npos) << name;
  EXPECT_NE(name.find(std::string("-proto_") + protocolName(p.proto) + ".xml"), std::string::npos) << name;
}

TEST_P(ShippedAlgorithm, KeepsToTheReferenceExecutorsLexicalRules) {
  // So the same files run under msccl-executor-nccl too (msccl-format.md §1.1): no tabs, no XML
  // declaration, every element on one line, double quotes.
  std::string text = readFile(kAlgorithmDir + "/" + GetParam());
  EXPECT_EQ(text.find('\t'), std::string::npos);
  EXPECT_EQ(text.find("<?"), std::string::npos);
  EXPECT_EQ(text.find("='"), std::string::npos);
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.find('<') != std::string::npos) {
      EXPECT_EQ(line.back(), '>') << line;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(MscclShipped, ShippedAlgorithm, ::testing::ValuesIn(xmlFilesIn(kAlgorithmDir)),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string n = info.param.substr(0, info.param.size() - 4);
                           for (char& c : n) {
                             if (!isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return n;
                         });

TEST(MscclShipped, CoversTheAlgorithmsTheIssueAsksFor) {
  std::set<std::string> files;
  for (const std::string& f : xmlFilesIn(kAlgorithmDir)) files.insert(f);
  for (int n : {2, 4, 8}) {
    for (const char* proto : {"LL", "LL128"}) {
      const std::string tail = "-proto_" + std::string(proto) + ".xml";
      const std::string g = "--gpus_" + std::to_string(n);
      EXPECT_TRUE(files.count("allreduce_1step" + g + "-instances_4" + tail)) << n << proto;
      EXPECT_TRUE(files.count("allreduce_allpairs" + g + "-instances_4" + tail)) << n << proto;
      EXPECT_TRUE(files.count("allreduce_ring" + g + "-channels_1" + tail)) << n << proto;
      EXPECT_TRUE(files.count("allgather_direct" + g + "-instances_2" + tail)) << n << proto;
      EXPECT_TRUE(files.count("allgather_ring" + g + "-channels_8" + tail)) << n << proto;
      EXPECT_TRUE(files.count("reducescatter_direct" + g + "-instances_2" + tail)) << n << proto;
      EXPECT_TRUE(files.count("reducescatter_ring" + g + "-channels_8" + tail)) << n << proto;
    }
  }
}

TEST(MscclShipped, CommittedFilesAreWhatTheGeneratorWrites) {
  const std::string python = FLASHCCL_PYTHON3;
  ASSERT_FALSE(python.empty()) << "CMake found no python3; the generator needs one";
  char tmpl[] = "/tmp/flashccl_msccl_gen_XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl;
  const std::string cmd = "'" + python + "' '" + sourcePath("tools/msccl/gen_algorithms.py") +
                          "' --out '" + dir + "' > /dev/null";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;

  std::vector<std::string> generated = xmlFilesIn(dir);
  std::vector<std::string> committed = xmlFilesIn(kAlgorithmDir);
  EXPECT_EQ(generated, committed)
      << "algorithms/ is out of date: run tools/msccl/gen_algorithms.py and commit the result";
  for (const std::string& f : generated) {
    EXPECT_EQ(readFile(dir + "/" + f), readFile(kAlgorithmDir + "/" + f))
        << f << " differs from the generator's output: run tools/msccl/gen_algorithms.py";
    unlink((dir + "/" + f).c_str());
  }
  rmdir(dir.c_str());
}

}  // namespace
}  // namespace flashccl::msccl
