#!/usr/bin/python3
"""Cross-check the committed HippoRAG 2 fixtures against python-igraph, live.

    /usr/bin/python3 crosscheck_igraph.py [TESTDATA_DIR]

Reads each committed store's graph.pickle with ig.Graph.Read_Pickle (as
HippoRAG 2's HippoRAG.__init__ loads it), runs HippoRAG 2's run_ppr()
(personalized_pagerank, damping 0.5, prpack; src/hipporag/HippoRAG.py) with
every reset vector the tests replay (queries.jsonl, and the rebuilt ones of
expected_qemb.json), on G and on G_auth (make_fixtures.g_auth: G without
every edge the OpenIE results cannot explain), and requires igraph's top-5
passages and scores to be the ones recorded in expected.json and
expected_qemb.json, which the Go tests (stores/storereplay) compare
memscope's replay with. Exits 1 on any difference.
"""
import json
import os
import sys

import igraph as ig

from make_fixtures import LLM, WORKDIR, g_auth, top5

HERE = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))


def load(name):
    root = os.path.join(HERE, name)
    g = ig.Graph.Read_Pickle(os.path.join(root, WORKDIR, "graph.pickle"))
    with open(os.path.join(root, f"openie_results_ner_{LLM}.json")) as f:
        docs = json.load(f)["docs"]
    return g, docs


def check(label, g, docs, reset_map, want):
    names = g.vs["name"]
    reset = [reset_map.get(n, 0.0) for n in names]
    bad = []
    for view, graph in (("g", g), ("g_auth", g_auth(g, docs))):
        ids, scores = top5(graph, reset)
        if ids != want[view]:
            bad.append(f"{label} {view}: igraph top-5 {ids} != recorded {want[view]}")
        elif any(abs(a - b) > 1e-12 for a, b in zip(scores, want[view + "_scores"])):
            bad.append(f"{label} {view}: igraph scores {scores} != recorded {want[view + '_scores']}")
    return bad


def main():
    with open(os.path.join(HERE, "expected.json")) as f:
        expected = json.load(f)
    with open(os.path.join(HERE, "expected_qemb.json")) as f:
        qemb = json.load(f)
    with open(os.path.join(HERE, "queries.jsonl")) as f:
        queries = [json.loads(l) for l in f if l.strip()]
    bad, n = [], 0
    for name in ("clean", "poisoned"):
        g, docs = load(name)
        st = expected["stores"][name]
        if (g.vcount(), g.ecount()) != (st["vertices"], st["edges"]):
            bad.append(f"{name}: {g.vcount()} vertices, {g.ecount()} edges, recorded {st['vertices']}, {st['edges']}")
        for q in queries:
            bad += check(f"{name} {q['id']}", g, docs, q["reset"], st[q["id"]])
            n += 1
        for qid, per in qemb["queries"].items():
            bad += check(f"{name} {qid} (rebuilt reset)", g, docs, per[name]["reset"], per[name])
            n += 1
    for b in bad:
        print("IGRAPH DISAGREES: " + b)
    print(f"igraph {ig.__version__}: {n} query x store checks, top-5 on G and G_auth, {len(bad)} differences")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
