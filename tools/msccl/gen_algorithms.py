#!/usr/bin/env python3
"""Generates flashccl's shipped MSCCL algorithm files (algorithms/*.xml).

Python 3, standard library only. Run from anywhere:

    tools/msccl/gen_algorithms.py              # (re)writes <repo>/algorithms/
    tools/msccl/gen_algorithms.py --out DIR    # writes into DIR instead

The output is deterministic; tests/unit/msccl_shipped_algorithms_test.cc regenerates it into a
temporary directory and fails if the committed files differ, and proves every file with the CPU
simulator (right result on every rank, no deadlock, no data race, in both layouts it claims).

Format: docs/algorithms.md and the MSCCL schema (msccl-format.md). Conventions used here:
  - Every step touches only the executing rank's buffers; data crosses ranks by send/recv.
    Operand fields a step type does not use repeat the used ones (as TL's ring output does).
  - A step that must wait for several steps of other thread blocks gets nops in front of it,
    one per dependency but the last, which the step carries itself; every step waited on is
    written with hasdep="1".
  - Reductions that flashccl's determinism rule covers (docs/design.md, "Deterministic order") compute
    op(...op(op(x0, x1), x2)..., x_{n-1}) in rank order, the same on every rank: the rank that
    reduces a chunk first puts x0 in the destination, then one fused `re` adds x1..x_{n-1} from
    scratch, where its own contribution has been copied too. Rings reduce each chunk once, in
    ring order, and pass the result on: the same bits on every rank, but not rank order.
  - Every file serves in-place and out-of-place calls: results go to `o`, inputs are read from
    `i` and never written (NCCL's send buffer is const), and the order of steps keeps the
    in-place aliasing of i and o safe. A copy whose source and destination coincide in place
    (an allgather rank copying its own slot) is a no-op there.
"""

import argparse
import os
import sys

# ---------------------------------------------------------------------------------------------
# A small program model: ranks, thread blocks, steps with dependencies as object references.


class Step:
    def __init__(self, tb, type_, src, dst, cnt, after):
        self.tb = tb
        self.type = type_
        self.src = src  # (buffer letter, chunk) or None
        self.dst = dst
        self.cnt = cnt
        self.after = list(after)  # steps of other tbs of the same rank this one waits for
        self.waited_on = False
        self.index = None  # XML s, assigned at emission (nops included)


class ThreadBlock:
    def __init__(self, rank, tb_id, send, recv, chan):
        self.rank = rank
        self.id = tb_id
        self.send = send
        self.recv = recv
        self.chan = chan
        self.steps = []

    def add(self, type_, src=None, dst=None, cnt=1, after=()):
        st = Step(self, type_, src, dst, cnt, [a for a in after if a.tb is not self])
        self.steps.append(st)
        return st

    # The step types, named for what they do.
    def send_(self, src, cnt=1, after=()):
        return self.add("s", src=src, cnt=cnt, after=after)

    def recv_(self, dst, cnt=1, after=()):
        return self.add("r", dst=dst, cnt=cnt, after=after)

    def copy(self, src, dst, cnt=1, after=()):
        return self.add("cpy", src=src, dst=dst, cnt=cnt, after=after)

    def reduce_into(self, dst, srcbuf, srcoffs, after=()):
        """dst = op(dst, src[0], src[1], ...): consecutive re steps the executor fuses into one
        reduction (at most 16). Returns the last step, the one that publishes."""
        assert 1 <= len(srcoffs) <= 16
        last = None
        for k, off in enumerate(srcoffs):
            last = self.add("re", src=(srcbuf, off), dst=dst, after=after if k == 0 else ())
        return last


class Rank:
    def __init__(self, rank_id, i_chunks, o_chunks, s_chunks):
        self.id = rank_id
        self.i_chunks = i_chunks
        self.o_chunks = o_chunks
        self.s_chunks = s_chunks
        self.tbs = []

    def tb(self, send=-1, recv=-1, chan=0):
        t = ThreadBlock(self, len(self.tbs), send, recv, chan)
        self.tbs.append(t)
        return t


