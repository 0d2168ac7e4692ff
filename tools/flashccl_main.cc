// `flashccl <command> ...`: the acceptance and benchmark tool. The same command names work here and
// in `python -m flashccl` / the pip-installed `flashccl` script (docs/cli.md); the commands that
// set up a Python job or draw plots live in the Python package, and this binary says so.
#include <flashccl/flashccl.h>

#include <cstdio>
#include <cstring>

#include "subcommands.h"

namespace {

struct Subcommand {
  const char* name;
  int (*main)(int argc, char** argv);
  const char* summary;
};

const Subcommand kSubcommands[] = {
#ifdef FLASHCCL_HAVE_perf
    {"perf", flashccl::perfMain, "side-by-side benchmark and correctness check against NCCL"},
#endif
#ifdef FLASHCCL_HAVE_plan
    {"plan", flashccl::planMain, "which algorithm each collective would use, and why"},
#endif
#ifdef FLASHCCL_HAVE_trace
    {"trace", flashccl::traceMain, "merge flight-recorder dumps; name the rank that hangs a job"},
#endif
#ifdef FLASHCCL_HAVE_doctor
    {"doctor", flashccl::doctorMain, "acceptance and diagnosis of this machine or cluster"},
#endif
#ifdef FLASHCCL_HAVE_tune
    {"tune", flashccl::tuneMain, "measure NCCL's choices on this machine; write the tuner plugin's table"},
#endif
};

struct PythonCommand {
  const char* name;
  const char* summary;
};

// Part of the same command line, implemented in the Python package (python/flashccl).
const PythonCommand kPythonCommands[] = {
    {"env", "print the shell lines that put flashccl in front of NCCL"},
    {"run", "start a command (torchrun, mpirun, ...) with flashccl enabled"},
    {"plot", "plot a `flashccl perf -J` record (matplotlib)"},
};

void usage(FILE* out) {
  std::fprintf(out, "usage: flashccl <command> [options]\n\ncommands:\n");
  for (const Subcommand& sub : kSubcommands) std::fprintf(out, "  %-9s %s\n", sub.name, sub.summary);
  std::fprintf(out, "  %-9s %s\n", "version", "print flashccl's version (also --version)");
  for (const PythonCommand& py : kPythonCommands)
    std::fprintf(out, "  %-9s %s (python -m flashccl %s)\n", py.name, py.summary, py.name);
  std::fprintf(out, "\n`flashccl <command> --help` describes each command's options.\n");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || !std::strcmp(argv[1], "-h") || !std::strcmp(argv[1], "--help")) {
    usage(argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  if (!std::strcmp(argv[1], "--version") || !std::strcmp(argv[1], "version")) {
    std::printf("%s\n", flashcclVersion());
    return 0;
  }
  for (const Subcommand& sub : kSubcommands) {
    if (!std::strcmp(argv[1], sub.name)) return sub.main(argc - 1, argv + 1);
  }
  for (const PythonCommand& py : kPythonCommands) {
    if (!std::strcmp(argv[1], py.name)) {
      std::fprintf(stderr,
                   "flashccl: '%s' is a command of the Python package: python -m flashccl %s ... (pip "
                   "install flashccl, or PYTHONPATH=python from a checkout with a build)\n",
                   py.name, py.name);
      return 2;
    }
  }
  std::fprintf(stderr, "flashccl: unknown command '%s'\n\n", argv[1]);
  usage(stderr);
  return 2;
}
