#!/usr/bin/python3
"""Compare a regenerated foreign-store fixture tree with the committed one.

    /usr/bin/python3 compare_fixtures.py COMMITTED_DIR REGENERATED_DIR

Every file of COMMITTED_DIR (the generator scripts excepted) must have been
regenerated, and nothing more. Files must be byte-equal, except where the
upstream construction is not byte-stable and the decoded content is compared
instead:

  graph.pickle / *.pickle: HippoRAG 2's extract_entity_nodes() and
    add_fact_edges() iterate Python sets, so the order in which igraph edges
    are added follows PYTHONHASHSEED. The pickles are compared as igraph
    reads them (Graph.Read_Pickle): vertex count, every vertex attribute in
    vertex order, graph attributes, and the multiset of undirected edges with
    every edge attribute.

Exits 1 listing every difference.
"""
import os
import sys

SCRIPTS = (".py", ".go")


def files(root):
    out = set()
    for d, _, names in os.walk(root):
        for n in names:
            if n.endswith(SCRIPTS) or n == "__pycache__" or "__pycache__" in d:
                continue
            out.add(os.path.relpath(os.path.join(d, n), root))
    return out


def pickle_content(path):
    import igraph as ig
    g = ig.Graph.Read_Pickle(path)
    vattrs = {a: list(map(str, g.vs[a])) for a in sorted(g.vs.attributes())}
    gattrs = {a: g[a] for a in sorted(g.attributes())}
    names = g.vs["name"] if "name" in g.vs.attributes() else list(range(g.vcount()))
    eattrs = sorted(g.es.attributes())
    edges = []
    for e in g.es:
        a, b = names[e.source], names[e.target]
        if not g.is_directed() and str(b) < str(a):
            a, b = b, a
        edges.append((str(a), str(b)) + tuple(repr(e[x]) for x in eattrs))
    return {"directed": g.is_directed(), "vcount": g.vcount(), "vattrs": vattrs,
            "gattrs": gattrs, "eattrs": eattrs, "edges": sorted(edges)}


def json_close(a, b, path="$"):
    """Compares two decoded JSON values: structure, strings and integers
    exactly, floats to a relative 1e-5. expected_qemb.json holds PPR
    scores python-igraph computes from numpy's query embeddings; their last
    digits follow the machine's BLAS and CPU (the AMD and Xeon machines
    differ in the eighth digit), while every ranking stays the same."""
    if isinstance(a, float) or isinstance(b, float):
        if not isinstance(a, (int, float)) or not isinstance(b, (int, float)):
            return [f"{path}: {a!r} vs {b!r}"]
        return [] if abs(a - b) <= 1e-5 * max(abs(a), abs(b), 1e-12) else [f"{path}: {a!r} vs {b!r}"]
    if type(a) is not type(b):
        return [f"{path}: {a!r} vs {b!r}"]
    if isinstance(a, dict):
        if sorted(a) != sorted(b):
            return [f"{path}: keys {sorted(a)} vs {sorted(b)}"]
        return [d for k in sorted(a) for d in json_close(a[k], b[k], f"{path}.{k}")]
    if isinstance(a, list):
        if len(a) != len(b):
            return [f"{path}: {len(a)} vs {len(b)} items"]
        return [d for i, (x, y) in enumerate(zip(a, b)) for d in json_close(x, y, f"{path}[{i}]")]
    return [] if a == b else [f"{path}: {a!r} vs {b!r}"]


# Files whose floats may differ in the last digits between machines (see
# json_close); everything else in them must be equal.
FLOAT_JSON = ("expected_qemb.json",)


def main():
    committed, regen = sys.argv[1], sys.argv[2]
    want, got = files(committed), files(regen)
    bad = []
    for rel in sorted(want - got):
        bad.append(f"{rel}: committed but not regenerated")
    for rel in sorted(got - want):
        bad.append(f"{rel}: regenerated but not committed")
    same = 0
    for rel in sorted(want & got):
        a, b = os.path.join(committed, rel), os.path.join(regen, rel)
        with open(a, "rb") as fa, open(b, "rb") as fb:
            if fa.read() == fb.read():
                same += 1
                continue
        # A truncated pickle is a hostile seed: bytes only.
        if rel.endswith(".pickle") and "truncated" not in rel:
            ca, cb = pickle_content(a), pickle_content(b)
            if ca == cb:
                same += 1
                print(f"  {rel}: bytes differ (set order), igraph content equal "
                      f"({ca['vcount']} vertices, {len(ca['edges'])} edges)")
                continue
            for k in ca:
                if ca[k] != cb[k]:
                    bad.append(f"{rel}: igraph content differs in {k}")
            continue
        if os.path.basename(rel) in FLOAT_JSON:
            import json
            with open(a) as fa, open(b) as fb:
                diffs = json_close(json.load(fa), json.load(fb))
            if not diffs:
                same += 1
                print(f"  {rel}: bytes differ (float digits), equal to 1e-5 relative")
                continue
            bad.extend(f"{rel}: {d}" for d in diffs[:5])
            continue
        bad.append(f"{rel}: bytes differ")
    for b in bad:
        print("FIXTURE DIFFERS: " + committed + "/" + b)
    print(f"{committed}: {same} of {len(want)} files reproduced")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
