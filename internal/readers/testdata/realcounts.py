#!/usr/bin/python3
"""Counts of a real store computed with the upstream tools' own libraries,
independently of memscope's readers: networkx (LightRAG and nano-graphrag
write their graph with nx.write_graphml), python-igraph (HippoRAG 2 pickles
an igraph.Graph), sqlite3 (Mem0's history). Prints one JSON object:
nodes, passages, edges (writes as memscope's model counts them: parallel
edges of one pair are one write; each entity is joined once to each listed
chunk its source_id names), history and messages rows.

usage: realcounts.py FORMAT PATH
"""
import json
import os
import sqlite3
import sys

SEP = "<SEP>"


def lightrag(d):
    import networkx as nx
    g = nx.read_graphml(os.path.join(d, "graph_chunk_entity_relation.graphml"))
    chunks_path = os.path.join(d, "kv_store_text_chunks.json")
    chunks = {}
    if os.path.exists(chunks_path):
        with open(chunks_path, encoding="utf-8") as f:
            chunks = json.load(f)
    joins = set()
    for n, data in g.nodes(data=True):
        for c in str(data.get("source_id", "")).split(SEP):
            c = c.strip()
            if c in chunks:
                joins.add((c, n))
    return {"nodes": len(chunks) + g.number_of_nodes(), "passages": len(chunks),
            "edges": g.number_of_edges() + len(joins), "history": 0, "messages": 0}


def hipporag(d):
    import igraph
    pickles = []
    for root, _, files in os.walk(d):
        pickles += [os.path.join(root, f) for f in files if f == "graph.pickle"]
    g = igraph.Graph.Read_Pickle(pickles[0])
    pairs = {tuple(sorted((g.vs[e.source]["name"], g.vs[e.target]["name"]))) for e in g.es}
    passages = sum(1 for v in g.vs if str(v["name"]).startswith("chunk-"))
    return {"nodes": g.vcount(), "passages": passages, "edges": len(pairs), "history": 0, "messages": 0}


def mem0(p):
    db = sqlite3.connect("file:%s?mode=ro&immutable=1" % p, uri=True)
    history = db.execute("SELECT count(*) FROM history").fetchone()[0]
    tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    messages = db.execute("SELECT count(*) FROM messages").fetchone()[0] if "messages" in tables else 0
    return {"nodes": 0, "passages": 0, "edges": 0, "history": history, "messages": messages}


fmt, path = sys.argv[1], sys.argv[2]
fn = {"lightrag": lightrag, "nanographrag": lightrag, "hipporag": hipporag, "mem0": mem0}[fmt]
print(json.dumps(fn(path)))
