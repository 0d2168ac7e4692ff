#!/usr/bin/env python3
"""One rank of a torchrun job with a stuck rank (issue 14; tests/gpu/fault_check.sh torch).

Every rank runs on GPU 0 with its own NCCL_HOSTID, so NCCL accepts several ranks on one GPU.
Rank FAULT_RANK stops calling at step FAULT_AT: it sleeps, as a rank stuck in data loading would,
while the others wait in all_reduce. Run in front of the real NCCL:

    LD_PRELOAD=build/src/libflashccl.so torchrun --nproc_per_node=2 tests/gpu/fault_torch.py

Knobs (environment): FAULT_STEPS (400), FAULT_AT (100), FAULT_RANK (1), FAULT_TORCH_TIMEOUT_S
(PyTorch's own collective timeout, 600: longer than FLASHCCL_HANG_TIMEOUT, so flashccl speaks first).
"""
import datetime
import os
import time

RANK = int(os.environ["RANK"])
# Before torch and NCCL read them.
os.environ["NCCL_HOSTID"] = f"flashccl-fault-torch-{RANK}"
os.environ.setdefault("NCCL_SOCKET_IFNAME", "lo")
os.environ["NCCL_NVLS_ENABLE"] = "0"

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402


def main():
    steps = int(os.environ.get("FAULT_STEPS", "400"))
    at = int(os.environ.get("FAULT_AT", "100"))
    culprit = int(os.environ.get("FAULT_RANK", "1"))
    timeout = datetime.timedelta(seconds=int(os.environ.get("FAULT_TORCH_TIMEOUT_S", "600")))
    torch.cuda.set_device(0)
    dist.init_process_group("nccl", timeout=timeout, device_id=torch.device("cuda", 0))
    print(f"rank {RANK} pid {os.getpid()} ready", flush=True)
    for step in range(1, steps + 1):
        x = torch.full((1024 << (step % 5),), float(RANK + 1), device="cuda")
        if RANK == culprit and step == at:
            print(f"fault at {time.time():.3f}: rank {RANK} sleeps instead of calling all_reduce {step}",
                  flush=True)
            time.sleep(3600)
        dist.all_reduce(x)
        torch.cuda.synchronize()
        expected = sum(range(1, dist.get_world_size() + 1))
        if x[0].item() != expected:
            raise SystemExit(f"rank {RANK}: step {step} summed to {x[0].item()}, expected {expected}")
    print("done", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
