#!/usr/bin/python3
"""gen-lightrag-graphml.py OUT NODES EDGES [QUERIES]: a LightRAG-shaped
working directory of NODES entities and EDGES relations, for the GraphML
scale measurements of docs/PERFORMANCE.md (issue 25: 1,000,000 nodes and
5,000,000 edges).

The graph is the one LightRAG 1.0's lightrag/kg/networkx_impl.py
NetworkXStorage keeps (an undirected nx.Graph; node fields entity_id,
entity_type, description, source_id; edge fields weight, description,
keywords, source_id, as lightrag/operate.py _merge_nodes_then_upsert and
_merge_edges_then_upsert write them), saved as nx.write_graphml saves it.
networkx's writer builds the whole document in memory (several GB at this
size), so the document is streamed here in exactly write_graphml's bytes:
each run first builds a small graph the same way with networkx itself,
writes it with nx.write_graphml and with this writer, and stops unless the
two files are byte for byte equal. Edges are added in ascending node order
with the larger end second, which is also the order G.edges() (and so
write_graphml) lists them.

Also written: kv_store_text_chunks.json and kv_store_full_docs.json
(lightrag/kg/json_kv_impl.py JsonKVStorage) and QUERIES (default 50)
replay queries in queries.jsonl. Deterministic (seeded).
"""
import json, os, random, sys, tempfile
from hashlib import md5
from xml.sax.saxutils import escape

import networkx as nx

SEP = "<SEP>"
NODE_KEYS = ["entity_id", "entity_type", "description", "source_id"]
EDGE_KEYS = ["weight", "description", "keywords", "source_id"]
TYPES = ["person", "organization", "geo", "event", "category"]


def chunk_id(i):
    return "chunk-" + md5(f"chunk text {i}".encode()).hexdigest()


def graph_items(n_nodes, n_edges, seed=7):
    """Yields ("node", id, data) then ("edge", u, v, data), in the order
    networkx would write them."""
    rng = random.Random(seed)
    n_chunks = max(1, n_nodes // 10)
    for i in range(n_nodes):
        name = f"e{i}"
        src = SEP.join(chunk_id(rng.randrange(n_chunks)) for _ in range(1 + (i % 2)))
        yield ("node", name, {"entity_id": name, "entity_type": TYPES[i % 5], "description": f"entity {i}", "source_id": src})
    per = n_edges // n_nodes
    extra = n_edges - per * n_nodes
    span = max(2, min(n_nodes - 1, 4096))
    for u in range(n_nodes):
        k = per + (1 if u < extra else 0)
        if k == 0:
            continue
        offsets = sorted(rng.sample(range(1, span), min(k, span - 1)))
        for off in offsets:
            v = u + off if u + off < n_nodes else u - off
            if v < 0 or v == u:
                continue
            a, b = (u, v) if u < v else (v, u)
            if a != u:
                continue  # keep ascending order: (a, b) is written from a
            w = rng.choice([1.0, 2.0, 1.5, 0.5, 3.0])
            yield ("edge", f"e{a}", f"e{b}", {"weight": w, "description": f"rel {u}", "keywords": "kw", "source_id": chunk_id(rng.randrange(n_chunks))})


def stream_graphml(items, out):
    """Writes items as nx.write_graphml writes the same nx.Graph."""
    out.write("<?xml version='1.0' encoding='utf-8'?>\n")
    out.write('<graphml xmlns="http://graphml.graphdrawing.org/xmlns" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="http://graphml.graphdrawing.org/xmlns http://graphml.graphdrawing.org/xmlns/1.0/graphml.xsd">')
    ids = {}
    keys = [("node", k, "string") for k in NODE_KEYS] + [("edge", k, "double" if k == "weight" else "string") for k in EDGE_KEYS]
    for i, (f, k, _) in enumerate(keys):
        ids[(f, k)] = f"d{i}"
    for i in reversed(range(len(keys))):
        f, k, t = keys[i]
        out.write(f'<key id="d{i}" for="{f}" attr.name="{k}" attr.type="{t}"/>\n')
    out.write('<graph edgedefault="undirected">')
    q = {'"': "&quot;"}
    for it in items:
        if it[0] == "node":
            _, name, data = it
            out.write(f'<node id="{escape(name, q)}">\n')
            kind = "node"
        else:
            _, u, v, data = it
            out.write(f'<edge source="{escape(u, q)}" target="{escape(v, q)}">\n')
            kind = "edge"
        for k, val in data.items():
            out.write(f'  <data key="{ids[(kind, k)]}">{escape(repr(val) if isinstance(val, float) else str(val))}</data>\n')
        out.write(f"</{kind}>\n")
    out.write("</graph></graphml>")


def check_against_networkx():
    g = nx.Graph()
    items = list(graph_items(300, 1500, seed=11))
    for it in items:
        if it[0] == "node":
            g.add_node(it[1], **it[2])
        else:
            g.add_edge(it[1], it[2], **it[3])
    with tempfile.TemporaryDirectory() as d:
        a, b = os.path.join(d, "nx.graphml"), os.path.join(d, "stream.graphml")
        nx.write_graphml(g, a)
        with open(b, "w", encoding="utf-8") as f:
            stream_graphml(items, f)
        if open(a, "rb").read() != open(b, "rb").read():
            sys.exit("the streamed GraphML differs from nx.write_graphml's: not generating")


def main():
    out, n_nodes, n_edges = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    n_queries = int(sys.argv[4]) if len(sys.argv) > 4 else 50
    check_against_networkx()
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "graph_chunk_entity_relation.graphml"), "w", encoding="utf-8", buffering=1 << 20) as f:
        stream_graphml(graph_items(n_nodes, n_edges), f)
    n_chunks = max(1, n_nodes // 10)
    doc = "doc-" + md5(b"scale").hexdigest()
    with open(os.path.join(out, "kv_store_text_chunks.json"), "w", encoding="utf-8") as f:
        json.dump({chunk_id(i): {"tokens": 4, "content": f"chunk text {i}", "chunk_order_index": i, "full_doc_id": doc} for i in range(n_chunks)}, f)
    with open(os.path.join(out, "kv_store_full_docs.json"), "w", encoding="utf-8") as f:
        json.dump({doc: {"content": "scale corpus"}}, f)
    rng = random.Random(3)
    with open(os.path.join(out, "queries.jsonl"), "w", encoding="utf-8") as f:
        for q in range(n_queries):
            reset = {f"e{rng.randrange(n_nodes)}": 1.0 for _ in range(3)}
            f.write(json.dumps({"id": f"q{q}", "k": 5, "reset": reset, "text": f"query {q}"}) + "\n")


if __name__ == "__main__":
    main()
