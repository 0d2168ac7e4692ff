// The tuner plugin's table (a <tuning> section of a topology or tuning file, FLASHCCL_TUNER_FILE):
// parsed, checked for overlapping rows as the plugin's init does, then asked for every collective
// at sizes around each row's bounds, with NCCL's cost table (some cells unavailable) and without.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "tuner_context.h"
#include "tuning_file.h"
#include "tuning_table.h"

using namespace flashccl;

namespace {

void quietLogger(nccl_abi::LogLevel, unsigned long, const char*, int, const char*, ...) {}

void askEverything(const TuningTable& table) {
  std::vector<size_t> sizes = {0, 1, 4096, size_t(1) << 30, SIZE_MAX};
  for (const TuningRow& row : table.rows) {
    for (size_t bound : {row.minBytes, row.maxBytes}) {
      sizes.push_back(bound);
      sizes.push_back(bound + 1);
    }
    if (sizes.size() > 40) break;
  }
  for (int nranks : {1, 8, 16}) {
    for (int nnodes : {1, 2}) {
      TunerContext context(table, nranks, nnodes, quietLogger);
      for (int coll = 0; coll < nccl_abi::kNumTunedFuncs; ++coll) {
        for (size_t bytes : sizes) {
          TunedCall call;
          call.coll = coll;
          call.bytes = bytes;
          call.numPipeOps = 1 + static_cast<int>(bytes % 3);
          call.regBuff = bytes % 2;
          // As NCCL passes it: a contiguous float[numAlgo][numProto] cast to float**, some
          // cells unavailable (-1).
          float cells[nccl_abi::kNumAlgorithms][nccl_abi::kNumProtocols];
          for (int a = 0; a < nccl_abi::kNumAlgorithms; ++a) {
            for (int p = 0; p < nccl_abi::kNumProtocols; ++p) cells[a][p] = (a + p) % 4 == 0 ? -1.0f : 1.0f;
          }
          int channels = 0;
          context.chooseInCostTable(call, reinterpret_cast<float**>(cells), nccl_abi::kNumAlgorithms,
                                    nccl_abi::kNumProtocols, &channels);
          int algorithm = nccl_abi::kUndefined, protocol = nccl_abi::kUndefined;
          context.chooseByName(call, bytes % 2, bytes % 3 == 0, &algorithm, &protocol, &channels);
        }
      }
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  TuningTable table;
  bool hasSection = false;
  std::string error;
  if (!parseTuningText(text, "fuzz.xml", &table, &hasSection, &error)) return 0;
  size_t later = 0;
  std::string problem;
  if (!checkRowConflicts(table.rows, &later, &problem)) return 0;
  askEverything(table);
  return 0;
}
