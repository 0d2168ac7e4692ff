#include "plan/plan_options.h"

namespace flashccl {

int parsePlanOptions(const std::vector<std::string>& args, PlanOptions* options, std::ostream& out,
                     std::ostream& err) {
  CLI::App app(
      "Shows which algorithm flashccl would run for each collective and size, in-place and "
      "out-of-place, and why (the topology row that matched, or why it falls back to NCCL). Works "
      "without a GPU. FLASHCCL_ALGO applies as it does in the library. Exit status: 0 fine, 1 problems "
      "found (a topology file that does not parse, rows this build cannot use, invalid algorithm "
      "files), 2 bad usage.",
      "flashccl plan");
  app.get_formatter()->column_width(34);
  cli::SizeRange sizes{options->minBytes, options->maxBytes, options->stepFactor};
  cli::addSizeRange(app, &sizes);
  std::vector<int> colls = cli::toIndices(options->colls);
  std::vector<int> dtypes = cli::toIndices(options->dtypes);
  std::vector<int> ops = cli::toIndices(options->ops);
  cli::addCollectives(app, &colls);
  cli::addDataTypes(app, &dtypes);
  // premulsum's op value is made per communicator at run time; there is none to plan for.
  cli::addReduceOps(app, &ops, {ncclSum, ncclProd, ncclMax, ncclMin, ncclAvg});
  cli::addTopo(app, &options->topo,
               "topology file, or the name of a shipped one (e.g. hopper-8gpu-nvswitch, with or without "
               ".xml); default: FLASHCCL_TOPO_FILE, else the topology matching this machine; without a "
               "GPU, hopper-2gpu-nvlink");
  cli::addRanks(app, &options->nranks, "ranks in the communicator (default: the topology's GPU count)");
  app.add_option("--nodes", options->nnodes, "nodes the communicator spans")
      ->check(CLI::Range(1, 1 << 20))->capture_default_str();
  app.add_option("--gpus-per-node", options->gpusPerNode,
                 "with --nodes: ranks = nodes x G, and the cost model across nodes (docs/multinode.md) "
                 "beside NCCL's ring and tree")
      ->type_name("G")->check(CLI::Range(1, 1 << 10));
  app.add_option("--nic-gbps", options->nicGbps, "each GPU's NIC in Gb/s, for that model")
      ->type_name("B")->check(CLI::Range(1e-3, 1e6))->capture_default_str();
  app.add_flag("--show-machine", options->showMachine,
               "also print the detected machine (GPUs, links, NUMA, NICs)");
  app.add_option("--check", options->checkPath,
                 "validate an MSCCL XML algorithm file, or every *.xml in a directory, and exit")
      ->type_name("FILE|DIR");
  const int status = cli::parse(app, "plan", args, out, err);
  if (status >= 0) return status;
  if (sizes.minBytes > sizes.maxBytes)
    return cli::usageError("plan", "-b (" + std::to_string(sizes.minBytes) + " B) is larger than -e (" +
                                       std::to_string(sizes.maxBytes) + " B)",
                           err);
  options->minBytes = sizes.minBytes;
  options->maxBytes = sizes.maxBytes;
  options->stepFactor = sizes.stepFactor;
  options->colls = cli::fromIndices<CollKind>(colls);
  options->dtypes = cli::fromIndices<ncclDataType_t>(dtypes);
  options->ops = cli::fromIndices<ncclRedOp_t>(ops);
  return -1;
}

std::vector<size_t> planSizes(const PlanOptions& options) {
  std::vector<size_t> sizes;
  for (size_t size = options.minBytes; size <= options.maxBytes;) {
    sizes.push_back(size);
    if (size > options.maxBytes / options.stepFactor) break;  // next step would pass max (or overflow)
    size *= options.stepFactor;
  }
  return sizes;
}

}  // namespace flashccl
