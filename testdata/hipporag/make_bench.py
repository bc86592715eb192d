#!/usr/bin/python3
"""A HotpotQA-size HippoRAG 2 store for the speed benchmark (not committed).

    /usr/bin/python3 make_bench.py DIR

writes DIR/ as a HippoRAG 2 save directory (same construction as
make_fixtures.py: add_fact_edges, add_passage_edges, add_new_nodes,
add_new_edges, write_pickle; OpenIE results JSON; no synonym edges, since
the benchmark has no embedding model) of about 10,000 nodes and 30,000 igraph
edges, plus DIR/queries.jsonl with one query, then times python-igraph on
the same files: Graph.Read_Pickle and one personalized_pagerank (prpack),
as HippoRAG 2 runs them, and prints the times (wall and CPU, medians of 5)
as JSON. stores/storereplay/bench_test.go runs it itself when
/usr/bin/python3 has igraph.
"""
import json, os, random, sys, time
import numpy as np
import igraph as ig
from make_fixtures import compute_mdhash_id, text_processing, WORKDIR, LLM

out = sys.argv[1]
rng = random.Random(2026)
PASSAGES, ENTITIES, TRIPLES = 820, 9840, 13
words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet", "kilo", "lima"]
ents = [f"{rng.choice(words)} {rng.choice(words)} {i}" for i in range(ENTITIES)]
docs, chunk_triples = [], []
for p in range(PASSAGES):
    text = f"Passage {p}: " + " ".join(rng.choice(words) for _ in range(40))
    cid = compute_mdhash_id(text, "chunk-")
    own = [ents[(p * 12 + j) % ENTITIES] for j in range(14)]
    triples = []
    for _ in range(TRIPLES):
        s = rng.choice(own)
        o = rng.choice(own) if rng.random() < 0.7 else rng.choice(ents)
        if s != o:
            triples.append([s, "relates to", o])
    docs.append({"idx": cid, "passage": text, "extracted_entities": sorted({t[0] for t in triples} | {t[2] for t in triples}), "extracted_triples": triples})
    chunk_triples.append([text_processing(t) for t in triples])
stats, seen_ents = {}, []
for d, triples in zip(docs, chunk_triples):
    for t in triples:
        a, b = compute_mdhash_id(t[0], "entity-"), compute_mdhash_id(t[2], "entity-")
        stats[(a, b)] = stats.get((a, b), 0.0) + 1
        stats[(b, a)] = stats.get((b, a), 0.0) + 1
    for t in triples:
        for e in (t[0], t[2]):
            stats[(d["idx"], compute_mdhash_id(e, "entity-"))] = 1.0
entity_nodes = list(np.unique([e for ts in chunk_triples for t in ts for e in (t[0], t[2])]))
rows = [(compute_mdhash_id(e, "entity-"), e) for e in entity_nodes] + [(d["idx"], d["passage"]) for d in docs]
g = ig.Graph(directed=False)
g.add_vertices(len(rows), attributes={"hash_id": [r[0] for r in rows], "content": [r[1] for r in rows], "name": [r[0] for r in rows]})
g.add_edges([k for k in stats if k[0] != k[1]], attributes={"weight": [w for k, w in stats.items() if k[0] != k[1]]})
wd = os.path.join(out, WORKDIR)
os.makedirs(wd, exist_ok=True)
with open(os.path.join(out, f"openie_results_ner_{LLM}.json"), "w") as f:
    json.dump({"docs": docs, "avg_ent_chars": 0, "avg_ent_words": 0}, f)
pickle_path = os.path.join(wd, "graph.pickle")
g.write_pickle(pickle_path)
seed = compute_mdhash_id(text_processing(docs[0]["extracted_triples"][0][0]), "entity-")
reset = {seed: 1.0}
for d in docs:
    reset[d["idx"]] = 0.05 * rng.random()
with open(os.path.join(out, "queries.jsonl"), "w") as f:
    f.write(json.dumps({"id": "q-bench", "text": "benchmark query", "reset": reset}) + "\n")
# Times: wall (perf_counter) and this process's CPU (process_time), each
# the median of 5 runs, so a loaded machine can still give a CPU ratio.
runs = []
for _ in range(5):
    t0, c0 = time.perf_counter(), time.process_time()
    h = ig.Graph.Read_Pickle(pickle_path)
    t1, c1 = time.perf_counter(), time.process_time()
    names = h.vs["name"]
    r = [reset.get(n, 0.0) for n in names]
    h.personalized_pagerank(vertices=range(h.vcount()), damping=0.5, directed=False, weights="weight", reset=r, implementation="prpack")
    t2, c2 = time.perf_counter(), time.process_time()
    runs.append((t1 - t0, t2 - t1, c1 - c0, c2 - c1))
med = lambda i: sorted(x[i] for x in runs)[2]
print(json.dumps({"vertices": g.vcount(), "edges": g.ecount(), "pickle_bytes": os.path.getsize(pickle_path),
                  "igraph_read_pickle_s": med(0), "igraph_one_ppr_s": med(1), "igraph_load_plus_ppr_s": med(0) + med(1),
                  "igraph_read_pickle_cpu_s": med(2), "igraph_one_ppr_cpu_s": med(3), "igraph_load_plus_ppr_cpu_s": med(2) + med(3)}))
