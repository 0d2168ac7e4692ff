#!/usr/bin/env python3
"""A PyTorch job that goes on without a rank that died (issue 27; docs/trace.md, "Recovery").

    LD_PRELOAD=build/src/libflashccl.so python3 tests/gpu/recovery_torch.py OUTDIR

The launcher (this script without --rank) holds the job's TCPStore itself and starts NRANKS
processes on GPU 0, each in its own session with its own NCCL_HOSTID: one rank's death ends no
other (torchrun's agent would end them all, so it is not used). Rank CULPRIT kills itself
(SIGKILL) before step AT. The survivors wait for each all_reduce with their own timeout, polling
the work (its error is flashccl's: the dead-peer check fails the communicator within about a
second) and checking every result; on failure they call
torch.distributed.distributed_c10d.shrink_group([CULPRIT], shrink_flags=SHRINK_ABORT), which calls
ncclCommShrink, and run STEPS_AFTER checked all_reduce/all_gather/reduce_scatter steps on the
shrunk group. TORCH_NCCL_ASYNC_ERROR_HANDLING=0: PyTorch's watchdog must not abort the parent
communicator (an aborted communicator cannot be shrunk).

The launcher prints one line per rank and a final "torch recovery: PASS ..." or "torch recovery:
FAIL: ...", writes OUTDIR/torch.md (a record fragment) and exits 0 only on PASS. It bounds its own
time (DEADLINE_S).

Knobs (environment): NRANKS (3), CULPRIT (1), AT (100), STEPS_BEFORE (100000: the loop the culprit
interrupts), STEPS_AFTER (1000), WAIT_S (20: the survivors' own timeout per step), DEADLINE_S (90).
"""
import datetime
import os
import signal
import socket
import subprocess
import sys
import time

NRANKS = int(os.environ.get("NRANKS", "3"))
CULPRIT = int(os.environ.get("CULPRIT", "1"))
AT = int(os.environ.get("AT", "100"))
STEPS_BEFORE = int(os.environ.get("STEPS_BEFORE", "100000"))
STEPS_AFTER = int(os.environ.get("STEPS_AFTER", "1000"))
WAIT_S = float(os.environ.get("WAIT_S", "20"))
DEADLINE_S = float(os.environ.get("DEADLINE_S", "90"))


def say(text):
    print(text, flush=True)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# ---------------------------------------------------------------- one rank

def send_value(rank, step, n):
    """Small integers: every sum is exact, a missing or stale contribution shows."""
    import torch
    return (torch.arange(n, device="cuda", dtype=torch.float32) + step) % 13 + (rank + 1) * 16


class StepFailed(Exception):
    pass


def wait_for(work, what):
    """Our own timeout, as torchft does: poll the work; its error or a late result fails the step."""
    start = time.time()
    while True:
        try:
            done = work.is_completed()
        except Exception as error:  # noqa: BLE001 - any error of the work is the step's failure
            raise StepFailed(f"{what}: {error}") from error
        if done:
            break
        if time.time() - start > WAIT_S:
            raise StepFailed(f"{what}: not done after {WAIT_S} s")
        time.sleep(0.001)
    ok = True
    for probe in ("is_success",):
        check = getattr(work, probe, None)
        if check is not None:
            try:
                ok = bool(check())
            except Exception:  # noqa: BLE001 - deprecated in some versions: the data check decides
                ok = True
    exception = getattr(work, "exception", None)
    if exception is not None:
        try:
            if exception() is not None:
                ok = False
        except Exception:  # noqa: BLE001
            pass
    if not ok:
        raise StepFailed(f"{what}: the work reports an error")


