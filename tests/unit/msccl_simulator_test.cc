// The CPU simulator: what the reference vectors compute, and how it reports deadlocks and races.
#include <gtest/gtest.h>

#include "msccl/simulator.h"
#include "msccl/validator.h"
#include "msccl_test_support.h"

namespace flashccl::msccl {
namespace {

using testing::dataPath;
using testing::parseFileOrDie;
using testing::parseOrDie;

TEST(MscclSimulator, VectorAComputesInPlaceAllreduce) {
  Program p = parseFileOrDie(dataPath("vector_a_allpairs_2gpus_ll.xml"));
  CollectiveCheck c = checkCollective(p, Layout::kInPlace);
  EXPECT_TRUE(c.ok) << c.report;
  EXPECT_TRUE(c.identicalOnAllRanks);
  // Each half is reduced once, at its owner, then copied: two ranks, so trivially rank order.
  EXPECT_TRUE(c.rankOrder);
}

TEST(MscclSimulator, VectorAIsNotOutOfPlace) {
  // It claims inplace=1 outofplace=0, and indeed only ever touches i: out of place, the output
  // keeps its junk.
  Program p = parseFileOrDie(dataPath("vector_a_allpairs_2gpus_ll.xml"));
  CollectiveCheck c = checkCollective(p, Layout::kOutOfPlace);
  EXPECT_FALSE(c.ok);
  EXPECT_NE(c.report.find("out-of-place allreduce run leaves a wrong value in o[0] of gpu 0"),
            std::string::npos) << c.report;
}

TEST(MscclSimulator, VectorBComputesInPlaceAllreduceInRingOrder) {
  Program p = parseFileOrDie(dataPath("vector_b_ring_3gpus_ll.xml"));
  CollectiveCheck c = checkCollective(p, Layout::kInPlace);
  EXPECT_TRUE(c.ok) << c.report;
  // Every chunk is reduced once around the ring and then passed on: the same bits everywhere,
  // but chunk k is reduced starting at rank k, not in rank order.
  EXPECT_TRUE(c.identicalOnAllRanks);
  EXPECT_FALSE(c.rankOrder);
}

TEST(MscclSimulator, ReferenceVectorsValidate) {
  for (const char* name : {"vector_a_allpairs_2gpus_ll.xml", "vector_b_ring_3gpus_ll.xml"}) {
    Program p = parseFileOrDie(dataPath(name));
    std::vector<Diagnostic> errors;
    EXPECT_EQ(validateProgram(p, ValidationOptions(), &errors), ncclSuccess)
        << name << "\n" << joinDiagnostics(errors);
  }
}

TEST(MscclSimulator, OrderFingerprintIsCommutativeNotAssociative) {
  const uint64_t a = 11, b = 22, c = 33;
  EXPECT_EQ(applySimOp(SimOp::kOrderFingerprint, a, b), applySimOp(SimOp::kOrderFingerprint, b, a));
  EXPECT_NE(applySimOp(SimOp::kOrderFingerprint, applySimOp(SimOp::kOrderFingerprint, a, b), c),
            applySimOp(SimOp::kOrderFingerprint, a, applySimOp(SimOp::kOrderFingerprint, b, c)));
  EXPECT_EQ(applySimOp(SimOp::kSum, a, b), 33u);
}

TEST(MscclSimulator, InPlaceLayoutsAliasAsNcclDefines) {
  Program p;
  p.ngpus = 4;
  p.nchunksperloop = 8;
  p.gpus.resize(4);
  for (int r = 0; r < 4; ++r) {
    p.gpus[r].id = r;
    p.gpus[r].scratchChunks = 3;
  }
  p.collName = "allgather";
  p.coll = CollKind::kAllGather;
  std::vector<RankLayout> l = layoutProgram(p, Layout::kInPlace);
  EXPECT_EQ(l[2].chunkIndex(BufferKind::kInput, 1), l[2].chunkIndex(BufferKind::kOutput, 5));
  EXPECT_EQ(l[2].chunks[0], 2);
  EXPECT_EQ(l[2].totalChunks, 8 + 3);
  p.collName = "reducescatter";
  p.coll = CollKind::kReduceScatter;
  l = layoutProgram(p, Layout::kInPlace);
  EXPECT_EQ(l[3].chunkIndex(BufferKind::kOutput, 0), l[3].chunkIndex(BufferKind::kInput, 6));
  p.collName = "allreduce";
  p.coll = CollKind::kAllReduce;
  l = layoutProgram(p, Layout::kInPlace);
  EXPECT_EQ(l[1].chunkIndex(BufferKind::kOutput, 7), l[1].chunkIndex(BufferKind::kInput, 7));
  l = layoutProgram(p, Layout::kOutOfPlace);
  EXPECT_NE(l[1].chunkIndex(BufferKind::kOutput, 7), l[1].chunkIndex(BufferKind::kInput, 7));
  EXPECT_EQ(l[1].totalChunks, 8 + 8 + 3);
}

// A one-shot allreduce the way RCCL's removed files did it (ROCm/rccl PR #1375): every rank
// starts from its own input and adds the others, so rank 2 computes (x2 + x0) + x1 while rank 0
// computes (x0 + x1) + x2. Exact in integers, different bits in floats.
TEST(MscclSimulator, OneShotStartingFromTheOwnInputDiffersBetweenRanks) {
  const int n = 3;
  std::string xml = "<algo name=\"own-first\" proto=\"LL\" nchannels=\"1\" nchunksperloop=\"1\" ngpus=\"3\" "
                    "coll=\"allreduce\" inplace=\"1\" outofplace=\"1\" minBytes=\"0\" maxBytes=\"0\">\n";
  for (int r = 0; r < n; ++r) {
    xml += "<gpu id=\"" + std::to_string(r) + "\" i_chunks=\"1\" o_chunks=\"1\" s_chunks=\"3\">\n";
    int tb = 0;
    std::vector<int> peerTbs;
    for (int p = 0; p < n; ++p) {
      if (p == r) continue;
      xml += "<tb id=\"" + std::to_string(tb) + "\" send=\"" + std::to_string(p) + "\" recv=\"" +
             std::to_string(p) + "\" chan=\"0\">\n" + "<step s=\"0\" type=\"s\" srcbuf=\"i\" srcoff=\"0\" dstbuf=\"i\" dstoff=\"0\" cnt=\"1\" depid=\"-1\" deps=\"-1\" hasdep=\"0\"/>\n" +
             "<step s=\"1\" type=\"r\" srcbuf=\"s\" srcoff=\"" + std::to_string(p) + "\" dstbuf=\"s\" dstoff=\"" +
             std::to_string(p) + "\" cnt=\"1\" depid=\"-1\" deps=\"-1\" hasdep=\"1\"/>\n</tb>\n";
      peerTbs.push_back(tb++);
    }
    xml += "<tb id=\"2\" send=\"-1\" recv=\"-1\" chan=\"0\">\n"
           "<step s=\"0\" type=\"nop\" srcbuf=\"i\" srcoff=\"-1\" dstbuf=\"o\" dstoff=\"-1\" cnt=\"0\" depid=\"0\" deps=\"1\" hasdep=\"0\"/>\n"
           "<step s=\"1\" type=\"cpy\" srcbuf=\"i\" srcoff=\"0\" dstbuf=\"o\" dstoff=\"0\" cnt=\"1\" depid=\"1\" deps=\"1\" hasdep=\"0\"/>\n";
    int s = 2;
    for (int p = 0; p < n; ++p) {
      if (p == r) continue;
      xml += "<step s=\"" + std::to_string(s++) + "\" type=\"re\" srcbuf=\"s\" srcoff=\"" + std::to_string(p) +
             "\" dstbuf=\"o\" dstoff=\"0\" cnt=\"1\" depid=\"-1\" deps=\"-1\" hasdep=\"0\"/>\n";
    }
    xml += "</tb>\n</gpu>\n";
  }
  xml += "</algo>\n";
  Program p = parseOrDie(xml);
  std::vector<Diagnostic> errors;
  EXPECT_EQ(validateProgram(p, ValidationOptions(), &errors), ncclSuccess) << joinDiagnostics(errors);
  CollectiveCheck c = checkCollective(p, Layout::kOutOfPlace);
  EXPECT_TRUE(c.ok) << c.report;
  EXPECT_FALSE(c.identicalOnAllRanks);
  EXPECT_FALSE(c.rankOrder);
  EXPECT_NE(c.report.find("reduced in a different order per rank"), std::string::npos) << c.report;
}

// --- deadlocks and races, on hand-made programs ---------------------------------------------

// Two ranks; tb 0 of each talks to the other. `steps0`/`steps1` are the <step> lines.
std::string twoRanks(const std::string& steps0, const std::string& steps1,
                     const std::string& extraTbs0 = "", const std::string& extraTbs1 = "") {
  return "<algo name=\"t\" proto=\"LL\" nchannels=\"1\" nchunksperloop=\"16\" ngpus=\"2\" "
         "coll=\"allreduce\" inplace=\"0\" outofplace=\"1\" minBytes=\"0\" maxBytes=\"0\">\n"
         "<gpu id=\"0\" i_chunks=\"16\" o_chunks=\"16\" s_chunks=\"16\">\n"
         "<tb id=\"0\" send=\"1\" recv=\"1\" chan=\"0\">\n" + steps0 + "</tb>\n" + extraTbs0 +
         "</gpu>\n"
         "<gpu id=\"1\" i_chunks=\"16\" o_chunks=\"16\" s_chunks=\"16\">\n"
         "<tb id=\"0\" send=\"0\" recv=\"0\" chan=\"0\">\n" + steps1 + "</tb>\n" + extraTbs1 +
         "</gpu>\n</algo>\n";
}

std::string step(int s, const char* type, const char* src, int srcoff, const char* dst, int dstoff,
                 int cnt, int depid = -1, int deps = -1, int hasdep = 0) {
  return "<step s=\"" + std::to_string(s) + "\" type=\"" + type + "\" srcbuf=\"" + src +
         "\" srcoff=\"" + std::to_string(srcoff) + "\" dstbuf=\"" + dst + "\" dstoff=\"" +
         std::to_string(dstoff) + "\" cnt=\"" + std::to_string(cnt) + "\" depid=\"" +
         std::to_string(depid) + "\" deps=\"" + std::to_string(deps) + "\" hasdep=\"" +
         std::to_string(hasdep) + "\"/>\n";
}

SimResult run(const Program& p, int depth, Layout layout = Layout::kOutOfPlace) {
  SimMemory mem(layoutProgram(p, layout), 2);
  return simulate(p, {SimOp::kSum, depth}, &mem);
}

TEST(MscclSimulator, SendsBeforeReceivesNeedBufferedConnections) {
  // Both ranks send 9 chunks, then receive them. With 8-chunk LL buffers neither send can finish
  // before the other side receives: a deadlock that no dependency graph shows.
  std::string both = step(0, "s", "i", 0, "s", 0, 9) + step(1, "r", "i", 0, "s", 0, 9);
  Program p = parseOrDie(twoRanks(both, both));
  SimResult stuck = run(p, 0);
  ASSERT_EQ(stuck.status, SimResult::Status::kDeadlock);
  EXPECT_EQ(stuck.problem.line, 4);
  EXPECT_NE(stuck.problem.message.find(
                "deadlock (connections buffering 8 chunks): gpu 0 tb 0 step 0 (line 4) waits for "
                "room to send to gpu 1 on channel 0; gpu 1 tb 0 step 0 (line 10) waits for room"),
            std::string::npos)
      << stuck.problem.str();
  EXPECT_EQ(run(p, 9).status, SimResult::Status::kCompleted);

  std::vector<Diagnostic> errors;
  EXPECT_EQ(validateProgram(p, ValidationOptions(), &errors), ncclInvalidUsage);
  ASSERT_FALSE(errors.empty());
  EXPECT_NE(errors[0].message.find("deadlock (connections buffering 8 chunks)"), std::string::npos)
      << errors[0].str();
}

TEST(MscclSimulator, ReceiveBeforeSendOnBothSidesIsACycle) {
  std::string both = step(0, "r", "i", 0, "s", 0, 1) + step(1, "s", "i", 0, "s", 0, 1);
  Program p = parseOrDie(twoRanks(both, both));
  SimResult stuck = run(p, 8);
  ASSERT_EQ(stuck.status, SimResult::Status::kDeadlock);
  EXPECT_NE(stuck.problem.message.find("gpu 0 tb 0 step 0 (line 4) waits for data from gpu 1 on channel 0"),
            std::string::npos) << stuck.problem.str();

  // The validator sees it before running anything: a cycle through the two connections.
  std::vector<Diagnostic> errors;
  EXPECT_EQ(validateProgram(p, ValidationOptions(), &errors), ncclInvalidUsage);
  ASSERT_FALSE(errors.empty());
  EXPECT_EQ(errors[0].line, 4);
  EXPECT_NE(errors[0].message.find(
                "dependency cycle: gpu 0 tb 0 step 0 (line 4) receives from gpu 1 tb 0 step 1 "
                "(line 11); gpu 1 tb 0 step 0 (line 10) receives from gpu 0 tb 0 step 1 (line 5)"),
            std::string::npos) << errors[0].str();
}

TEST(MscclSimulator, CrossThreadBlockDependencyCycleWithinARank) {
  // gpu 0: tb 1 and tb 2 each wait for the other's published step.
  std::string local =
      "<tb id=\"1\" send=\"-1\" recv=\"-1\" chan=\"0\">\n" +
      step(0, "cpy", "i", 1, "o", 1, 1, 2, 0, 1) + "</tb>\n"
      "<tb id=\"2\" send=\"-1\" recv=\"-1\" chan=\"0\">\n" +
      step(0, "cpy", "i", 2, "o", 2, 1, 1, 0, 1) + "</tb>\n";
  std::string sr = step(0, "s", "i", 0, "s", 0, 1) + step(1, "r", "i", 0, "s", 0, 1);
  Program p = parseOrDie(twoRanks(sr, sr, local));
  std::vector<Diagnostic> errors;
  EXPECT_EQ(validateProgram(p, ValidationOptions(), &errors), ncclInvalidUsage);
  ASSERT_FALSE(errors.empty());
  EXPECT_NE(errors[0].message.find("dependency cycle: gpu 0 tb 1 step 0 (line 8) waits for gpu 0 "
                                   "tb 2 step 0 (line 11); gpu 0 tb 2 step 0 (line 11) waits for "
                                   "gpu 0 tb 1 step 0 (line 8)"),
            std::string::npos) << errors[0].str();
  SimResult stuck = run(p, 8);
  EXPECT_EQ(stuck.status, SimResult::Status::kDeadlock);
  EXPECT_NE(stuck.problem.message.find("gpu 0 tb 1 step 0 (line 8) waits for tb 2 step 0"),
            std::string::npos) << stuck.problem.str();
}

TEST(MscclSimulator, WaitingOnALaterStepOfItsOwnThreadBlockIsACycle) {
  std::string local = "<tb id=\"1\" send=\"-1\" recv=\"-1\" chan=\"0\">\n" +
                      step(0, "cpy", "i", 1, "o", 1, 1, 1, 1) +
                      step(1, "cpy", "i", 2, "o", 2, 1, -1, -1, 1) + "</tb>\n";
  std::string sr = step(0, "s", "i", 0, "s", 0, 1) + step(1, "r", "i", 0, "s", 0, 1);
  Program p = parseOrDie(twoRanks(sr, sr, local));
  std::vector<Diagnostic> errors;
  EXPECT_EQ(validateProgram(p, ValidationOptions(), &errors), ncclInvalidUsage);
  ASSERT_FALSE(errors.empty());
  EXPECT_NE(errors[0].message.find("dependency cycle: gpu 0 tb 1 step 0 (line 8) waits for gpu 0 tb 1 step 1"),
            std::string::npos) << errors[0].str();
}

TEST(MscclSimulator, ReportsUnorderedWritesAsADataRace) {
  // tb 1 and tb 2 of gpu 0 both write o[3], with nothing between them.
  std::string local = "<tb id=\"1\" send=\"-1\" recv=\"-1\" chan=\"0\">\n" +
                      step(0, "cpy", "i", 1, "o", 3, 1) + "</tb>\n"
                      "<tb id=\"2\" send=\"-1\" recv=\"-1\" chan=\"0\">\n" +
                      step(0, "cpy", "i", 2, "o", 3, 1) + "</tb>\n";
  std::string sr = step(0, "s", "i", 0, "s", 0, 1) + step(1, "r", "i", 0, "s", 0, 1);
  Program p = parseOrDie(twoRanks(sr, sr, local));
  SimResult res = run(p, 8);
  ASSERT_EQ(res.status, SimResult::Status::kDataRace);
  EXPECT_EQ(res.problem.line, 11);
  EXPECT_NE(res.problem.message.find("data race on gpu 0 o[3]: tb 1 step 0 (line 8) writes it and "
                                     "tb 2 step 0 (line 11) writes it"),
            std::string::npos) << res.problem.str();

  // With tb 2 waiting for tb 1 they are ordered, and the race is gone.
  std::string ordered = "<tb id=\"1\" send=\"-1\" recv=\"-1\" chan=\"0\">\n" +
                        step(0, "cpy", "i", 1, "o", 3, 1, -1, -1, 1) + "</tb>\n"
                        "<tb id=\"2\" send=\"-1\" recv=\"-1\" chan=\"0\">\n" +
                        step(0, "cpy", "i", 2, "o", 3, 1, 1, 0) + "</tb>\n";
  EXPECT_EQ(run(parseOrDie(twoRanks(sr, sr, ordered)), 8).status, SimResult::Status::kCompleted);
}

TEST(MscclSimulator, AMessageOrdersAccessesAcrossThreadBlocks) {
  // gpu 0 tb 1 writes s[5], then tb 0 sends something to gpu 1 which sends back, and tb 2 of gpu 0
  // reads s[5] only after receiving that: ordered through gpu 1, no race. The same read without
  // the round trip races.
  std::string writer = "<tb id=\"1\" send=\"-1\" recv=\"-1\" chan=\"0\">\n" +
                       step(0, "cpy", "i", 1, "s", 5, 1, -1, -1, 1) + "</tb>\n";
  std::string tb0 = step(0, "s", "i", 0, "s", 0, 1, 1, 0) + step(1, "r", "i", 0, "s", 0, 1, -1, -1, 1);
  std::string reader = "<tb id=\"2\" send=\"-1\" recv=\"-1\" chan=\"0\">\n" +
                       step(0, "cpy", "s", 5, "o", 5, 1, 0, 1) + "</tb>\n";
  std::string echo = step(0, "r", "i", 0, "s", 0, 1) + step(1, "s", "s", 0, "s", 0, 1);
  EXPECT_EQ(run(parseOrDie(twoRanks(tb0, echo, writer + reader)), 8).status,
            SimResult::Status::kCompleted);
  std::string unordered = "<tb id=\"2\" send=\"-1\" recv=\"-1\" chan=\"0\">\n" +
                          step(0, "cpy", "s", 5, "o", 5, 1) + "</tb>\n";
  EXPECT_EQ(run(parseOrDie(twoRanks(tb0, echo, writer + unordered)), 8).status,
            SimResult::Status::kDataRace);
}

TEST(MscclSimulator, ValidatorRejectsAWrongResultForAClaimedLayout) {
  // A well-formed, deadlock-free program that only swaps inputs: not an allreduce.
  std::string both = step(0, "s", "i", 0, "o", 0, 8) + step(1, "r", "i", 0, "o", 0, 8);
  Program p = parseOrDie(twoRanks(both, both));
  std::vector<Diagnostic> errors;
  EXPECT_EQ(validateProgram(p, ValidationOptions(), &errors), ncclInvalidUsage);
  ASSERT_FALSE(errors.empty());
  EXPECT_EQ(errors[0].line, 1);
  EXPECT_NE(errors[0].message.find("wrong result: the out-of-place allreduce run leaves a wrong "
                                   "value in o[0] of gpu 0, but the file claims outofplace=1"),
            std::string::npos) << errors[0].str();
  ValidationOptions noResults;
  noResults.checkResults = false;
  EXPECT_EQ(validateProgram(p, noResults, &errors), ncclSuccess) << joinDiagnostics(errors);
}

}  // namespace
}  // namespace flashccl::msccl

