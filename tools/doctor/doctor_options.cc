#include "doctor_options.h"

#include <CLI/CLI.hpp>

#include "check_result.h"
#include "cli_options.h"

namespace flashccl {
namespace doctor {

namespace {

std::string familyList() {
  std::string text;
  for (const std::string& family : allFamilies()) text += (text.empty() ? "" : ",") + family;
  return text;
}

}  // namespace

ParsedOptions parseDoctorOptions(int argc, const char* const* argv) {
  ParsedOptions parsed;
  DoctorOptions& options = parsed.options;
  CLI::App app("Acceptance and diagnosis of this GPU machine (or, under mpirun/torchrun, of the "
               "cluster): every check says PASS, WARN, FAIL or SKIP with what it measured, what "
               "a healthy machine shows, and why it matters. Exit status 1 on any FAIL, 2 on a "
               "usage error or when no GPU is found.",
               "flashccl doctor");
  app.get_formatter()->column_width(34);
  bool quick = false;
  auto* quickFlag = cli::addQuick(app, &quick, "short measurements, about a minute (default)");
  auto* fullFlag = app.add_flag("--full", options.full,
                                "longer, larger measurements and more collective sizes");
  quickFlag->excludes(fullFlag);
  cli::addJsonFile(app, &options.jsonPath, "write every check as JSON");
  cli::addMarkdownFile(app, &options.markdownPath, "write a markdown report");
  app.add_option("--expect", options.expectPath,
                 "JSON floors for this machine type (docs/doctor.md); they replace the "
                 "topology file's")
      ->type_name("FILE");
  std::string checks;
  app.add_option("--checks", checks, "check families to run, comma-separated: " + familyList())
      ->type_name("LIST");
  app.add_option("--rendezvous", options.rendezvous,
                 "cluster runs: rank 0's HOST:PORT (default MASTER_ADDR:MASTER_PORT)")
      ->type_name("HOST:PORT");
  app.add_option("--cluster-timeout", options.clusterTimeoutSeconds,
                 "cluster runs: seconds rank 0 waits for every report (1800)")
      ->type_name("SECONDS")
      ->check(CLI::Range(1, 86400));
  const char* testing = "Where to read the machine (tests, unusual installs)";
  app.add_option("--sysfs-root", options.sysRoot, "sysfs (/sys)")->type_name("DIR")->group(testing);
  app.add_option("--proc-root", options.procRoot, "procfs (/proc)")->type_name("DIR")->group(testing);
  app.add_option("--nvml-library", options.nvmlLibrary, "NVML (libnvidia-ml.so.1)")
      ->type_name("LIB")->group(testing);
  app.add_option("--verbs-library", options.verbsLibrary, "libibverbs (libibverbs.so.1)")
      ->type_name("LIB")->group(testing);
  app.add_option("--perf-command", options.perfCommand,
                 "program run as `PROGRAM perf ...` for the collectives (this flashccl)")
      ->type_name("PATH")->group(testing);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    parsed.result = ParsedOptions::Result::kHelp;
    parsed.text = app.help();
    return parsed;
  } catch (const CLI::ParseError& error) {
    parsed.result = ParsedOptions::Result::kUsageError;
    parsed.text = error.what();
    return parsed;
  }
  if (checks.empty()) {
    options.families.insert(allFamilies().begin(), allFamilies().end());
  } else {
    std::string item;
    for (char c : checks + ",") {
      if (c != ',') {
        item += c;
        continue;
      }
      if (item.empty()) continue;
      if (std::find(allFamilies().begin(), allFamilies().end(), item) == allFamilies().end()) {
        parsed.result = ParsedOptions::Result::kUsageError;
        parsed.text = "--checks: unknown family '" + item + "' (valid: " + familyList() + ")";
        return parsed;
      }
      options.families.insert(item);
      item.clear();
    }
  }
  return parsed;
}

}  // namespace doctor
}  // namespace flashccl