class Program:
    def __init__(self, name, coll, proto, ngpus, nchannels, nchunksperloop, description):
        self.name = name
        self.coll = coll
        self.proto = proto
        self.ngpus = ngpus
        self.nchannels = nchannels
        self.nchunksperloop = nchunksperloop
        self.description = description
        self.ranks = []

    def rank(self, rank_id, i_chunks, o_chunks, s_chunks):
        r = Rank(rank_id, i_chunks, o_chunks, s_chunks)
        self.ranks.append(r)
        return r

    # -- emission --------------------------------------------------------------------------

    def to_xml(self):
        # Assign XML step numbers: each dependency but the last becomes a nop in front.
        for rank in self.ranks:
            for tb in rank.tbs:
                s = 0
                for st in tb.steps:
                    st.after.sort(key=lambda a: (a.tb.id, a.tb.steps.index(a)))
                    s += max(len(st.after) - 1, 0)
                    st.index = s
                    s += 1
                    for a in st.after:
                        a.waited_on = True
        out = []
        out.append("<!-- %s -->" % self.description)
        out.append("<!-- Generated by tools/msccl/gen_algorithms.py; edit the script, not this file. -->")
        out.append(
            '<algo name="%s" proto="%s" nchannels="%d" nchunksperloop="%d" ngpus="%d" coll="%s" '
            'inplace="1" outofplace="1" minBytes="0" maxBytes="0">'
            % (self.name, self.proto, self.nchannels, self.nchunksperloop, self.ngpus, self.coll))
        for rank in self.ranks:
            out.append('  <gpu id="%d" i_chunks="%d" o_chunks="%d" s_chunks="%d">'
                       % (rank.id, rank.i_chunks, rank.o_chunks, rank.s_chunks))
            for tb in rank.tbs:
                out.append('    <tb id="%d" send="%d" recv="%d" chan="%d">' % (tb.id, tb.send, tb.recv, tb.chan))
                s = 0
                for st in tb.steps:
                    for a in st.after[:-1]:
                        out.append(step_xml(s, "nop", ("i", -1), ("o", -1), 0, a.tb.id, a.index, False))
                        s += 1
                    dep = st.after[-1] if st.after else None
                    src = st.src or st.dst  # an operand the type does not use repeats the used one
                    dst = st.dst or st.src
                    out.append(step_xml(s, st.type, src, dst, st.cnt, dep.tb.id if dep else -1,
                                        dep.index if dep else -1, st.waited_on))
                    assert s == st.index
                    s += 1
                out.append("    </tb>")
            out.append("  </gpu>")
        out.append("</algo>")
        return "\n".join(out) + "\n"


def step_xml(s, type_, src, dst, cnt, depid, deps, hasdep):
    return ('      <step s="%d" type="%s" srcbuf="%s" srcoff="%d" dstbuf="%s" dstoff="%d" cnt="%d" '
            'depid="%d" deps="%d" hasdep="%d"/>'
            % (s, type_, src[0], src[1], dst[0], dst[1], cnt, depid, deps, 1 if hasdep else 0))


def I(k):
    return ("i", k)


def O(k):
    return ("o", k)


def S(k):
    return ("s", k)


# ---------------------------------------------------------------------------------------------
# Algorithms. n = ranks; instances/channels multiply the parallelism: each instance works on
# its own chunks with its own thread blocks on its own channel.


def reduce_in_rank_order(local, r, n, own, slot, dst, recvs):
    """On rank r, make dst = op(x0, x1, ..., x_{n-1}) for one chunk. `own` is r's contribution,
    slot(q) the scratch chunk holding rank q's (received by the steps `recvs`). The rank's own
    contribution goes to scratch first, so that one fused re reads x1..x_{n-1} from one buffer
    in rank order on every rank. Returns the publishing step."""
    if r == 0:
        local.copy(own, dst, after=recvs)
    else:
        local.copy(own, S(slot(r)))
        local.copy(S(slot(0)), dst, after=recvs)
    return local.reduce_into(dst, "s", [slot(q) for q in range(1, n)])