def checked_step(dist, group, rank, nranks, step, kind):
    """One collective on `group`, its result checked element by element. Returns wrong elements."""
    import torch
    n = 1024 << (step % 5)
    if kind == "all_reduce":
        x = send_value(rank, step, n)
        wait_for(dist.all_reduce(x, group=group, async_op=True), f"all_reduce step {step}")
        expected = sum(send_value(r, step, n) for r in range(nranks))
        return int((x != expected).sum().item())
    if kind == "all_gather":
        x = send_value(rank, step, n)
        out = torch.full((n * nranks,), float("nan"), device="cuda")
        wait_for(dist.all_gather_into_tensor(out, x, group=group, async_op=True), f"all_gather step {step}")
        expected = torch.cat([send_value(r, step, n) for r in range(nranks)])
        return int((out != expected).sum().item())
    x = send_value(rank, step, n * nranks)
    out = torch.full((n,), float("nan"), device="cuda")
    wait_for(dist.reduce_scatter_tensor(out, x, group=group, async_op=True), f"reduce_scatter step {step}")
    expected = sum(send_value(r, step, n * nranks) for r in range(nranks))[rank * n:(rank + 1) * n]
    return int((out != expected).sum().item())


def leave_with_the_launcher():
    """A rank whose launcher is gone (killed by an outer timeout) ends too: nothing stays on the GPU."""
    import threading
    launcher = os.getppid()

    def watch():
        while os.getppid() == launcher:
            time.sleep(1)
        os._exit(9)

    threading.Thread(target=watch, daemon=True).start()


def run_rank(rank, port):
    os.environ["NCCL_HOSTID"] = f"flashccl-recovery-torch-{rank}"
    leave_with_the_launcher()
    import torch
    import torch.distributed as dist
    from torch.distributed import distributed_c10d as c10d

    torch.cuda.set_device(0)
    store = dist.TCPStore("127.0.0.1", port, NRANKS, is_master=False,
                          timeout=datetime.timedelta(seconds=60))
    dist.init_process_group("nccl", store=store, rank=rank, world_size=NRANKS,
                            timeout=datetime.timedelta(seconds=600), device_id=torch.device("cuda", 0))
    say(f"rank {rank} pid {os.getpid()} ready")
    step = 0
    try:
        for step in range(1, STEPS_BEFORE + 1):
            if rank == CULPRIT and step == AT:
                say(f"fault at {time.time():.3f}: rank {rank} kills itself before step {step}")
                os.kill(os.getpid(), signal.SIGKILL)
            wrong = checked_step(dist, None, rank, NRANKS, step, "all_reduce")
            if wrong:
                raise StepFailed(f"all_reduce step {step}: {wrong} wrong elements")
        say(f"rank {rank}: no fault in {STEPS_BEFORE} steps")
        return 3
    except StepFailed as error:
        say(f"error seen at {time.time():.3f}: {error}")
    shrink_abort = getattr(c10d, "SHRINK_ABORT", 1)  # NCCL_SHRINK_ABORT
    try:
        group = c10d.shrink_group([CULPRIT], shrink_flags=shrink_abort)
    except Exception as error:  # noqa: BLE001 - the verdict must say why
        say(f"shrink_group failed at {time.time():.3f}: {type(error).__name__}: {error}")
        return 5
    child_rank, child_size = dist.get_rank(group), dist.get_world_size(group)
    say(f"shrink_group returned at {time.time():.3f}: rank {child_rank} of {child_size}")
    wrong_steps = 0
    kinds = ("all_reduce", "all_gather", "reduce_scatter")
    try:
        for after in range(1, STEPS_AFTER + 1):
            wrong = checked_step(dist, group, child_rank, child_size, after, kinds[after % 3])
            wrong_steps += 1 if wrong else 0
            if after == 1:
                say(f"child first call ok at {time.time():.3f}")
    except StepFailed as error:
        say(f"child step failed at {time.time():.3f}: {error}")
        return 5
    say(f"child done: {STEPS_AFTER} calls, {wrong_steps} wrong")
    # Leave without waiting for the dead rank: the parent is not destroyed collectively.
    os._exit(0 if wrong_steps == 0 else 7)


# ---------------------------------------------------------------- the launcher

