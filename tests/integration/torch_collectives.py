"""PyTorch collectives, eager and in CUDA graphs, with every result's bytes hashed per rank.

    torchrun --standalone --nproc_per_node=2 torch_collectives.py --out DIR

Runs all_reduce (sum), all_gather_into_tensor and reduce_scatter_tensor (sum) in bf16 and fp32
over sizes from one element to 64 MB, once eagerly and once captured in a torch.cuda.CUDAGraph and
replayed with fresh inputs, and writes DIR/rank<R>.json: for every case the sha256 of the result's
bytes, a few values, and whether it equals a reference computed on the rank itself. Run it with
and without flashccl and compare the files (compare_results.py): the same job must give the same
bytes.
"""

import argparse
import hashlib
import json
import os
import socket
import sys
import time

# NVLink multicast (NVLS) can take a shared host's GPUs out of service: off even when this script is
# started by hand, before torch or NCCL read the environment.
os.environ["NCCL_NVLS_ENABLE"] = "0"
os.environ["TORCH_SYMM_MEM_DISABLE_MULTICAST"] = "1"

import torch  # noqa: E402  (after the environment above)
import torch.distributed as dist  # noqa: E402

DTYPES = {"bf16": torch.bfloat16, "fp32": torch.float32}
COLLECTIVES = ("all_reduce", "all_gather_into_tensor", "reduce_scatter_tensor")
# Per-rank element counts: single elements and odd counts (tails, misalignment), then 4 KB, 1 MB
# and 64 MB per rank in each dtype (counts are per-rank chunks for all-gather/reduce-scatter).
ELEMENT_COUNTS = (1, 3, 1001, 65537)
BYTE_SIZES = (4 << 10, 1 << 20, 64 << 20)
GRAPH_REPLAYS = 3


