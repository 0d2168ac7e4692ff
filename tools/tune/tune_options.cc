#include "tune_options.h"

#include "size_list.h"

namespace flashccl {
namespace tune {

namespace {

// A list option whose text is checked by `parse` (candidates.h): its message becomes the one-line
// usage error.
template <typename T>
CLI::Option* addParsedList(CLI::App& app, const std::string& flags, std::vector<T>* out,
                           bool (*parse)(const std::string&, std::vector<T>*, std::string*),
                           const std::string& description, const std::string& shown) {
  const std::string name = flags.substr(flags.rfind(',') + 1);
  return app
      .add_option_function<std::string>(
          flags,
          [=](const std::string& text) {
            std::string error;
            if (!parse(text, out, &error)) throw CLI::ValidationError(name, error);
          },
          description)
      ->type_name("LIST")
      ->default_str(shown);
}

// --quick: fewer sizes, blocks and choices, for whatever the command line did not give.
void applyQuickPreset(const CLI::App& app, TuneOptions* o) {
  if (!app.count("-f")) o->sizes.stepFactor = 4;
  if (!app.count("-n")) o->iters = 10;
  if (!app.count("-w")) o->warmupIters = 3;
  if (!app.count("--pairs")) o->pairs = 5;
  if (!app.count("--channels")) o->ncclLists.channels = {0};
}

std::string consistencyProblem(const TuneOptions& o, const CLI::App& app) {
  if (o.sizes.minBytes > o.sizes.maxBytes)
    return "-b (" + std::to_string(o.sizes.minBytes) + " B) is larger than -e (" +
           std::to_string(o.sizes.maxBytes) + " B)";
  const int layouts = (o.threads > 0) + (o.processes > 0) + o.launched;
  if (layouts > 1) return "-t, --processes and --launched each choose how ranks are laid out; give one";
  if (app.count("--candidates") &&
      (app.count("--algorithms") || app.count("--protocols") || app.count("--channels")))
    return "--candidates lists the choices itself; it cannot be combined with --algorithms, --protocols or "
           "--channels";
  if (!o.verifyPath.empty() && (!o.intoPath.empty() || app.count("--output") || !o.jsonPath.empty() || o.install))
    return "--verify only checks a table; it writes no table or record (drop --output, --into, --json and "
           "--install)";
  if (o.install && o.flashcclAlgorithms.empty())
    return "--install writes flashccl's selection rows, but --flashccl-algos none measures no flashccl algorithm";
  if (!o.intoPath.empty() && o.intoPath == o.outputPath)
    return "--into " + o.intoPath + " is also --output: the table is written to a copy, never over its source";
  return "";
}

}  // namespace

std::vector<NcclChoice> TuneOptions::ncclCandidates() const {
  return explicitCandidates.empty() ? crossProduct(ncclLists) : explicitCandidates;
}

ParseOutcome parseTuneOptions(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  ParseOutcome outcome;
  TuneOptions& o = outcome.options;
  o.flashcclAlgorithms = builtinFlashcclAlgorithms();
  CLI::App app(
      "Measures NCCL's default against NCCL choices forced through the flashccl tuner plugin (algorithm x "
      "protocol x channels) and flashccl's own algorithms, with `flashccl perf`, for every size and "
      "collective; keeps a forced choice only where it beats the default by more than the measured spread; "
      "writes the plugin's <tuning> table and prints NCCL default, tuned and flashccl side by side. "
      "docs/tuner.md, \"flashccl tune\". Exit status 0 done, 1 a run failed or a result was wrong, 2 bad usage "
      "or no usable GPU.",
      "flashccl tune");
  app.get_formatter()->column_width(34);

  cli::addSizeRange(app, &o.sizes);
  std::vector<int> collectives = cli::toIndices(o.collectives);
  cli::addCollectives(app, &collectives);
  std::vector<int> dataTypes = {static_cast<int>(o.dataType)};
  cli::addDataTypes(app, &dataTypes);
  app.add_option("-n,--iters", o.iters, "timed iterations per block (perf's -n)")
      ->check(CLI::Range(1, 1000000))->capture_default_str();
  app.add_option("-w,--warmup_iters", o.warmupIters, "untimed iterations before each block (perf's -w)")
      ->check(CLI::Range(0, 1000000))->capture_default_str();
  app.add_option("--pairs", o.pairs, "block pairs per size in each run; times are medians over them")
      ->check(CLI::Range(1, 1000))->capture_default_str();
  app.add_option("-T,--timeout", o.timeoutSeconds, "a perf run that makes no progress this long is hung")
      ->check(CLI::Range(1, 86400))->capture_default_str();
  app.add_option("-t,--nthreads", o.threads, "perf's -t: threads, one GPU each (default: every visible GPU)")
      ->check(CLI::Range(1, 1024));
  app.add_option("--processes", o.processes, "perf's --processes: one process per rank on this node")
      ->check(CLI::Range(1, 1024));
  app.add_flag("--launched", o.launched,
               "one rank of a job started by mpirun, torchrun or srun, one process per GPU (perf --launched); "
               "rank 0 writes the table");

  addParsedList(app, "--algorithms", &o.ncclLists.algorithms, parseAlgorithmList,
                "NCCL algorithms to force: ring tree pat collnet_direct collnet_chain", "ring,tree");
  addParsedList(app, "--protocols", &o.ncclLists.protocols, parseProtocolList, "NCCL protocols: ll ll128 simple",
                "ll,ll128,simple");
  addParsedList(app, "--channels", &o.ncclLists.channels, parseChannelList,
                "channel caps (0: NCCL's own count)", "0,2,8");
  addParsedList(app, "--candidates", &o.explicitCandidates, parseCandidateList,
                "these choices instead of the lists' cross product: ring:ll,tree:simple:4", "");
  app.add_option_function<std::string>(
         "--flashccl-algos",
         [&o](const std::string& text) {
           std::string error;
           if (!parseFlashcclAlgorithms(text, &o.flashcclAlgorithms, &error, &o.shippedPrograms))
             throw CLI::ValidationError("--flashccl-algos", error);
         },
         "flashccl algorithms to force: all (the built-ins and every shipped XML program for this rank count), "
         "builtin, none, or names (collective:name for a name that does not start with its collective)")
      ->type_name("LIST")->default_str("all");
  app.add_option("--baseline-runs", o.baselineRuns,
                 "runs of NCCL's default, spread over the sweep (2 or more measure the run-to-run spread)")
      ->check(CLI::Range(1, 100))->capture_default_str();
  app.add_option_function<std::string>(
         "--pick",
         [&o](const std::string& v) {
           if (v == "significant") o.pick = PickRule::kSignificant;
           else if (v == "fastest") o.pick = PickRule::kFastest;
           else throw CLI::ValidationError("--pick", "'" + v + "' is not one of significant or fastest");
         },
         "significant: a choice wins beyond the spread + --margin; fastest: the fastest forced choice, and the "
         "fastest flashccl algorithm that ran, at every size (to test that NCCL and the library apply a table; "
         "never to ship)")
      ->type_name("RULE")->default_str("significant");
  app.add_option("--margin", o.marginPercent, "percent a choice must win by beyond the measured spread")
      ->check(CLI::Range(0.0, 1000.0))->capture_default_str();
  app.add_flag_callback("--no-after", [&o] { o.afterRun = false; },
                        "skip the run with the written table (the 'with table' column)");
  app.add_option("--output", o.outputPath, "the table: a <tuning> file, or with --into a whole topology file")
      ->type_name("FILE")->capture_default_str();
  app.add_option("--into", o.intoPath,
                 "a topology file (topologies/*.xml) to copy into --output with its <tuning> rows for this "
                 "communicator replaced by the measured ones")
      ->type_name("FILE");
  cli::addJsonFile(app, &o.jsonPath, "write the sweep as JSON: every run's perf record, the decisions, the table");
  app.add_option("--workdir", o.workDirectory,
                 "keep every run's perf record, output and NCCL log in DIR (default: a temporary directory, "
                 "removed unless a run failed)")
      ->type_name("DIR");
  app.add_option("--plugin", o.pluginPath,
                 "libnccl-tuner-flashccl.so (default: beside the flashccl command, lib/ or the build tree)")
      ->type_name("FILE");
  app.add_option("--verify", o.verifyPath,
                 "only check TABLE: that NCCL applies its <tuning> rows (one short perf run with "
                 "FLASHCCL_TUNER_FILE=TABLE, NCCL's log of every call against the rows), and that its <selection> "
                 "rows still win (perf runs with FLASHCCL_TOPO_FILE=TABLE at each row's sizes, fp32 and bf16, "
                 "in and out of place, against NCCL's default by the spread + --margin)")
      ->type_name("TABLE");
  app.add_option("--install", o.installDir,
                 "also write the whole calibrated table (flashccl's <selection> rows, NCCL's <tuning> rows, what it "
                 "was measured on) to DIR, default the per-user cache $XDG_CACHE_HOME/flashccl (~/.cache/flashccl), "
                 "where the library finds it; its markdown report goes beside it")
      ->type_name("[DIR]")->expected(0, 1);
  cli::addQuick(app, &o.quick, "a first look: -f 4 -n 10 -w 3 --pairs 5 --channels 0 where not given");

  outcome.status = cli::parse(app, "tune", args, out, err);
  if (outcome.status >= 0) return outcome;
  o.collectives = cli::fromIndices<perf::Collective>(collectives);
  if (dataTypes.size() != 1) {
    outcome.status = cli::usageError(
        "tune", "-d: give one datatype (NCCL's tuner sees only sizes, so the table has no datatype column)", err);
    return outcome;
  }
  o.dataType = static_cast<perf::DataType>(dataTypes[0]);
  if (o.quick) applyQuickPreset(app, &o);
  o.install = app.count("--install") > 0;
  o.arguments = args;
  const std::string problem = consistencyProblem(o, app);
  if (!problem.empty()) outcome.status = cli::usageError("tune", problem, err);
  return outcome;
}

std::vector<size_t> tuneSizes(const TuneOptions& options) {
  return perf::geometricSizes(options.sizes.minBytes, options.sizes.maxBytes, options.sizes.stepFactor);
}

}  // namespace tune
}  // namespace flashccl
