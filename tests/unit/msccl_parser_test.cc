// The MSCCL XML parser: reference test vectors decoded as the reference executor does
// (msccl-format.md §2.4, §4), lexical leniency, integers, and errors with line numbers.
#include <gtest/gtest.h>

#include <vector>

#include "msccl/parser.h"
#include "msccl_test_support.h"

namespace flashccl::msccl {
namespace {

using testing::dataPath;
using testing::parseFileOrDie;
using testing::parseOrDie;

std::vector<Dependency> deps(std::initializer_list<Dependency> list) { return list; }

TEST(MscclParser, VectorCFoldsNopChainAndFusesReductions) {
  Program p = parseFileOrDie(dataPath("vector_c_1step_4gpus_gpu0_tb0.xml"));
  ASSERT_EQ(p.gpus.size(), 1u);
  ASSERT_EQ(p.gpus[0].threadBlocks.size(), 1u);
  const ThreadBlock& tb = p.gpus[0].threadBlocks[0];
  EXPECT_EQ(tb.steps.size(), 7u);
  ASSERT_EQ(tb.transmissions.size(), 1u);
  const Transmission& t = tb.transmissions[0];
  EXPECT_EQ(t.type, StepType::kReduce);
  EXPECT_EQ(t.deps, deps({{2, 0}, {3, 0}, {2, 1}, {3, 1}, {1, 1}}));
  EXPECT_EQ(t.reduceSrcOffs, (std::vector<int>{0, 4, 8}));
  EXPECT_EQ(t.srcBuf, BufferKind::kScratch);
  EXPECT_EQ(t.dstBuf, BufferKind::kInput);
  EXPECT_EQ(t.dstOff, 0);
  EXPECT_EQ(t.count, 1);
  EXPECT_EQ(t.firstStep, 0);
  EXPECT_EQ(t.step, 6);  // the executor's step counter ends at 6
  EXPECT_FALSE(t.hasDep);
  EXPECT_EQ(t.line, 10);  // the first re (line 1-2 are the comment we added)
  EXPECT_EQ(tb.transmissionOfStep(2), 0);
  EXPECT_EQ(tb.transmissionOfStep(6), 0);
  EXPECT_EQ(tb.transmissionOfStep(7), -1);
}

TEST(MscclParser, VectorAHeaderAndDecoding) {
  Program p = parseFileOrDie(dataPath("vector_a_allpairs_2gpus_ll.xml"));
  EXPECT_EQ(p.name, "allreduce_pairs");
  EXPECT_EQ(p.collName, "allreduce");
  ASSERT_TRUE(p.coll.has_value());
  EXPECT_EQ(*p.coll, CollKind::kAllReduce);
  EXPECT_EQ(p.proto, Protocol::kLL);
  EXPECT_EQ(p.nchannels, 1);
  EXPECT_EQ(p.nchunksperloop, 4);
  EXPECT_EQ(p.ngpus, 2);
  EXPECT_TRUE(p.inplace);
  EXPECT_FALSE(p.outofplace);
  EXPECT_EQ(p.minBytes, 0);
  EXPECT_EQ(p.maxBytes, 0);
  EXPECT_EQ(p.sizeMultiplier(), 1);
  ASSERT_EQ(p.gpus.size(), 2u);
  const Gpu& g0 = p.gpus[0];
  EXPECT_EQ(g0.inputChunks, 4);
  EXPECT_EQ(g0.outputChunks, 0);
  EXPECT_EQ(g0.scratchChunks, 2);
  ASSERT_EQ(g0.threadBlocks.size(), 2u);
  const ThreadBlock& tb0 = g0.threadBlocks[0];
  EXPECT_EQ(tb0.sendPeer, -1);
  EXPECT_EQ(tb0.recvPeer, -1);
  ASSERT_EQ(tb0.transmissions.size(), 1u);
  EXPECT_EQ(tb0.transmissions[0].deps, deps({{1, 1}}));
  EXPECT_TRUE(tb0.transmissions[0].hasDep);
  EXPECT_EQ(tb0.transmissions[0].step, 0);

  const ThreadBlock& tb1 = g0.threadBlocks[1];
  EXPECT_EQ(tb1.sendPeer, 1);
  EXPECT_EQ(tb1.recvPeer, 1);
  EXPECT_EQ(tb1.channel, 0);
  ASSERT_EQ(tb1.transmissions.size(), 5u);  // no nops, no fusable re chain: one per step
  const StepType expected[] = {StepType::kSend, StepType::kRecv, StepType::kReduce, StepType::kSend,
                               StepType::kRecv};
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(tb1.transmissions[i].type, expected[i]) << i;
    EXPECT_EQ(tb1.transmissions[i].step, i);
    EXPECT_EQ(tb1.transmissions[i].firstStep, i);
  }
  EXPECT_EQ(tb1.transmissions[0].srcOff, 2);
  EXPECT_EQ(tb1.transmissions[0].count, 2);
  EXPECT_TRUE(tb1.transmissions[1].hasDep);
  EXPECT_EQ(tb1.transmissions[2].reduceSrcOffs, (std::vector<int>{1}));
  EXPECT_EQ(tb1.transmissions[3].deps, deps({{0, 0}}));
  EXPECT_EQ(tb1.transmissions[4].dstOff, 2);
  EXPECT_EQ(tb1.transmissions[4].line, 11);
}

TEST(MscclParser, VectorBRing) {
  Program p = parseFileOrDie(dataPath("vector_b_ring_3gpus_ll.xml"));
  ASSERT_EQ(p.gpus.size(), 3u);
  const StepType expected[] = {StepType::kSend, StepType::kRecvReduceSend,
                               StepType::kRecvReduceCopySend, StepType::kRecvCopySend,
                               StepType::kRecv};
  for (const Gpu& g : p.gpus) {
    ASSERT_EQ(g.threadBlocks.size(), 1u);
    const ThreadBlock& tb = g.threadBlocks[0];
    EXPECT_EQ(tb.sendPeer, (g.id + 1) % 3);
    EXPECT_EQ(tb.recvPeer, (g.id + 2) % 3);
    ASSERT_EQ(tb.transmissions.size(), 5u);
    for (int i = 0; i < 5; ++i) {
      EXPECT_EQ(tb.transmissions[i].type, expected[i]);
      EXPECT_TRUE(tb.transmissions[i].deps.empty());
    }
    EXPECT_EQ(tb.transmissions[0].srcOff, g.id);  // rank r starts the ring with chunk r
  }
}

TEST(MscclParser, FusionStopsAtHasdepDepidOtherDestinationAndSixteenSources) {
  std::string steps;
  // 20 re steps into i[0] from s[0..19]: fused 16 + 4.
  for (int s = 0; s < 20; ++s) {
    steps += "<step s=\"" + std::to_string(s) + "\" type=\"re\" srcbuf=\"s\" srcoff=\"" +
             std::to_string(s) + "\" dstbuf=\"i\" dstoff=\"0\" cnt=\"1\" depid=\"-1\" deps=\"-1\" hasdep=\"" +
             (s == 17 ? "1" : "0") + "\"/>\n";
  }
  // s=20: hasdep above at 17 closes that one; 18,19 fuse; 20 has another destination;
  // 21 has its own dependency so it starts a new transmission too.
  steps += "<step s=\"20\" type=\"re\" srcbuf=\"s\" srcoff=\"0\" dstbuf=\"i\" dstoff=\"1\" cnt=\"1\" depid=\"-1\" deps=\"-1\" hasdep=\"0\"/>\n";
  steps += "<step s=\"21\" type=\"re\" srcbuf=\"s\" srcoff=\"1\" dstbuf=\"i\" dstoff=\"1\" cnt=\"1\" depid=\"0\" deps=\"0\" hasdep=\"0\"/>\n";
  Program p = parseOrDie(
      "<algo proto=\"Simple\" nchannels=\"1\" nchunksperloop=\"2\" ngpus=\"1\" coll=\"allreduce\" "
      "inplace=\"1\" outofplace=\"0\" minBytes=\"0\" maxBytes=\"0\">\n"
      "<gpu id=\"0\" i_chunks=\"2\" o_chunks=\"0\" s_chunks=\"20\">\n<tb id=\"0\" send=\"-1\" recv=\"-1\" chan=\"0\">\n" +
      steps + "</tb></gpu></algo>\n");
  const auto& ts = p.gpus[0].threadBlocks[0].transmissions;
  ASSERT_EQ(ts.size(), 5u);
  EXPECT_EQ(ts[0].reduceSrcOffs.size(), 16u);
  EXPECT_EQ(ts[0].step, 15);
  EXPECT_EQ(ts[1].reduceSrcOffs, (std::vector<int>{16, 17}));
  EXPECT_EQ(ts[1].firstStep, 16);
  EXPECT_EQ(ts[1].step, 17);
  EXPECT_TRUE(ts[1].hasDep);
  EXPECT_EQ(ts[2].reduceSrcOffs, (std::vector<int>{18, 19}));
  EXPECT_EQ(ts[3].reduceSrcOffs, (std::vector<int>{0}));
  EXPECT_EQ(ts[3].dstOff, 1);
  EXPECT_EQ(ts[4].deps, deps({{0, 0}}));
}

const char* kSmallProgram =
    "<algo name=\"x\" proto=\"LL128\" nchannels=\"0x2\" nchunksperloop=\"010\" ngpus=\"2\" "
    "coll=\"reduce_scatter\" inplace=\"0\" outofplace=\"1\" minBytes=\" 4096 \" maxBytes=\"0X10\">\n"
    "  <gpu id=\"0\" i_chunks=\"8\" o_chunks=\"4\" s_chunks=\"0\"/>\n"
    "</algo>\n";

TEST(MscclParser, IntegersReadLikeStrtolBaseZero) {
  Program p = parseOrDie(kSmallProgram);
  EXPECT_EQ(p.nchannels, 2);        // hex
  EXPECT_EQ(p.nchunksperloop, 8);   // leading 0: octal
  EXPECT_EQ(p.minBytes, 4096);      // surrounding blanks are fine
  EXPECT_EQ(p.maxBytes, 16);
  ASSERT_TRUE(p.coll.has_value());
  EXPECT_EQ(*p.coll, CollKind::kReduceScatter);  // TL ncclize spelling
  EXPECT_EQ(p.collName, "reduce_scatter");
  EXPECT_EQ(p.sizeMultiplier(), 2);
  EXPECT_EQ(p.proto, Protocol::kLL128);

  int64_t v = 0;
  EXPECT_TRUE(parseXmlInteger("-1", &v));
  EXPECT_EQ(v, -1);
  EXPECT_TRUE(parseXmlInteger("0x1F", &v));
  EXPECT_EQ(v, 31);
  EXPECT_TRUE(parseXmlInteger("017", &v));
  EXPECT_EQ(v, 15);
  EXPECT_FALSE(parseXmlInteger("08", &v));   // strtol would stop at 8 and read 0
  EXPECT_FALSE(parseXmlInteger("12x", &v));
  EXPECT_FALSE(parseXmlInteger("", &v));
  EXPECT_FALSE(parseXmlInteger("99999999999999999999", &v));
}

TEST(MscclParser, OtherCollectivesParseButAreNotRunByFlashccl) {
  for (const char* coll : {"reduce", "broadcast", "alltoall", "gather", "custom"}) {
    std::string xml = kSmallProgram;
    xml.replace(xml.find("reduce_scatter"), 14, coll);
    Program p = parseOrDie(xml);
    EXPECT_FALSE(p.coll.has_value()) << coll;
    EXPECT_EQ(p.collName, coll);
  }
}

TEST(MscclParser, MorePermissiveLexicallyThanTheReferenceExecutor) {
  // Declaration, tabs, attributes over several lines, single quotes, CRLF, comments: EX rejects
  // the first four; all are well-formed XML, so we take them.
  std::string xml =
      "<?xml version=\"1.0\"?>\r\n"
      "<!-- a comment -->\r\n"
      "<algo name='tabbed' proto=\"LL\"\r\n"
      "      nchannels=\"1\" nchunksperloop=\"2\" ngpus=\"2\" coll=\"allgather\"\r\n"
      "      inplace=\"1\" outofplace=\"1\" minBytes=\"0\" maxBytes=\"0\" extra=\"ignored\">\r\n"
      "\t<gpu id=\"1\" i_chunks=\"1\" o_chunks=\"2\" s_chunks=\"0\"/>\r\n"
      "\t<unknown_element/>\r\n"
      "\t<gpu id=\"0\" i_chunks=\"1\" o_chunks=\"2\" s_chunks=\"0\"/>\r\n"
      "</algo>\r\n";
  Program p = parseOrDie(xml);
  EXPECT_EQ(p.name, "tabbed");
  EXPECT_EQ(p.line, 3);
  ASSERT_EQ(p.gpus.size(), 2u);
  EXPECT_EQ(p.gpus[0].id, 0);  // sorted by id
  EXPECT_EQ(p.gpus[0].line, 8);
  EXPECT_EQ(p.gpus[1].line, 6);
}

struct ParseErrorCase {
  const char* what;
  std::string xml;
  int line;
  const char* message;
};

std::string algoWith(const std::string& algoAttrs, const std::string& body) {
  return "<algo name=\"e\" " + algoAttrs + ">\n" + body + "</algo>\n";
}

const char* kAlgoAttrs =
    "proto=\"LL\" nchannels=\"1\" nchunksperloop=\"2\" ngpus=\"2\" coll=\"allreduce\" inplace=\"1\" "
    "outofplace=\"0\" minBytes=\"0\" maxBytes=\"0\"";

std::string oneStep(const std::string& stepAttrs) {
  return "<gpu id=\"0\" i_chunks=\"2\" o_chunks=\"0\" s_chunks=\"0\">\n"
         "  <tb id=\"0\" send=\"-1\" recv=\"-1\" chan=\"0\">\n"
         "    <step " + stepAttrs + "/>\n"
         "  </tb>\n"
         "</gpu>\n";
}

const char* kGoodStep =
    "s=\"0\" type=\"cpy\" srcbuf=\"i\" srcoff=\"0\" dstbuf=\"i\" dstoff=\"1\" cnt=\"1\" depid=\"-1\" deps=\"-1\" hasdep=\"0\"";

std::string stepWith(const std::string& from, const std::string& to) {
  std::string s = kGoodStep;
  s.replace(s.find(from), from.size(), to);
  return s;
}

TEST(MscclParser, RejectsWithFileLineAndReason) {
  const std::vector<ParseErrorCase> cases = {
      {"syntax", algoWith(kAlgoAttrs, "<gpu id=\"0\">\n</tb>\n"), 3, "XML syntax error"},
      {"not algo first", "<!-- c -->\n<algorithm/>\n", 2, "the first element must be <algo>, found <algorithm>"},
      {"empty", "<!-- nothing -->\n", 2, "XML syntax error: No document element found"},
      {"missing algo attr",
       algoWith("proto=\"LL\" nchannels=\"1\" ngpus=\"2\" coll=\"allreduce\" inplace=\"1\" outofplace=\"0\" minBytes=\"0\" maxBytes=\"0\"", ""),
       1, "<algo> is missing required attribute 'nchunksperloop'"},
      {"missing step attr", algoWith(kAlgoAttrs, oneStep(stepWith(" hasdep=\"0\"", ""))), 4,
       "<step> is missing required attribute 'hasdep'"},
      {"missing gpu attr", algoWith(kAlgoAttrs, "<gpu id=\"0\" i_chunks=\"2\" o_chunks=\"0\"/>\n"), 2,
       "<gpu> is missing required attribute 's_chunks'"},
      {"missing tb attr", algoWith(kAlgoAttrs, "<gpu id=\"0\" i_chunks=\"2\" o_chunks=\"0\" s_chunks=\"0\">\n<tb id=\"0\" send=\"-1\" recv=\"-1\"/>\n</gpu>\n"), 3,
       "<tb> is missing required attribute 'chan'"},
      {"not an integer", algoWith(kAlgoAttrs, oneStep(stepWith("cnt=\"1\"", "cnt=\"one\""))), 4,
       "attribute 'cnt' of <step> is not an integer: 'one'"},
      {"octal digit", algoWith(kAlgoAttrs, oneStep(stepWith("dstoff=\"1\"", "dstoff=\"08\""))), 4,
       "attribute 'dstoff' of <step> is not an integer: '08'"},
      {"int overflow", algoWith(kAlgoAttrs, oneStep(stepWith("cnt=\"1\"", "cnt=\"4294967296\""))), 4,
       "attribute 'cnt' of <step> is out of range"},
      {"flag", algoWith(kAlgoAttrs, oneStep(stepWith("hasdep=\"0\"", "hasdep=\"2\""))), 4,
       "attribute 'hasdep' of <step> must be 0 or 1, got 2"},
      {"unknown type", algoWith(kAlgoAttrs, oneStep(stepWith("type=\"cpy\"", "type=\"copy\""))), 4,
       "unknown step type 'copy'"},
      {"ra", algoWith(kAlgoAttrs, oneStep(stepWith("type=\"cpy\"", "type=\"ra\""))), 4,
       "unknown step type 'ra' (the MSCCL prototype's residual add"},
      {"unknown buffer", algoWith(kAlgoAttrs, oneStep(stepWith("dstbuf=\"i\"", "dstbuf=\"x\""))), 4,
       "unknown buffer 'x' in dstbuf (expected i, o or s)"},
      {"unknown proto",
       algoWith("proto=\"LL64\" nchannels=\"1\" nchunksperloop=\"2\" ngpus=\"2\" coll=\"allreduce\" inplace=\"1\" outofplace=\"0\" minBytes=\"0\" maxBytes=\"0\"", ""),
       1, "unknown protocol 'LL64'"},
      {"unknown coll",
       algoWith("proto=\"LL\" nchannels=\"1\" nchunksperloop=\"2\" ngpus=\"2\" coll=\"allreduction\" inplace=\"1\" outofplace=\"0\" minBytes=\"0\" maxBytes=\"0\"", ""),
       1, "unknown collective 'allreduction'"},
  };
  for (const ParseErrorCase& c : cases) {
    Program p;
    Diagnostic error;
    EXPECT_EQ(parseProgramString(c.xml, "bad.xml", &p, &error), ncclInvalidUsage) << c.what;
    EXPECT_EQ(error.file, "bad.xml") << c.what;
    EXPECT_EQ(error.line, c.line) << c.what << ": " << error.str();
    EXPECT_NE(error.message.find(c.message), std::string::npos) << c.what << ": " << error.str();
  }
}

TEST(MscclParser, ErrorStringIsFileColonLine) {
  Program p;
  Diagnostic error;
  parseProgramString(algoWith(kAlgoAttrs, oneStep(stepWith("type=\"cpy\"", "type=\"ra\""))), "dir/a.xml",
                     &p, &error);
  EXPECT_EQ(error.str().rfind("dir/a.xml:4: unknown step type 'ra'", 0), 0u) << error.str();
}

TEST(MscclParser, UnreadableFileIsASystemError) {
  Program p;
  Diagnostic error;
  EXPECT_EQ(parseProgramFile(dataPath("no_such_file.xml"), &p, &error), ncclSystemError);
  EXPECT_NE(error.str().find("no_such_file.xml: cannot open"), std::string::npos) << error.str();
}

}  // namespace
}  // namespace flashccl::msccl