def allreduce_1step(n, instances, proto):
    """One-shot: every rank sends its whole input to every peer, then reduces all n copies
    itself. One latency, (n-1)x the data: for small messages."""
    name = "allreduce_1step--gpus_%d-instances_%d-proto_%s" % (n, instances, proto)
    p = Program(name, "allreduce", proto, n, instances, instances,
                "Allreduce, one shot: each rank sends its input to every peer and reduces all of "
                "them in rank order (x0 op x1 op ... op x%d), so every rank computes the same bits. "
                "%d instances, each one chunk on its own channel." % (n - 1, instances))
    for r in range(n):
        rank = p.rank(r, instances, instances, n * instances)
        for k in range(instances):
            slot = lambda q, k=k: k * n + q  # scratch chunk holding rank q's chunk k
            recvs = []
            for peer in range(n):
                if peer == r:
                    continue
                t = rank.tb(send=peer, recv=peer, chan=k)
                t.send_(I(k))
                recvs.append(t.recv_(S(slot(peer))))
            local = rank.tb(chan=k)
            reduce_in_rank_order(local, r, n, I(k), slot, O(k), recvs)
    return p


def allreduce_allpairs(n, instances, proto):
    """Reduce-scatter among all pairs, then all-gather: rank q owns chunk q, receives everyone's
    chunk q, reduces it in rank order and sends the result to every peer. Two latencies,
    2(n-1)/n of the data."""
    name = "allreduce_allpairs--gpus_%d-instances_%d-proto_%s" % (n, instances, proto)
    p = Program(name, "allreduce", proto, n, instances, n * instances,
                "Allreduce, all pairs: rank q reduces chunk q of every rank in rank order, then "
                "sends it to every peer. %d instances, each on its own channel." % instances)
    chunk = lambda q, k: q * instances + k  # chunk q (owned by rank q) of instance k
    for r in range(n):
        rank = p.rank(r, n * instances, n * instances, n * instances)
        for k in range(instances):
            slot = lambda q, k=k: k * n + q
            peers = {}
            recvs = []
            for peer in range(n):
                if peer == r:
                    continue
                t = rank.tb(send=peer, recv=peer, chan=k)
                t.send_(I(chunk(peer, k)))
                recvs.append(t.recv_(S(slot(peer))))
                peers[peer] = t
            local = rank.tb(chan=k)
            reduced = reduce_in_rank_order(local, r, n, I(chunk(r, k)), slot, O(chunk(r, k)), recvs)
            for peer, t in sorted(peers.items()):
                t.send_(O(chunk(r, k)), after=[reduced])
                t.recv_(O(chunk(peer, k)))
    return p


def allreduce_ring(n, channels, proto):
    """The classic ring (msccl-format.md §4 vector B): n-1 reduce steps then n-1 copy steps,
    each chunk reduced once, starting at its own rank, and passed on. `channels` rings run side
    by side on separate channels, each on its own share of the chunks."""
    name = "allreduce_ring--gpus_%d-channels_%d-proto_%s" % (n, channels, proto)
    p = Program(name, "allreduce", proto, n, channels, n * channels,
                "Allreduce, ring: chunk c is reduced along the ring starting at rank c, then passed "
                "around; every rank gets the same bits. %d rings on %d channels." % (channels, channels))
    chunk = lambda c, j: c * channels + j
    for r in range(n):
        rank = p.rank(r, n * channels, n * channels, 0)
        for j in range(channels):
            t = rank.tb(send=(r + 1) % n, recv=(r - 1) % n, chan=j)
            t.send_(I(chunk(r, j)))
            for k in range(1, n - 1):
                t.add("rrs", src=I(chunk((r - k) % n, j)))
            done = chunk((r + 1) % n, j)  # the chunk this rank completes
            t.add("rrcs", src=I(done), dst=O(done))
            for k in range(0, n - 2):
                t.add("rcs", dst=O(chunk((r - k) % n, j)))
            t.recv_(O(chunk((r + 2) % n, j)))
    return p


def allgather_direct(n, instances, proto):
    """Every rank sends its input straight to every peer's output slot."""
    name = "allgather_direct--gpus_%d-instances_%d-proto_%s" % (n, instances, proto)
    p = Program(name, "allgather", proto, n, instances, n * instances,
                "Allgather, direct: each rank sends its input to every peer. %d instances, each one "
                "chunk on its own channel." % instances)
    for r in range(n):
        rank = p.rank(r, instances, n * instances, 0)
        for k in range(instances):
            for peer in range(n):
                if peer == r:
                    continue
                t = rank.tb(send=peer, recv=peer, chan=k)
                t.send_(I(k))
                t.recv_(O(peer * instances + k))
        rank.tb(chan=0).copy(I(0), O(r * instances), cnt=instances)
    return p