namespace flashccl::msccl {
namespace {

TEST(MscclSimulator, RefusesAProgramItCannotIndexInsteadOfCrashing) {
  Program p = testing::parseFileOrDie(testing::dataPath("vector_a_allpairs_2gpus_ll.xml"));
  p.gpus[1].threadBlocks[1].sendPeer = 7;
  SimMemory mem(layoutProgram(p, Layout::kInPlace), 2);
  SimResult res = simulate(p, {SimOp::kSum, 0}, &mem);
  EXPECT_EQ(res.status, SimResult::Status::kInvalid);
  EXPECT_EQ(res.problem.line, 18);

  p = testing::parseFileOrDie(testing::dataPath("vector_a_allpairs_2gpus_ll.xml"));
  p.gpus[0].threadBlocks[1].steps[0].srcOff = 3;  // i[3..4]: past the end
  p.gpus[0].threadBlocks[1].transmissions[0].srcOff = 3;
  mem = SimMemory(layoutProgram(p, Layout::kInPlace), 2);
  res = simulate(p, {SimOp::kSum, 0}, &mem);
  EXPECT_EQ(res.status, SimResult::Status::kInvalid);
  EXPECT_NE(res.problem.message.find("i[4] is outside the buffer"), std::string::npos) << res.problem.str();
}

}  // namespace
}  // namespace flashccl::msccl