def counts_for(dtype):
    size = torch.tensor([], dtype=dtype).element_size()
    return list(ELEMENT_COUNTS) + [nbytes // size for nbytes in BYTE_SIZES]


def rank_input(rank, count, dtype, seed, device):
    """Deterministic, never zero, different on every rank, index and seed: values in [1, 2) scaled
    by rank+1, from an integer hash, so that a lost, duplicated or misplaced element shows."""
    index = torch.arange(count, dtype=torch.int64, device=device)
    h = (index * 2654435761 + (rank + 1) * 40503 + seed * 7919) % 1000003
    values = (1.0 + h.to(torch.float64) / 1000003.0) * (rank + 1)
    return values.to(dtype)


def reference(collective, inputs, rank, world):
    """What the collective must produce on `rank`, from every rank's input (computed locally).
    Sums add in rank order in fp32 and round once: for two ranks that is the one correctly
    rounded sum, which any correct implementation returns bit for bit."""
    if collective == "all_gather_into_tensor":
        return torch.cat(inputs)
    total = inputs[0].float()
    for other in inputs[1:]:
        total = total + other.float()
    total = total.to(inputs[0].dtype)
    if collective == "all_reduce":
        return total
    chunk = total.numel() // world
    return total[rank * chunk:(rank + 1) * chunk]


class Case:
    """One collective on static buffers, so the same call can be captured and replayed."""

    def __init__(self, collective, dtype, count, rank, world, device):
        self.collective, self.dtype, self.count = collective, dtype, count
        self.rank, self.world, self.device = rank, world, device
        in_count = count * world if collective == "reduce_scatter_tensor" else count
        out_count = count * world if collective == "all_gather_into_tensor" else count
        self.input = torch.empty(in_count, dtype=dtype, device=device)
        # all_reduce works in place, on the input itself.
        self.output = self.input if collective == "all_reduce" else torch.empty(out_count, dtype=dtype, device=device)

    def fill(self, seed):
        """Fresh inputs (and a sentinel output, so a collective that writes nothing is caught)."""
        self.input.copy_(rank_input(self.rank, self.input.numel(), self.dtype, seed, self.device))
        if self.output is not self.input:
            self.output.fill_(-7.0)

    def launch(self):
        if self.collective == "all_reduce":
            dist.all_reduce(self.output, op=dist.ReduceOp.SUM)
        elif self.collective == "all_gather_into_tensor":
            dist.all_gather_into_tensor(self.output, self.input)
        else:
            dist.reduce_scatter_tensor(self.output, self.input, op=dist.ReduceOp.SUM)

    def record(self, seed):
        torch.cuda.synchronize()
        result = self.output
        inputs = [rank_input(r, self.input.numel(), self.dtype, seed, self.device) for r in range(self.world)]
        expected = reference(self.collective, inputs, self.rank, self.world)
        as_float = result.float()
        return {
            "sha256": hashlib.sha256(result.contiguous().view(torch.uint8).cpu().numpy().tobytes()).hexdigest(),
            "numel": result.numel(),
            "head": as_float[:4].tolist(),
            "tail": as_float[-2:].tolist(),
            "equals_reference": bool(torch.equal(result, expected)),
            "max_abs_error": float((as_float - expected.float()).abs().max()),
        }


def run_eager(case, seed):
    case.fill(seed)
    case.launch()
    return case.record(seed)


def run_graph(case, seeds):
    # PyTorch requires warm-up on a side stream before capture (it sets up NCCL's communicator
    # and the allocator's pools outside the graph).
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for warm_seed in (101, 102, 103):
            case.fill(warm_seed)
            case.launch()
    torch.cuda.current_stream().wait_stream(side)
    torch.cuda.synchronize()

    graph = torch.cuda.CUDAGraph()
    case.fill(seeds[0])
    with torch.cuda.graph(graph):
        case.launch()
    results = []
    # Each replay gets new inputs copied into the captured buffers: a graph that replays stale
    # state (sequence numbers, flags) gives wrong or stuck results here.
    for seed in seeds:
        case.fill(seed)
        graph.replay()
        results.append(case.record(seed))
    graph.reset()
    return results


def flashccl_mapped():
    with open("/proc/self/maps", encoding="utf-8") as maps:
        return any(line.rstrip().endswith("/libflashccl.so") for line in maps)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", required=True, help="folder for rank<R>.json")
    parser.add_argument("--modes", default="eager,graph", help="eager, graph or both (default)")
    args = parser.parse_args()

    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    local_rank = int(os.environ.get("LOCAL_RANK", rank))
    torch.cuda.set_device(local_rank)
    device = torch.device("cuda", local_rank)
    dist.init_process_group("nccl", device_id=device)

    results = {}
    started = time.time()
    modes = args.modes.split(",")
    for collective in COLLECTIVES:
        for dtype_name, dtype in DTYPES.items():
            for count in counts_for(dtype):
                case = Case(collective, dtype, count, rank, world, device)
                key = f"{collective}/{dtype_name}/{count}"
                if "eager" in modes:
                    results[f"eager/{key}"] = run_eager(case, seed=1)
                if "graph" in modes:
                    for replay, record in enumerate(run_graph(case, seeds=[11 + i for i in range(GRAPH_REPLAYS)])):
                        results[f"graph/{key}/replay{replay}"] = record
                del case
        torch.cuda.empty_cache()

    report = {
        "rank": rank,
        "world_size": world,
        "host": socket.gethostname(),
        "device": torch.cuda.get_device_name(device),
        "torch": torch.__version__,
        "nccl": ".".join(map(str, torch.cuda.nccl.version())),
        "flashccl_mapped": flashccl_mapped(),
        "env": {name: os.environ.get(name) for name in
                ("LD_PRELOAD", "FLASHCCL_NCCL_LIBRARY", "NCCL_NVLS_ENABLE", "NCCL_DEBUG")},
        "seconds": round(time.time() - started, 1),
        "results": results,
    }
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, f"rank{rank}.json"), "w", encoding="utf-8") as f:
        json.dump(report, f, indent=1, sort_keys=True)
    dist.barrier()
    dist.destroy_process_group()
    wrong = [key for key, record in results.items() if not record["equals_reference"]]
    print(f"rank {rank}: {len(results)} results, {len(wrong)} differ from the reference"
          f"{' (expected only for sums over more than 2 ranks)' if wrong and world > 2 else ''}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