def allgather_ring(n, channels, proto):
    """Each rank's input travels once around the ring; `channels` rings side by side."""
    name = "allgather_ring--gpus_%d-channels_%d-proto_%s" % (n, channels, proto)
    p = Program(name, "allgather", proto, n, channels, n * channels,
                "Allgather, ring: each rank's input is passed around the ring. %d rings on %d "
                "channels." % (channels, channels))
    for r in range(n):
        rank = p.rank(r, channels, n * channels, 0)
        for j in range(channels):
            t = rank.tb(send=(r + 1) % n, recv=(r - 1) % n, chan=j)
            t.send_(I(j))
            for k in range(1, n):
                origin = (r - k) % n
                t.add("rcs" if k < n - 1 else "r", dst=O(origin * channels + j))
            t.copy(I(j), O(r * channels + j))
    return p


def reducescatter_direct(n, instances, proto):
    """Every rank sends each peer that peer's part of its input; each rank reduces its part in
    rank order."""
    name = "reducescatter_direct--gpus_%d-instances_%d-proto_%s" % (n, instances, proto)
    p = Program(name, "reducescatter", proto, n, instances, n * instances,
                "Reduce-scatter, direct: each rank sends every peer its part and reduces its own part "
                "in rank order. %d instances, each on its own channel." % instances)
    for r in range(n):
        rank = p.rank(r, n * instances, instances, n * instances)
        for k in range(instances):
            slot = lambda q, k=k: k * n + q
            recvs = []
            for peer in range(n):
                if peer == r:
                    continue
                t = rank.tb(send=peer, recv=peer, chan=k)
                t.send_(I(peer * instances + k))
                recvs.append(t.recv_(S(slot(peer))))
            local = rank.tb(chan=k)
            reduce_in_rank_order(local, r, n, I(r * instances + k), slot, O(k), recvs)
    return p


def reducescatter_ring(n, channels, proto):
    """Rank q's part is reduced along the ring starting at rank q+1 and ends, complete, at q."""
    name = "reducescatter_ring--gpus_%d-channels_%d-proto_%s" % (n, channels, proto)
    p = Program(name, "reducescatter", proto, n, channels, n * channels,
                "Reduce-scatter, ring: rank q's part is reduced along the ring from rank q+1 and "
                "arrives complete at rank q. %d rings on %d channels." % (channels, channels))
    part = lambda q, j: q * channels + j
    for r in range(n):
        rank = p.rank(r, n * channels, channels, 0)
        for j in range(channels):
            t = rank.tb(send=(r + 1) % n, recv=(r - 1) % n, chan=j)
            t.send_(I(part((r - 1) % n, j)))
            for k in range(1, n - 1):
                t.add("rrs", src=I(part((r - 1 - k) % n, j)))
            t.add("rrc", src=I(part(r, j)), dst=O(j))
    return p


# ---------------------------------------------------------------------------------------------
# What we ship. LL and LL128 for small and medium messages; Simple only for the rings, which
# are the ones meant for large messages.

GPUS = (2, 4, 8)


def shipped():
    programs = []
    for n in GPUS:
        for proto in ("LL", "LL128"):
            programs.append(allreduce_1step(n, 4, proto))
            programs.append(allreduce_allpairs(n, 4, proto))
            for channels in (1, 8):
                programs.append(allreduce_ring(n, channels, proto))
            programs.append(allgather_direct(n, 2, proto))
            programs.append(reducescatter_direct(n, 2, proto))
        for proto in ("LL", "LL128", "Simple"):
            programs.append(allgather_ring(n, 8, proto))
            programs.append(reducescatter_ring(n, 8, proto))
        programs.append(allreduce_ring(n, 8, "Simple"))
    return programs


def main(argv):
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default=os.path.join(here, "..", "..", "algorithms"),
                        help="directory to write the .xml files into (default: <repo>/algorithms)")
    args = parser.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    programs = shipped()
    names = set()
    for prog in programs:
        fname = prog.name + ".xml"
        assert fname not in names, fname
        names.add(fname)
        with open(os.path.join(args.out, fname), "w", newline="\n") as f:
            f.write(prog.to_xml())
    # Files a previous version generated and this one does not: remove, so the directory is
    # exactly the output of this script.
    for fname in os.listdir(args.out):
        if fname.endswith(".xml") and fname not in names:
            os.remove(os.path.join(args.out, fname))
    print("wrote %d algorithm files to %s" % (len(programs), os.path.normpath(args.out)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
