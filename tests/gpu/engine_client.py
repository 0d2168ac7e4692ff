"""One rank of tests/gpu/engine_check.sh: NCCL opened the way inference engines open it.

  --mode ctypes  vLLM's and SGLang's PyNcclCommunicator shape: ctypes.CDLL(--lib), every call
                 through that handle (ncclGetUniqueId, ncclCommInitRank, ncclAllReduce on torch
                 tensors and the current stream, ncclCommDestroy); the unique id goes to the other
                 rank over a CPU channel (a file), as theirs goes over a CPU process group.
  --mode cupy    cupy.cuda.nccl.NcclCommunicator (CuPy's NCCL, linked, not opened by path).

For each size it prints `size=<count> result=<ok|WRONG> algorithm=<name>`, where the algorithm is
flashcclLastAlgorithm of the communicator (`(no flashccl)` when the handle has no flashccl), and
at the end `handle=<flashccl|nccl>` and `rank=<r> done`. Exit 0 only when every value was right.
"""

import argparse
import ctypes
import os
import sys
import time

SIZES = [1024, 16 * 1024, 64 * 1024, 256 * 1024, 1024 * 1024]  # float32 elements
NCCL_FLOAT32, NCCL_SUM = 7, 0


class UniqueId(ctypes.Structure):
    _fields_ = [("internal", ctypes.c_byte * 128)]


def exchange_id(path, rank, make):
    """Rank 0 makes the id and writes it; the others wait for the file (the CPU channel)."""
    if rank == 0:
        data = make()
        with open(path + ".tmp", "wb") as f:
            f.write(data)
        os.rename(path + ".tmp", path)
        return data
    deadline = time.time() + 60
    while not os.path.exists(path):
        if time.time() > deadline:
            sys.exit(f"rank {rank}: no unique id in {path} after 60 s")
        time.sleep(0.05)
    with open(path, "rb") as f:
        return f.read()


def expected(torch, count, nranks):
    pattern = (torch.arange(count, device="cuda", dtype=torch.float32) % 7) + 1
    return pattern * sum(r + 1 for r in range(nranks))


def last_algorithm(lookup, comm):
    fn = lookup("flashcclLastAlgorithm")
    if fn is None:
        return "(no flashccl)"
    fn.restype, fn.argtypes = ctypes.c_char_p, [ctypes.c_void_p]
    name = fn(comm)
    return name.decode() if name else "(unknown comm)"


def run_ctypes(args, torch):
    lib = ctypes.CDLL(args.lib)  # what vLLM's NCCLLibrary does with VLLM_NCCL_SO_PATH or libnccl.so.2

    def lookup(name):
        try:
            return getattr(lib, name)
        except AttributeError:
            return None

    def check(result, what):
        if result != 0:
            lib.ncclGetErrorString.restype = ctypes.c_char_p
            sys.exit(f"rank {args.rank}: {what} failed: {lib.ncclGetErrorString(result).decode()}")

    def make_id():
        uid = UniqueId()
        check(lib.ncclGetUniqueId(ctypes.byref(uid)), "ncclGetUniqueId")
        return bytes(bytearray(uid.internal))

    uid = UniqueId()
    ctypes.memmove(uid.internal, exchange_id(args.id_file, args.rank, make_id), 128)
    comm = ctypes.c_void_p()
    check(lib.ncclCommInitRank(ctypes.byref(comm), args.nranks, uid, args.rank), "ncclCommInitRank")
    ok = True
    stream = torch.cuda.current_stream()
    for count in SIZES:
        for _ in range(args.repeats):
            send = ((torch.arange(count, device="cuda", dtype=torch.float32) % 7) + 1) * (args.rank + 1)
            recv = torch.empty_like(send)
            check(lib.ncclAllReduce(ctypes.c_void_p(send.data_ptr()), ctypes.c_void_p(recv.data_ptr()),
                                    ctypes.c_size_t(count), NCCL_FLOAT32, NCCL_SUM, comm,
                                    ctypes.c_void_p(stream.cuda_stream)), "ncclAllReduce")
            stream.synchronize()
            right = torch.equal(recv, expected(torch, count, args.nranks))
            ok = ok and right
        print(f"size={count} result={'ok' if right else 'WRONG'} algorithm={last_algorithm(lookup, comm)}",
              flush=True)
    print(f"handle={'flashccl' if lookup('flashcclVersion') else 'nccl'}", flush=True)
    check(lib.ncclCommDestroy(comm), "ncclCommDestroy")
    return ok


def run_cupy(args, torch):
    import cupy
    from cupy.cuda import nccl

    process = ctypes.CDLL(None)  # the global scope: flashccl's exports when it is preloaded

    def lookup(name):
        try:
            return getattr(process, name)
        except AttributeError:
            return None

    raw = exchange_id(args.id_file, args.rank, lambda: bytes(b & 0xFF for b in nccl.get_unique_id()))
    try:  # older CuPy takes the id as a tuple of signed chars, newer as bytes
        comm = nccl.NcclCommunicator(args.nranks, tuple(b - 256 if b > 127 else b for b in raw), args.rank)
    except TypeError:
        comm = nccl.NcclCommunicator(args.nranks, bytes(raw), args.rank)
    ok = True
    stream = cupy.cuda.Stream.null
    for count in SIZES:
        send = ((cupy.arange(count, dtype=cupy.float32) % 7) + 1) * (args.rank + 1)
        recv = cupy.empty_like(send)
        comm.allReduce(send.data.ptr, recv.data.ptr, count, nccl.NCCL_FLOAT32, nccl.NCCL_SUM, stream.ptr)
        stream.synchronize()
        want = ((cupy.arange(count, dtype=cupy.float32) % 7) + 1) * sum(r + 1 for r in range(args.nranks))
        right = bool(cupy.array_equal(recv, want))
        ok = ok and right
        pointer = getattr(comm, "ptr", None)  # the ncclComm_t, where this CuPy exposes it
        algorithm = last_algorithm(lookup, pointer) if pointer else "(comm pointer unknown)"
        print(f"size={count} result={'ok' if right else 'WRONG'} algorithm={algorithm}", flush=True)
    print(f"handle={'flashccl' if lookup('flashcclVersion') else 'nccl'}", flush=True)
    comm.destroy()
    return ok


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", choices=["ctypes", "cupy"], required=True)
    parser.add_argument("--rank", type=int, required=True)
    parser.add_argument("--nranks", type=int, default=2)
    parser.add_argument("--lib", default="libnccl.so.2")
    parser.add_argument("--id-file", required=True)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    import torch  # loads PyTorch's own NCCL first, as in vLLM and SGLang

    torch.cuda.set_device(0)
    ok = run_ctypes(args, torch) if args.mode == "ctypes" else run_cupy(args, torch)
    print(f"rank={args.rank} done", flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
