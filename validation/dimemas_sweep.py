#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Random programs replayed by Dimemas and popsim on networks of shared and dedicated CPUs.

    validation/dimemas_sweep.py WORK_DIR [--programs 40] [--seed 25] [--prv2dim P] [--dimemas D]

Writes WORK_DIR/pNN.txt (popsim synth descriptions) and their traces, one Dimemas configuration
per shape (2, 4 or 8 tasks per node on 1 CPU, 4 on 2 CPUs, with and without one bus; 2 and 4 tasks
with a CPU each), runs prv2dim + Dimemas (-S 32k) and `popsim simulate --config` on each, and
prints how many agree to the ns, per shape, and the worst runs (docs/network-model.md, "Agreement
with Dimemas 5.5.0"). Each program is 4-16 ranks of random phases: computation cut by plain and
user-function events, collectives (Allreduce, Barrier, Bcast and Reduce to rank 0), Sendrecv
rings, Isend/Irecv/Waitall rings and pairwise Send/Recv, every message received after it was sent
in trace time. Without prv2dim and Dimemas (on the PATH, or given) it says so and stops (exit 0).
popsim is build/popsim, or the one on the PATH.
"""
import argparse
import collections
import json
import math
import os
import random
import shutil
import subprocess
import sys
import tempfile

GAP = 300  # ns between an MPI call's exit and the next call's entry (as Extrae / synth --halo)
PLAIN = [(40000003, 1), (40000003, 0), (42000050, 123), (42000050, 7), (42000059, 1),
         (40000001, 1), (41999999, 5), (42009999, 2)]


def xfer(size):
    return 1000 + size  # 1 us + 1 ns per byte (~1 GB/s)


class Gen:
    def __init__(self, rng, n):
        self.rng = rng
        self.n = n
        self.t = [0] * n          # current traced time per rank (ns)
        self.lines = [[] for _ in range(n)]
        self.req = 0
        self.plain_count = 0
        self.user_count = 0

    def emit(self, r, s):
        self.lines[r].append(f"{r} {s}")

    def ev(self, r, typ, val):
        self.emit(r, f"event {typ} {val}")
        if typ != 60000019:
            self.plain_count += 1
        else:
            self.user_count += 1

    def rand_plain(self, r, k=None):
        if k is None:
            k = self.rng.choice([1, 1, 1, 2, 3])
        for _ in range(k):
            self.ev(r, *self.rng.choice(PLAIN))

    def compute(self, r, d):
        d = int(d)
        if d <= 0:
            return
        self.emit(r, f"compute {d}ns")
        self.t[r] += d

    def rand_dur(self):
        # 1 us .. 5 ms, log-uniform
        return int(math.exp(self.rng.uniform(math.log(1000), math.log(5_000_000))))

    def compute_phase(self, r, d):
        """A compute burst, possibly cut by plain events, possibly inside a user function."""
        rng = self.rng
        user = rng.random() < 0.2
        if user:
            self.ev(r, 60000019, rng.randint(1, 9))
        if rng.random() < 0.45:
            # cut by plain events at 1-3 random points (some at the same time)
            k = rng.randint(1, 3)
            cuts = sorted(rng.randint(1, max(1, d - 1)) for _ in range(k))
            prev = 0
            for c in cuts:
                self.compute(r, c - prev)
                self.rand_plain(r)
                prev = c
            self.compute(r, d - prev)
        elif rng.random() < 0.15 and d > 2000:
            # a user function nested in the burst (prv2dim cuts at its begin and end)
            a = rng.randint(1, d - 1)
            self.compute(r, a)
            self.ev(r, 60000019, rng.randint(1, 9))
            b = rng.randint(1, d - a)
            self.compute(r, b)
            self.ev(r, 60000019, 0)
            self.compute(r, d - a - b)
        else:
            self.compute(r, d)
        if user:
            self.ev(r, 60000019, 0)

    def mpi(self, r, name, dur, opts=""):
        dur = max(1, int(dur))
        self.emit(r, f"{name} {dur}ns {opts}".rstrip())
        self.t[r] += dur
        # events right after the MPI call sometimes
        if self.rng.random() < 0.15:
            self.rand_plain(r)
        self.compute(r, GAP)

    # ---- phases -----------------------------------------------------------------
    def ph_compute(self):
        for r in range(self.n):
            self.compute_phase(r, self.rand_dur())

    def ph_collective(self):
        rng = self.rng
        op = rng.choice(["Allreduce", "Barrier", "Bcast", "Reduce"])
        size = rng.choice([8, 64, 1024, 8192, 65536])
        last = max(self.t)
        opts = {"Allreduce": f"size={size}", "Barrier": "", "Bcast": f"size={size} root=0",
                "Reduce": f"size={size} root=0"}[op]
        end = last + 2000 + (0 if op == "Barrier" else size)
        for r in range(self.n):
            self.mpi(r, op, end - self.t[r], opts)

    def ph_sendrecv(self):
        n, rng = self.n, self.rng
        k = rng.randint(1, n - 1)
        size = self.rand_size()
        entry = list(self.t)
        for r in range(n):
            src = (r - k) % n
            dst = (r + k) % n
            end = max(entry[r], entry[src]) + xfer(size)
            self.mpi(r, "Sendrecv", end - entry[r], f"to={dst} from={src} size={size} tag=3")

    def ph_nonblocking(self):
        n, rng = self.n, self.rng
        k = rng.randint(1, n - 1)
        size = self.rand_size()
        both = rng.random() < 0.5  # ring in both directions (2 Irecv, 2 Isend)
        shifts = [k, (n - k) % n] if both and (n - k) % n != k else [k]
        self.req += 1
        # post receives, then sends
        isend_time = {}
        for r in range(n):
            names = []
            for j, s in enumerate(shifts):
                nm = f"r{self.req}_{j}"
                self.mpi(r, "Irecv", 500, f"from={(r - s) % n} size={size} tag={10 + j} req={nm}")
                names.append(nm)
            for j, s in enumerate(shifts):
                nm = f"s{self.req}_{j}"
                isend_time[(r, j)] = self.t[r]
                self.mpi(r, "Isend", 500, f"to={(r + s) % n} size={size} tag={10 + j} req={nm}")
                names.append(nm)
            self.names = getattr(self, "names", {})
            self.names[r] = names
        # maybe compute between posting and waiting
        if rng.random() < 0.5:
            for r in range(n):
                self.compute_phase(r, self.rand_dur())
        for r in range(n):
            arr = max(isend_time[((r - s) % n, j)] for j, s in enumerate(shifts)) + xfer(size)
            end = max(self.t[r] + 500, arr)
            self.mpi(r, "Waitall", end - self.t[r], "req=" + ",".join(self.names[r]))

    def ph_pairs(self):
        n, rng = self.n, self.rng
        size = self.rand_size()
        flip = rng.random() < 0.5
        # pairs (r, r^1); first of pair sends then receives, the other receives then sends
        done = set()
        for r in range(n):
            p = r ^ 1
            if p >= n or r in done:
                continue
            done.update([r, p])
            a, b = (r, p) if not flip else (p, r)
            self.message(a, b, size, 5)  # a sends, then receives
            self.message(b, a, size, 6)

    def message(self, sender, receiver, size, tag):
        """A blocking Send and its Recv; a rendezvous send (32 KiB or more) waits for the receiver."""
        ts, tr = self.t[sender], self.t[receiver]
        send_end = max(ts, tr) + xfer(size) if size >= 32768 else ts + 1000
        recv_end = max(ts, tr) + xfer(size)
        self.mpi(sender, "Send", send_end - ts, f"to={receiver} size={size} tag={tag}")
        self.mpi(receiver, "Recv", recv_end - tr, f"from={sender} size={size} tag={tag}")

    def rand_size(self):
        return int(math.exp(self.rng.uniform(math.log(8), math.log(1 << 20))))


def make(rng, idx):
    n = rng.randint(4, 16)
    g = Gen(rng, n)
    with_init = idx % 2 == 0
    late_start = rng.random() < 0.3
    header = [f"# program {idx}: {n} ranks, MPI_Init={'yes' if with_init else 'no'}",
              f"ranks {n}"]
    for r in range(n):
        if late_start and r > 0 and rng.random() < 0.5:
            st = rng.randint(1000, 50000)
            g.emit(r, f"at {st}ns")
            g.t[r] = st
        else:
            # plain events at time 0 (several pairs), sometimes
            if rng.random() < 0.6:
                g.rand_plain(r, rng.randint(1, 4))
        g.ev(r, 40000001, 1)
        if rng.random() < 0.3:
            g.ev(r, 60000019, 1)  # a user function at the start: no cut, no time has passed
        if with_init:
            g.compute(r, rng.randint(1000, 200000))
    if with_init:
        last = max(g.t)
        for r in range(n):
            g.mpi(r, "MPI_Init", last + 1000 - g.t[r])
    steps = rng.randint(5, 30)
    kinds = ["compute", "compute", "collective", "sendrecv", "nonblocking", "pairs"]
    for _ in range(steps):
        k = rng.choice(kinds)
        getattr(g, "ph_" + k)()
        if k != "compute" and rng.random() < 0.6:
            g.ph_compute()
    # finish: compute then the closing event
    for r in range(n):
        g.compute_phase(r, g.rand_dur())
        g.ev(r, 40000001, 0)
    body = []
    for r in range(n):
        body += g.lines[r]
    return n, "\n".join(header + body) + "\n", g




SHAPES = [(2, 1, 0), (2, 1, 1), (4, 1, 0), (4, 1, 1), (8, 1, 0), (8, 1, 1), (4, 2, 0), (4, 2, 1),
          (2, 2, 0), (4, 4, 0)]  # tasks per node, CPUs per node, buses
COLLECTIVES = "".join(f"Machine globalop: 0 {i} LOG MAX 0 MAX\n" for i in range(8)) + \
    "Machine globalop: 0 8 LIN 2MAX LIN 2MAX\nMachine globalop: 0 9 LOG MAX 0 MAX\n" + \
    "Machine globalop: 0 10 LOG 2MAX 0 MAX\n" + \
    "".join(f"Machine globalop: 0 {i} LOG MAX 0 MAX\n" for i in range(11, 14))


def config(ranks, tasks_per_node, cpus, buses):
    """5 us and 1000 MB/s between nodes, 0.5 us and 10000 MB/s within one (half-duplex links)."""
    nodes = math.ceil(ranks / tasks_per_node)
    return ("#DIMEMAS_CONFIGURATION\n"
            '"wide area network information" {"", 1, 0, 4, 0.0, 0.0, 1};;\n'
            f'"environment information" {{"", 0, "", {nodes}, 1000.0, {buses}, 1}};;\n'
            f'"multi node information" {{0, {nodes}, "node", {cpus}, 1.0, 0.5e-6, 10000.0, 0, 1, 0, '
            '5e-6, 1, 1, 0.0};;\n'
            f'"predefined mapping information" {{"{tasks_per_node} TASKS_PER_NODE"}};;\n'
            '"configuration files" {"", "", "dimemas.collectives", ""};;\n')


def dimemas_runtime(prv2dim, dimemas, trace, cfg, work):
    """Dimemas' predicted runtime in ns, or None when it fails."""
    with tempfile.TemporaryDirectory(dir=work) as tmp:
        base = trace[:-len(".prv")]
        for ext in ("prv", "pcf", "row"):
            shutil.copy(f"{base}.{ext}", os.path.join(tmp, f"trace.{ext}"))
        shutil.copy(cfg, os.path.join(tmp, "run.cfg"))
        shutil.copy(os.path.join(os.path.dirname(cfg), "dimemas.collectives"), tmp)
        quiet = dict(cwd=tmp, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=600)
        if subprocess.run([prv2dim, "trace.prv", "trace.dim"], **quiet).returncode != 0:
            return None
        if subprocess.run([dimemas, "-S", "32k", "--dim", "trace.dim", "-p", "sim.prv", "run.cfg"],
                          **quiet).returncode != 0:
            return None
        with open(os.path.join(tmp, "sim.prv")) as f:
            return int(f.readline().split(":")[2].split("_")[0])


def popsim_runtime(popsim, trace, cfg, work):
    out = os.path.join(work, "popsim.json")
    subprocess.run([popsim, "simulate", trace, "--config", cfg, "--json", out, "--quiet"],
                   check=True, stdout=subprocess.DEVNULL)
    with open(out) as f:
        return json.load(f)["predicted_runtime_ns"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("work")
    parser.add_argument("--programs", type=int, default=40)
    parser.add_argument("--seed", type=int, default=25)
    parser.add_argument("--prv2dim", default=shutil.which("prv2dim"))
    parser.add_argument("--dimemas", default=shutil.which("Dimemas"))
    a = parser.parse_args()
    if not a.prv2dim or not a.dimemas:
        print("No Dimemas given or found (prv2dim and Dimemas): nothing to compare.")
        return 0
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    popsim = os.path.join(here, "build", "popsim")
    if not os.access(popsim, os.X_OK):
        popsim = shutil.which("popsim")
    os.makedirs(a.work, exist_ok=True)
    with open(os.path.join(a.work, "dimemas.collectives"), "w") as f:
        f.write(COLLECTIVES)
    by_shape = collections.defaultdict(list)
    failed = 0
    for i in range(a.programs):
        ranks, text, _ = make(random.Random(a.seed * 1000 + i), i)
        name = os.path.join(a.work, f"p{i:02d}")
        with open(name + ".txt", "w") as f:
            f.write(text)
        subprocess.run([popsim, "synth", name + ".txt", "-o", name + ".prv"], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for tpn, cpus, buses in SHAPES:
            shape = f"{tpn}tpn_{cpus}cpu_bus{buses}"
            cfg = os.path.join(a.work, f"r{ranks}_{shape}.cfg")
            with open(cfg, "w") as f:
                f.write(config(ranks, tpn, cpus, buses))
            d = dimemas_runtime(a.prv2dim, a.dimemas, name + ".prv", cfg, a.work)
            if d is None:
                failed += 1
                continue
            p = popsim_runtime(popsim, name + ".prv", cfg, a.work)
            by_shape[shape].append((p - d, (p - d) / d, f"p{i:02d}"))
    runs = [r for v in by_shape.values() for r in v]
    print(f"{a.programs} programs (seed {a.seed}): {len(runs)} runs, {failed} where Dimemas failed")
    print(f"{'shape':16s} {'runs':>5s} {'exact':>6s} {'<=1e-5':>7s} {'worst':>10s}")
    for shape, v in sorted(by_shape.items()):
        print(f"{shape:16s} {len(v):5d} {sum(1 for x in v if x[0] == 0):6d} "
              f"{sum(1 for x in v if abs(x[1]) <= 1e-5):7d} {max(abs(x[1]) for x in v):10.2e}")
    print(f"{'all':16s} {len(runs):5d} {sum(1 for x in runs if x[0] == 0):6d} "
          f"{sum(1 for x in runs if abs(x[1]) <= 1e-5):7d}")
    for shape, v in sorted(by_shape.items()):
        for diff, rel, prog in v:
            if diff != 0:
                print(f"  {prog} {shape}: popsim - Dimemas = {diff:+d} ns ({rel:+.2e})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