def launch(outdir):
    import torch.distributed as dist

    os.makedirs(outdir, exist_ok=True)
    port = free_port()
    store = dist.TCPStore("127.0.0.1", port, NRANKS, is_master=True, wait_for_workers=False,  # noqa: F841
                          timeout=datetime.timedelta(seconds=60))
    # PyTorch's watchdog, on the failed collective, symbolizes its Flight Recorder's stack trace
    # (6 s seen with 2.11), signals a dump and waits for it (60 s) while the rank's shrink_group
    # waits for the watchdog: its peers' first calls on the child time out meanwhile. The recipe
    # (docs/trace.md, "Recovery") turns PyTorch's recorder and the wait off; flashccl's dump of
    # the verdict stays.
    env = dict(os.environ, NCCL_SOCKET_IFNAME="lo", NCCL_NVLS_ENABLE="0", TORCH_NCCL_ASYNC_ERROR_HANDLING="0",
               TORCH_NCCL_ENABLE_MONITORING="0", TORCH_NCCL_DUMP_ON_TIMEOUT="0", TORCH_FR_DUMP_ON_TIMEOUT="0",
               TORCH_NCCL_WAIT_TIMEOUT_DUMP_MILSEC="0", TORCH_FR_WAIT_TIMEOUT_DUMP_MILSEC="0",
               TORCH_NCCL_TRACE_BUFFER_SIZE="0", TORCH_FR_BUFFER_SIZE="0", PYTHONUNBUFFERED="1")
    procs, logs = [], []
    for rank in range(NRANKS):
        log = open(os.path.join(outdir, f"torch_rank{rank}.log"), "w")
        logs.append(log)
        procs.append(subprocess.Popen([sys.executable, __file__, "--rank", str(rank), "--port", str(port)],
                                      env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True))
    end = time.time() + DEADLINE_S
    survivors = [r for r in range(NRANKS) if r != CULPRIT]
    while time.time() < end and any(procs[r].poll() is None for r in survivors):
        time.sleep(0.25)
    for proc in procs:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    for log in logs:
        log.close()

    def field(rank, prefix):
        with open(os.path.join(outdir, f"torch_rank{rank}.log")) as f:
            for line in f:
                if line.startswith(prefix):
                    return line.strip()
        return None

    def stamp(line):
        try:
            return float(line.split(" at ")[1].split(":")[0].split()[0])
        except (AttributeError, IndexError, ValueError):
            return None

    fault = stamp(field(CULPRIT, "fault at"))
    problems, rows = [], []
    for rank in survivors:
        code = procs[rank].returncode
        known = stamp(field(rank, "error seen at"))
        first = stamp(field(rank, "child first call ok at"))
        done = field(rank, "child done:")
        delay = lambda t: f"{t - fault:.1f}" if t is not None and fault is not None else "none"  # noqa: E731
        rows.append(f"rank {rank}: exit {code}, error after {delay(known)} s, child's first call after "
                    f"{delay(first)} s, {done or 'child not done'}")
        if code != 0:
            problems.append(f"rank {rank} exit {code} ({field(rank, 'shrink_group failed') or field(rank, 'child step failed') or 'see its log'})")
        elif done != f"child done: {STEPS_AFTER} calls, 0 wrong":
            problems.append(f"rank {rank}: {done}")
    for row in rows:
        say(row)
    verdict = "PASS" if fault is not None and not problems else "FAIL: " + ("; ".join(problems) or "no fault seen")
    say(f"torch recovery: {verdict}")
    with open(os.path.join(outdir, "torch.md"), "w") as f:
        f.write(f"# PyTorch recovery ({time.strftime('%Y-%m-%d')}, {socket.gethostname()})\n\n")
        f.write(f"{NRANKS} processes on GPU 0 (own launcher, TORCH_NCCL_ASYNC_ERROR_HANDLING=0), rank {CULPRIT} "
                f"killed before step {AT}, shrink_group([{CULPRIT}], SHRINK_ABORT), {STEPS_AFTER} checked steps "
                f"after.\n\n")
        for row in rows:
            f.write(f"- {row}\n")
        f.write(f"\nResult: {verdict}\n")
    return 0 if verdict == "PASS" else 1


def main():
    args = sys.argv[1:]
    if args[:1] == ["--rank"] and len(args) == 4 and args[2] == "--port":
        sys.exit(run_rank(int(args[1]), int(args[3])))
    if len(args) != 1 or args[0].startswith("-"):
        sys.exit("usage: recovery_torch.py OUTDIR")
    if not 0 <= CULPRIT < NRANKS or NRANKS < 3:
        sys.exit("recovery_torch.py: need NRANKS >= 3 and 0 <= CULPRIT < NRANKS")
    sys.exit(launch(args[0]))


if __name__ == "__main__":
    main()
