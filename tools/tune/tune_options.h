// Command line of `flashccl tune` (docs/tuner.md, "flashccl tune"): perf's spellings for what it
// hands to perf (-b -e -f --coll -d -n -w --pairs -T -t --processes --launched -J), and its own long
// options for the sweep (which NCCL choices and flashccl algorithms, how a winner is picked, where
// the table goes). Parsing is pure, so every error case is unit-tested.
#pragma once

#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

#include "band_picker.h"
#include "candidates.h"
#include "cli_options.h"
#include "perf_types.h"

namespace flashccl {
namespace tune {

struct TuneOptions {
  // Handed to every perf run.
  cli::SizeRange sizes{1024, size_t(128) << 20, 2};  // -b -e -f; 1K: the smallest size that splits over up to 256 float ranks
  std::vector<perf::Collective> collectives = {perf::Collective::kAllReduce, perf::Collective::kAllGather,
                                               perf::Collective::kReduceScatter};  // --coll
  perf::DataType dataType = perf::DataType::kFloat;  // -d: one; the table has no datatype column
  int iters = 20;          // -n
  int warmupIters = 5;     // -w
  int pairs = 9;           // --pairs
  int timeoutSeconds = 120;  // -T
  int threads = 0;         // -t (0: perf's default, every visible GPU)
  int processes = 0;       // --processes
  bool launched = false;   // --launched

  // The sweep.
  CandidateLists ncclLists;              // --algorithms --protocols --channels
  std::vector<NcclChoice> explicitCandidates;  // --candidates (replaces the cross product)
  std::vector<FlashcclAlgorithm> flashcclAlgorithms;  // --flashccl-algos
  bool shippedPrograms = true;  // --flashccl-algos all (the default): tune_main.cc adds the shipped XML
                                // programs whose rank count fits to flashcclAlgorithms
  int baselineRuns = 2;                  // --baseline-runs
  PickRule pick = PickRule::kSignificant;  // --pick
  double marginPercent = 2.0;            // --margin
  bool afterRun = true;                  // --no-after turns it off

  // Files.
  std::string outputPath = "flashccl-tuning.xml";  // --output
  std::string intoPath;       // --into: a topology file to merge the table into
  std::string jsonPath;       // -J / --json
  std::string workDirectory;  // --workdir: keep every run's record and NCCL log there
  std::string pluginPath;     // --plugin ("" = find it beside the flashccl command)
  std::string verifyPath;     // --verify TABLE: only check TABLE (NCCL applies its <tuning> rows, its
                              // <selection> rows still win)
  bool install = false;       // --install [DIR]: write the whole calibrated table where the library looks
  std::string installDir;     // DIR, or "" for the per-user cache (userTableDir())
  bool quick = false;         // --quick

  std::vector<std::string> arguments;  // as typed, for records
  // The NCCL choices the sweep forces, in order: --candidates, or the cross product of the lists.
  std::vector<NcclChoice> ncclCandidates() const;
};

struct ParseOutcome {
  int status = -1;  // -1: run; 0: --help was printed; 2: a usage error was printed
  TuneOptions options;
};

// args: what followed `flashccl tune`. Help goes to `out`, the one-line usage error to `err`.
ParseOutcome parseTuneOptions(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

// The measured sizes: -b, times -f, while <= -e (as perf sweeps them).
std::vector<size_t> tuneSizes(const TuneOptions& options);

}  // namespace tune
}  // namespace flashccl
