// `flashccl <subcommand> ...`: the acceptance and benchmark tool.
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
#ifdef FLASHCCL_HAVE_doctor
    {"doctor", flashccl::doctorMain, "acceptance and diagnosis of this machine or cluster"},
#endif
};

void usage(FILE* out) {
  std::fprintf(out, "usage: flashccl <command> [options]\n\ncommands:\n");
  for (const Subcommand& sub : kSubcommands) std::fprintf(out, "  %-8s %s\n", sub.name, sub.summary);
  std::fprintf(out, "\n`flashccl <command> --help` describes each command's options.\n");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || !std::strcmp(argv[1], "-h") || !std::strcmp(argv[1], "--help")) {
    usage(argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  for (const Subcommand& sub : kSubcommands) {
    if (!std::strcmp(argv[1], sub.name)) return sub.main(argc - 1, argv + 1);
  }
  std::fprintf(stderr, "flashccl: unknown command '%s'\n\n", argv[1]);
  usage(stderr);
  return 2;
}
