#!/usr/bin/python3
"""Time igraph's prpack Personalized PageRank on the Go benchmark graph.

    MEMSCOPE_BENCH_EXPORT=/tmp/bench.txt go test ./replay -run TestExportBenchGraph
    /usr/bin/python3 replay/testdata/bench_igraph.py /tmp/bench.txt [GO_TEST_BINARY ROUNDS]

With a compiled replay test binary (go test -c ./replay) and a number of
rounds, the Go benchmark (one query on G and G_auth, BenchmarkReplayGAndGAuth
on the same query igraph solves) and igraph's two solves are interleaved
round by round, and the ratio is taken per round: the machine's load then
moves both sides of each ratio alike, and the median ratio is the figure.

Reads the export (see TestExportBenchGraph), builds G and G_auth (G minus the
unauthenticated edges), times personalized_pagerank(directed=False, weights,
damping=0.5, reset, implementation="prpack") on each, and checks that igraph's
top-5 passages match the Go replay's. Graph construction is not timed.
"""
import re
import statistics
import subprocess
import sys
import time

import igraph


def main(path, gobin=None, rounds=0):
    n = 0
    edges, weights, unauth, reset, top = [], [], [], {}, {}
    with open(path) as f:
        for line in f:
            parts = line.split()
            if parts[0] == "n":
                n = int(parts[1])
            elif parts[0] == "e":
                edges.append((int(parts[1]), int(parts[2])))
                weights.append(float(parts[3]))
                unauth.append(parts[4] == "1")
            elif parts[0] == "r":
                reset[int(parts[1])] = float(parts[2])
            elif parts[0] == "top":
                top[parts[1]] = [int(p) for p in parts[2:]]
    r = [reset.get(i, 0.0) for i in range(n)]
    passages = [i for i in range(n) if i < 10_000]  # the generator puts passages first

    def build(keep):
        sel = [i for i in range(len(edges)) if keep(i)]
        g = igraph.Graph(n=n, edges=[edges[i] for i in sel], directed=False)
        return g, [weights[i] for i in sel]

    views = {"G": build(lambda i: True), "GAUTH": build(lambda i: not unauth[i])}

    def solve(name, runs):
        g, w = views[name]
        times, scores = [], None
        for _ in range(runs):
            t0 = time.perf_counter()
            scores = g.personalized_pagerank(directed=False, weights=w, damping=0.5, reset=r, implementation="prpack")
            times.append(time.perf_counter() - t0)
        return times, scores

    for name in views:
        times, scores = solve(name, 7)
        ranked = sorted(passages, key=lambda p: (-scores[p], p))[:5]
        agree = "agrees with Go" if ranked == top.get(name) else f"DIFFERS from Go {top.get(name)}"
        print(f"igraph prpack {name}: median {statistics.median(times) * 1e3:.1f} ms "
              f"(min {min(times) * 1e3:.1f}) over {len(times)} runs; top-5 {ranked} {agree}")
    if not gobin:
        return
    ratios = []
    for k in range(rounds):
        out = subprocess.run([gobin, "-test.run", "XXX", "-test.bench", "ReplayGAndGAuthOneQuery$", "-test.benchtime", "20x"],
                             check=True, capture_output=True, text=True).stdout
        m = re.search(r"^BenchmarkReplayGAndGAuthOneQuery\S*\s+\d+\s+(\d+(?:\.\d+)?) ns/op", out, re.M)
        go_ms = float(m.group(1)) / 1e6
        g_ms = statistics.median(solve("G", 5)[0]) * 1e3
        ga_ms = statistics.median(solve("GAUTH", 5)[0]) * 1e3
        ratios.append(go_ms / (g_ms + ga_ms))
        print(f"round {k + 1}: memscope G+G_auth {go_ms:.1f} ms; igraph G {g_ms:.1f} + G_auth {ga_ms:.1f} ms; ratio {ratios[-1]:.3f}")
    print(f"ratio over {rounds} interleaved rounds: median {statistics.median(ratios):.3f} (min {min(ratios):.3f}, max {max(ratios):.3f})")


if __name__ == "__main__":
    if len(sys.argv) == 4:
        main(sys.argv[1], sys.argv[2], int(sys.argv[3]))
    else:
        main(sys.argv[1])
