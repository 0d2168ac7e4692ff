#include "topo/builtin_table.h"

namespace flashccl {

namespace {

constexpr size_t KiB = 1024;
constexpr size_t MiB = 1024 * KiB;

SelectionRow row(CollKind kind, int nranks, size_t minBytes, size_t maxBytes, const char* algorithm,
                 const char* why) {
  SelectionRow r;
  r.kind = kind;
  r.nranks = nranks;
  r.minBytes = minBytes;
  r.maxBytes = maxBytes;
  r.algorithm = algorithm;
  r.source = std::string("built-in: ") + why;
  return r;
}

}  // namespace

// The table for a machine that no topology file describes. Bands are whole-buffer bytes (NCCL
// tools' "size"). The 2-rank bands are those measured on 2 x H200; 4 and 8 ranks follow the
// published crossovers of one-shot and two-shot all-reduce on NVSwitch boxes (one-shot up to
// ~256 KB at 8 GPUs and ~512 KB at 4, two-shot above) and stay conservative. None of it was
// measured on the machine it would run on, so it arms nothing unless the user opts in
// (FLASHCCL_UNMEASURED=1).
const SelectionTable& builtinSelectionTable() {
  static const SelectionTable table = [] {
    SelectionTable t;
    t.name = "built-in";
    t.unmeasured = true;
    using K = CollKind;
    t.rows = {
        row(K::kAllReduce, 2, 0, 2 * MiB, "allreduce_oneshot", "2 ranks, small"),
        row(K::kAllReduce, 2, 2 * MiB + 1, 0, "allreduce_twoshot", "2 ranks, mid and large"),
        row(K::kAllGather, 2, 0, 0, "allgather_direct", "2 ranks"),
        row(K::kReduceScatter, 2, 0, 0, "reducescatter_direct", "2 ranks"),

        row(K::kAllReduce, 4, 0, 256 * KiB, "allreduce_oneshot", "4 ranks, small"),
        row(K::kAllReduce, 4, 256 * KiB + 1, 32 * MiB, "allreduce_twoshot", "4 ranks, mid"),
        row(K::kAllGather, 4, 0, 32 * MiB, "allgather_direct", "4 ranks"),
        row(K::kReduceScatter, 4, 0, 32 * MiB, "reducescatter_direct", "4 ranks"),

        row(K::kAllReduce, 0, 0, 64 * KiB, "allreduce_oneshot", "up to 8 ranks, small"),
        row(K::kAllReduce, 0, 64 * KiB + 1, 16 * MiB, "allreduce_twoshot", "up to 8 ranks, mid"),
        row(K::kAllGather, 0, 0, 16 * MiB, "allgather_direct", "up to 8 ranks"),
        row(K::kReduceScatter, 0, 0, 16 * MiB, "reducescatter_direct", "up to 8 ranks"),

        // Communicators across nodes (the rows above run inside one node, these only across
        // nodes: the Selector keeps the rows whose algorithm fits the node count). Not measured
        // anywhere yet: the bands follow the cost model of docs/multinode.md (one inter-node
        // exchange of the node's sum while latency dominates, the pipelined hierarchy above) and
        // stop where it says NCCL's own ring is as fast.
        row(K::kAllReduce, 0, 0, 64 * KiB, "allreduce_hier_oneshot", "across nodes, small"),
        row(K::kAllReduce, 0, 64 * KiB + 1, 256 * MiB, "allreduce_hier", "across nodes"),
        row(K::kAllGather, 0, 0, 256 * MiB, "allgather_hier", "across nodes"),
        row(K::kReduceScatter, 0, 0, 256 * MiB, "reducescatter_hier", "across nodes"),
    };
    return t;
  }();
  return table;
}

}  // namespace flashccl
