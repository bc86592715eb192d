#!/usr/bin/python3
"""Time igraph's prpack Personalized PageRank on the Go benchmark graph.

    MEMSCOPE_BENCH_EXPORT=/tmp/bench.txt go test ./replay -run TestExportBenchGraph
    /usr/bin/python3 replay/testdata/bench_igraph.py /tmp/bench.txt

Reads the export (see TestExportBenchGraph), builds G and G_auth (G minus the
unauthenticated edges), times personalized_pagerank(directed=False, weights,
damping=0.5, reset, implementation="prpack") on each, and checks that igraph's
top-5 passages match the Go replay's. Graph construction is not timed.
"""
import statistics
import sys
import time

import igraph


def main(path):
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
    for name, (g, w) in views.items():
        times, scores = [], None
        for _ in range(7):
            t0 = time.perf_counter()
            scores = g.personalized_pagerank(directed=False, weights=w, damping=0.5, reset=r, implementation="prpack")
            times.append(time.perf_counter() - t0)
        ranked = sorted(passages, key=lambda p: (-scores[p], p))[:5]
        agree = "agrees with Go" if ranked == top.get(name) else f"DIFFERS from Go {top.get(name)}"
        print(f"igraph prpack {name}: median {statistics.median(times) * 1e3:.1f} ms "
              f"(min {min(times) * 1e3:.1f}) over {len(times)} runs; top-5 {ranked} {agree}")


if __name__ == "__main__":
    main(sys.argv[1])
