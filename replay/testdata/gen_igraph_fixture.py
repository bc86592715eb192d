#!/usr/bin/python3
"""Write igraph_ppr_fixture.json: expected Personalized PageRank scores from
igraph's prpack implementation, as HippoRAG2 calls it, for small graphs that
exercise every semantic replay must match (parallel edges, self-loops,
weight-0 edges, dangling and isolated nodes, non-normalised reset).

Run with Debian's python3-igraph (apt-get install -y python3-igraph):
    /usr/bin/python3 replay/testdata/gen_igraph_fixture.py > replay/testdata/igraph_ppr_fixture.json

Two expectations are written per case:
  expected_drop_self_loops: igraph on the graph with self-loop edges deleted
      (BRIEF.md decides that self-loops are dropped);
  expected_igraph_raw: igraph on the graph as given (igraph 0.10 keeps an
      undirected self-loop, counting it twice).
Tests never run this script; CI may not have igraph.
"""
import json
import random

import igraph


def case(name, node_kinds, edges, reset, damping=0.5):
    ids = [nid for nid, _ in node_kinds]
    pos = {nid: i for i, nid in enumerate(ids)}
    out = {
        "name": name,
        "damping": damping,
        "nodes": [{"id": nid, "kind": kind} for nid, kind in node_kinds],
        "edges": [{"id": eid, "src": s, "dst": t, "weight": w} for eid, s, t, w in edges],
        "reset": reset,
    }
    reset_vec = [float(reset.get(nid, 0.0)) for nid in ids]

    def run(keep_loops):
        kept = [e for e in edges if keep_loops or e[1] != e[2]]
        g = igraph.Graph(n=len(ids), edges=[(pos[s], pos[t]) for _, s, t, _ in kept], directed=False)
        scores = g.personalized_pagerank(
            directed=False,
            weights=[float(w) for *_, w in kept],
            damping=damping,
            reset=reset_vec,
            implementation="prpack",
        )
        return {nid: scores[i] for i, nid in enumerate(ids)}

    out["expected_drop_self_loops"] = run(False)
    out["expected_igraph_raw"] = run(True)
    return out


def semantics_case():
    nodes = [("p0", "passage"), ("p1", "passage"), ("p2", "passage"), ("p3", "passage"),
             ("e0", "entity"), ("e1", "entity"), ("e2", "entity"),
             ("dang", "entity"),   # only a weight-0 edge: dangling
             ("iso", "passage")]   # no edge at all: isolated
    edges = [
        ("a", "p0", "e0", 1.0),
        ("b", "p0", "e0", 2.0),    # parallel to a: weights add
        ("c", "e0", "e1", 1.5),
        ("d", "e1", "p1", 1.0),
        ("f", "e1", "e1", 3.0),    # self-loop
        ("g", "e1", "e2", 0.5),
        ("h", "e2", "p2", 4.0),
        ("i", "p3", "e2", 1.0),
        ("j", "dang", "p3", 0.0),  # weight 0: ignored
        ("k", "p2", "p2", 1.0),    # self-loop on a passage
        ("l", "e2", "p1", 2.0),
    ]
    reset = {"e0": 2.0, "e2": 1.0, "dang": 0.5, "iso": 0.2}  # sums to 3.7
    return case("semantics", nodes, edges, reset)


def random_case(name, seed, n_pass, n_ent, n_edges, damping):
    rnd = random.Random(seed)
    nodes = [(f"p{i}", "passage") for i in range(n_pass)] + [(f"e{i}", "entity") for i in range(n_ent)]
    ids = [nid for nid, _ in nodes]
    edges = []
    for k in range(n_edges):
        s, t = rnd.choice(ids), rnd.choice(ids)
        w = rnd.choice([0.0, 0.5, 1.0, 1.0, 1.0, 2.0, 3.0, 4.0, 60.0, 120.0])
        edges.append((f"x{k}", s, t, w))
    for k in range(3):  # some guaranteed parallel edges and self-loops
        s, t = edges[k][1], edges[k][2]
        edges.append((f"par{k}", s, t, 1.0 + k))
        edges.append((f"loop{k}", ids[k], ids[k], 2.0))
    reset = {nid: rnd.choice([0.0, 0.0, 0.3, 1.0, 5.0]) for nid in ids}
    reset[ids[-1]] = 1.0  # never all zero
    return case(name, nodes, edges, reset, damping)


def main():
    cases = [
        semantics_case(),
        random_case("random-40", 7, 15, 25, 70, 0.5),
        random_case("random-sparse", 11, 20, 30, 25, 0.5),  # many isolated and dangling nodes
        random_case("random-damping-0.85", 13, 10, 20, 50, 0.85),
    ]
    json.dump({"igraph_version": igraph.__version__, "implementation": "prpack", "cases": cases},
              __import__("sys").stdout, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
