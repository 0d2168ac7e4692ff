// The executor's host side: flattening a program into the device image, the per-call shape
// (chunk size, tiles, packet-slot fit), and resolving XML names into algorithms.
#include <cstring>

#include <gtest/gtest.h>

#include "algo/algorithm.h"
#include "msccl/algorithm_file.h"
#include "msccl/algorithm_loader.h"
#include "msccl/exec_image.h"
#include "msccl_test_support.h"
#include "select/algorithm_resolver.h"
#include "select/selector.h"
#include "transport/p2p/buffer_layout.h"

namespace flashccl::msccl {
namespace {

using testing::dataPath;
using testing::sourcePath;

Program loadValid(const std::string& path) {
  Program p;
  std::vector<Diagnostic> errors;
  EXPECT_EQ(loadAlgorithmFile(path, ValidationOptions(), &p, &errors), ncclSuccess) << joinDiagnostics(errors);
  return p;
}

ExecImageHeader headerOf(const std::vector<char>& image) {
  ExecImageHeader h;
  std::memcpy(&h, image.data(), sizeof(h));
  return h;
}

TEST(ExecImage, FlattensTestVectorA) {
  // msccl-format.md §4 A: tb0 = { re s0->i0 waiting on (1,1) }, tb1 = { s, r, re, s(dep 0,0), r }.
  const Program p = loadValid(dataPath("vector_a_allpairs_2gpus_ll.xml"));
  std::string error;
  const std::vector<char> image = buildExecImage(p, 0, &error);
  ASSERT_FALSE(image.empty()) << error;
  const ExecImageHeader h = headerOf(image);
  EXPECT_EQ(h.totalBytes, image.size());
  EXPECT_EQ(h.threadBlocks, 2);
  EXPECT_EQ(h.proto, static_cast<int>(Protocol::kLL));
  EXPECT_EQ(h.nchunksperloop, 4);
  const auto* base = reinterpret_cast<const ExecImageHeader*>(image.data());
  const ExecThreadBlock* tbs = imageThreadBlocks(base);
  const ExecStep* steps = imageSteps(base);
  const ExecDependency* deps = imageDependencies(base);
  const int16_t* reduce = imageReduceOffsets(base);
  EXPECT_EQ(tbs[0].stepCount, 1);
  EXPECT_EQ(tbs[0].sendPeer, -1);
  EXPECT_EQ(tbs[1].stepBegin, 1);
  EXPECT_EQ(tbs[1].stepCount, 5);
  EXPECT_EQ(tbs[1].sendPeer, 1);
  EXPECT_EQ(tbs[1].recvPeer, 1);
  // tb0's re waits on tb1 step 1 and publishes step 0.
  const ExecStep& re = steps[0];
  EXPECT_EQ(re.type, static_cast<uint8_t>(StepType::kReduce));
  EXPECT_EQ(re.publishStep, 0);
  ASSERT_EQ(re.depCount, 1);
  EXPECT_EQ(deps[re.depBegin].tb, 1);
  EXPECT_EQ(deps[re.depBegin].step, 1);
  ASSERT_EQ(re.reduceCount, 1);
  EXPECT_EQ(reduce[re.reduceBegin], 0);  // srcoff of the one fused source
  EXPECT_EQ(re.srcBuf, static_cast<uint8_t>(BufferKind::kScratch));
  EXPECT_EQ(re.dstOff, 0);
  // tb1: s (2 chunks from i2), r (publishes 1), re, s waiting on (0,0), r.
  EXPECT_EQ(steps[1].type, static_cast<uint8_t>(StepType::kSend));
  EXPECT_EQ(steps[1].count, 2);
  EXPECT_EQ(steps[1].srcOff, 2);
  EXPECT_EQ(steps[1].publishStep, -1);
  EXPECT_EQ(steps[2].type, static_cast<uint8_t>(StepType::kRecv));
  EXPECT_EQ(steps[2].publishStep, 1);
  EXPECT_EQ(steps[4].depCount, 1);
  EXPECT_EQ(deps[steps[4].depBegin].tb, 0);
  EXPECT_EQ(deps[steps[4].depBegin].step, 0);
}

TEST(ExecImage, RejectsARankOutsideTheProgram) {
  const Program p = loadValid(dataPath("vector_a_allpairs_2gpus_ll.xml"));
  std::string error;
  EXPECT_TRUE(buildExecImage(p, 2, &error).empty());
  EXPECT_NE(error.find("rank 2"), std::string::npos);
}

TEST(ExecImage, ConnectionStreamsOfOnePairAreStackedInChannelOrder) {
  // 8 rings on 8 channels, 2 GPUs: every channel has a connection 0 -> 1 and 1 -> 0, each
  // carrying the same number of chunks, so channel c's stream starts at c times that.
  const Program p = loadValid(sourcePath("algorithms/allreduce_ring--gpus_2-channels_8-proto_LL.xml"));
  const ExecProgramFacts facts = programFacts(p);
  EXPECT_EQ(facts.threadBlocks, 8);
  EXPECT_EQ(facts.maxChannel, 7);
  std::string error;
  for (int rank = 0; rank < 2; ++rank) {
    const std::vector<char> image = buildExecImage(p, rank, &error);
    ASSERT_FALSE(image.empty());
    const ExecThreadBlock* tbs = imageThreadBlocks(reinterpret_cast<const ExecImageHeader*>(image.data()));
    const uint32_t perChannel = facts.maxPairStreamChunks / 8;
    ASSERT_GT(perChannel, 0u);
    EXPECT_EQ(facts.maxPairStreamChunks % 8, 0u);
    for (int t = 0; t < 8; ++t) {
      EXPECT_EQ(tbs[t].sendStreamChunk, tbs[t].channel * perChannel) << "rank " << rank << " tb " << t;
      EXPECT_EQ(tbs[t].recvStreamChunk, tbs[t].channel * perChannel) << "rank " << rank << " tb " << t;
    }
  }
}

BufferLayout layoutFor(int nranks) {
  BufferLayout layout{};
  const char* why = nullptr;
  EXPECT_TRUE(computeBufferLayout({64u << 20, nranks, 64, 4, 0.25, 0.0625}, &layout, &why)) << why;
  return layout;
}

TEST(ExecShape, ChunksMustDivideEvenly) {
  const Program p = loadValid(sourcePath("algorithms/allreduce_ring--gpus_2-channels_8-proto_Simple.xml"));
  const ExecProgramFacts facts = programFacts(p);
  ExecCallShape shape;
  const char* why = nullptr;
  // nchunksperloop 16: 16 floats split, 15 do not.
  EXPECT_TRUE(shapeCall(p, facts, layoutFor(2), 16 * 4, 4, 0, &shape, &why));
  EXPECT_EQ(shape.chunkBytes, 4u);
  EXPECT_EQ(shape.iterations, 1u);
  EXPECT_FALSE(shapeCall(p, facts, layoutFor(2), 15 * 4, 4, 0, &shape, &why));
  EXPECT_NE(std::string(why).find("nchunksperloop"), std::string::npos);
}

TEST(ExecShape, SimpleTilesChunksLargerThanASlot) {
  const Program p = loadValid(sourcePath("algorithms/allreduce_ring--gpus_2-channels_8-proto_Simple.xml"));
  const BufferLayout layout = layoutFor(2);
  ExecCallShape shape;
  const char* why = nullptr;
  const size_t chunk = layout.chunkBytes * 5 / 2;  // two and a half slots per chunk
  ASSERT_TRUE(shapeCall(p, programFacts(p), layout, chunk * 16, 4, 0, &shape, &why)) << why;
  EXPECT_EQ(shape.tileBytes, layout.chunkBytes);
  EXPECT_EQ(shape.iterations, 3u);
}

TEST(ExecShape, PacketProtocolsNeedTheWholeMessageInTheirSlots) {
  for (const char* file : {"algorithms/allreduce_ring--gpus_2-channels_8-proto_LL.xml",
                           "algorithms/allreduce_ring--gpus_2-channels_8-proto_LL128.xml"}) {
    const Program p = loadValid(sourcePath(file));
    const ExecProgramFacts facts = programFacts(p);
    const BufferLayout layout = layoutFor(2);
    const bool ll = p.proto == Protocol::kLL;
    const size_t slot = ll ? layout.llSlotBytes : layout.ll128SlotBytes;
    ExecCallShape shape;
    const char* why = nullptr;
    EXPECT_TRUE(shapeCall(p, facts, layout, 16 * 1024, 4, 0, &shape, &why)) << file;
    EXPECT_EQ(shape.iterations, 1u);
    // The largest chunk whose packets fit, and one 8 bytes (two floats) past it.
    const size_t unit = ll ? 8 : 120;
    const size_t fits = slot / facts.maxPairStreamChunks / (ll ? 16 : 128) * unit;
    EXPECT_TRUE(shapeCall(p, facts, layout, fits * 16, 4, 0, &shape, &why)) << file;
    EXPECT_FALSE(shapeCall(p, facts, layout, (fits + unit) * 16, 4, 0, &shape, &why)) << file;
    EXPECT_NE(std::string(why).find("packet slots"), std::string::npos);
  }
}

TEST(ExecShape, ScratchBeyondCapacityIsRefused) {
  const Program p = loadValid(sourcePath("algorithms/allreduce_allpairs--gpus_2-instances_4-proto_LL.xml"));
  const ExecProgramFacts facts = programFacts(p);
  ASSERT_GT(facts.scratchChunks, 0);
  ExecCallShape shape;
  const char* why = nullptr;
  const size_t total = 8 * 1024;  // nchunksperloop 8: 1 KiB chunks
  EXPECT_TRUE(shapeCall(p, facts, layoutFor(2), total, 4, 1024 * facts.scratchChunks, &shape, &why)) << why;
  EXPECT_EQ(shape.scratchBytes, 1024u * facts.scratchChunks);
  EXPECT_FALSE(shapeCall(p, facts, layoutFor(2), total, 4, 1024 * facts.scratchChunks - 1, &shape, &why));
  EXPECT_NE(std::string(why).find("scratch"), std::string::npos);
}

TEST(AlgorithmLoader, ResolvesShippedFilesByName) {
  std::string error;
  std::shared_ptr<Algorithm> a =
      resolveAlgorithm("allreduce_ring--gpus_2-channels_8-proto_LL.xml", 2, 1, &error);
  ASSERT_NE(a, nullptr) << error;
  EXPECT_EQ(a->kind(), CollKind::kAllReduce);
  EXPECT_STREQ(a->name(), "allreduce_ring--gpus_2-channels_8-proto_LL.xml");
  // Every communicator gets its own object (its own device image), over one parsed program.
  std::shared_ptr<Algorithm> b =
      resolveAlgorithm(sourcePath("algorithms/allreduce_ring--gpus_2-channels_8-proto_LL.xml"), 2, 1, &error);
  ASSERT_NE(b, nullptr) << error;
  EXPECT_NE(a.get(), b.get());
  EXPECT_EQ(resolveAlgorithm("allgather_direct--gpus_4-instances_2-proto_LL.xml", 4, 1, &error)->kind(),
            CollKind::kAllGather);
}

TEST(AlgorithmLoader, ExplainsWhatCannotBeUsed) {
  std::string error;
  EXPECT_EQ(resolveAlgorithm("allreduce_ring--gpus_2-channels_8-proto_LL.xml", 4, 1, &error), nullptr);
  EXPECT_NE(error.find("written for 2 GPUs, the communicator has 4 ranks"), std::string::npos) << error;
  EXPECT_EQ(resolveAlgorithm("no_such_algorithm.xml", 2, 1, &error), nullptr);
  EXPECT_NE(error.find("'no_such_algorithm.xml' not found"), std::string::npos) << error;
  EXPECT_EQ(resolveAlgorithm(dataPath("broken/unknown_step_type.xml"), 2, 1, &error), nullptr);
  EXPECT_NE(error.find("invalid algorithm file"), std::string::npos) << error;
  EXPECT_EQ(resolveAlgorithm("no_such_builtin", 2, 1, &error), nullptr);
  // The message lists every name FLASHCCL_ALGO takes, so a typo is easy to fix.
  EXPECT_EQ(error.rfind("unknown algorithm 'no_such_builtin' (known: nccl, ", 0), 0u) << error;
  for (const Algorithm* builtin : builtinAlgorithms())
    EXPECT_NE(error.find(builtin->name()), std::string::npos) << error;
  EXPECT_NE(error.find("NAME.xml"), std::string::npos) << error;
}

TEST(AlgorithmLoader, SelectionRowsNamingXmlFilesAreCompiled) {
  SelectionTable table;
  SelectionRow ring;
  ring.kind = CollKind::kAllReduce;
  ring.nranks = 2;
  ring.algorithm = "allreduce_ring--gpus_2-channels_8-proto_LL.xml";
  ring.source = "test:1";
  SelectionRow again = ring;  // a second row naming the same file shares its algorithm object
  again.source = "test:2";
  SelectionRow wrongRanks = ring;
  wrongRanks.algorithm = "allreduce_ring--gpus_4-channels_8-proto_LL.xml";
  wrongRanks.nranks = 0;
  wrongRanks.source = "test:3";
  table.rows = {ring, again, wrongRanks};
  std::string warnings;
  auto selector = Selector::build(table, "", 2, 1, resolveAlgorithm, &warnings);
  EXPECT_EQ(warnings.find("test:1"), std::string::npos) << warnings;
  EXPECT_NE(warnings.find("test:3: allreduce_ring--gpus_4-channels_8-proto_LL.xml is written for 4 GPUs"),
            std::string::npos)
      << warnings;
  EXPECT_NE(selector->describe().find("-> allreduce_ring--gpus_2-channels_8-proto_LL.xml  (test:2)"),
            std::string::npos)
      << selector->describe();
}

}  // namespace
}  // namespace flashccl::msccl
