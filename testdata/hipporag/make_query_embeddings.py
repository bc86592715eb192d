#!/usr/bin/python3
"""Query embeddings for the fixture stores, and python-igraph's selection
from them, the way HippoRAG 2 retrieves.

Run after make_fixtures.py, with Debian's python3, python3-igraph and
python3-numpy, then `go run gen_parquet.go` (it writes vdb_fact.parquet from
the "fact" rows this adds to embeddings.json):

    /usr/bin/python3 make_query_embeddings.py && go run gen_parquet.go

It follows OSU-NLP-Group/HippoRAG, src/hipporag/HippoRAG.py:
  - index(): facts = flatten_facts(chunk_triples) (text_processing()'d
    triples), stored in the fact embedding store as str(fact) with hash id
    compute_mdhash_id(str(fact), "fact-") (embedding_store.py insert_strings);
  - retrieve(): get_fact_scores() (fact embeddings . query_to_fact
    embedding, min_max_normalize), then rerank_facts(): the link_top_k (5)
    best facts by score, argsort order. rerank_filter(), the LLM recognition
    memory filter, is NOT reproduced: the candidates are kept as they are;
  - graph_search_with_fact_entities(): each kept fact's subject and object
    (lower-cased) -> "entity-" + md5; weight fact score / number of chunks
    containing the entity (ent_node_to_chunk_ids from add_fact_edges()),
    averaged over occurrences; get_top_k_weights() keeps the link_top_k
    best phrases; dense_passage_retrieval() (passage embeddings .
    query_to_passage embedding, min_max_normalize, twice as upstream) gives
    each passage 0.05 x its score;
  - run_ppr(): personalized_pagerank(damping=0.5, directed=False,
    weights='weight', reset=node_weights, implementation='prpack'), top-5.

Writes query_embeddings.jsonl (the --query-embeddings format) and
expected_qemb.json (the reset vector and igraph's top-5 on G and on G_auth
for each store). The query embeddings come from make_fixtures.embed (a
stand-in for the embedding model) of the query text with an instruction
prefix, as get_query_instruction() prefixes the real model's input.
"""
import json, os
import numpy as np
import igraph as ig
from make_fixtures import (CORPUS, HERE, WORKDIR, build, compute_mdhash_id, embed,
                           g_auth, min_max_normalize, text_processing, top5)

LINK_TOP_K = 5
PASSAGE_NODE_WEIGHT = 0.05
QUERIES = [
    {"id": "q-born-first", "text": "Who was born first, Karen Joy Fowler or Bruce Chatwin?", "k": 5},
    {"id": "q-patagonia", "text": "Which travel book did Bruce Chatwin write about Patagonia?", "k": 5},
]


def fact_rows(docs):
    """flatten_facts() of the text_processing()'d triples; sorted here so the
    fixture is deterministic (upstream's order is a set's)."""
    facts = sorted({tuple(text_processing(t)) for d in docs for t in d["extracted_triples"] if len(t) == 3})
    return [(compute_mdhash_id(str(f), "fact-"), str(f), f) for f in facts]


def retrieve_reset(g, q_fact, q_passage, facts, fact_emb, chunk_ids, chunk_emb, ent_to_chunks):
    # get_fact_scores()
    scores = min_max_normalize(np.dot(fact_emb, q_fact))
    # rerank_facts() without rerank_filter()
    if len(scores) <= LINK_TOP_K:
        top = np.argsort(scores)[::-1].tolist()
    else:
        top = np.argsort(scores)[-LINK_TOP_K:][::-1].tolist()
    top_facts = [facts[i][2] for i in top]
    # graph_search_with_fact_entities()
    names = g.vs["name"]
    idx = {n: i for i, n in enumerate(names)}
    phrase_weights = np.zeros(len(names))
    occurs = np.zeros(len(names))
    phrases = set()
    for rank, f in enumerate(top_facts):
        score = scores[top[rank]]
        for ph in (f[0].lower(), f[2].lower()):
            key = compute_mdhash_id(ph, "entity-")
            if key in idx:
                w = score
                if len(ent_to_chunks.get(key, set())) > 0:
                    w /= len(ent_to_chunks[key])
                phrase_weights[idx[key]] += w
                occurs[idx[key]] += 1
                phrases.add((ph, idx[key]))
    phrase_weights = np.divide(phrase_weights, occurs, out=np.zeros_like(phrase_weights), where=occurs != 0)
    linking = {ph: float(phrase_weights[i]) for ph, i in phrases}
    # get_top_k_weights()
    keep = dict(sorted(linking.items(), key=lambda x: x[1], reverse=True)[:LINK_TOP_K])
    keys = {compute_mdhash_id(p, "entity-") for p in keep}
    for n, i in idx.items():
        if n not in keys:
            phrase_weights[i] = 0.0
    assert np.count_nonzero(phrase_weights) == len(keep)
    # dense_passage_retrieval()
    doc = min_max_normalize(np.dot(chunk_emb, q_passage))
    order = np.argsort(doc)[::-1]
    norm = min_max_normalize(doc[order])
    passage_weights = np.zeros(len(names))
    for i, d in enumerate(order.tolist()):
        passage_weights[idx[chunk_ids[d]]] = norm[i] * PASSAGE_NODE_WEIGHT
    reset = phrase_weights + passage_weights
    reset = np.where(np.isnan(reset) | (reset < 0), 0, reset)  # run_ppr()
    return reset, [str(f) for f in top_facts]


def main():
    g, docs, chunk_rows, entity_rows, ent_to_chunks, embs = build(CORPUS)
    facts = fact_rows(docs)
    fact_emb = np.array([embed(c) for _, c, _ in facts])
    chunk_ids = [c for c, _ in chunk_rows]
    chunk_emb = np.array([embed(p) for _, p in chunk_rows])
    path = os.path.join(HERE, "embeddings.json")
    with open(path) as f:
        emb = json.load(f)
    emb["fact"] = [[h, c, [float(x) for x in embed(c)]] for h, c, _ in facts]
    with open(path, "w") as f:
        json.dump(emb, f)
    # The stored chunk embeddings must be what this script scores with.
    assert [r[0] for r in emb["chunk"]] == chunk_ids
    expected = {"igraph": ig.__version__, "numpy": np.__version__, "link_top_k": LINK_TOP_K,
                "passage_node_weight": PASSAGE_NODE_WEIGHT,
                "not_reproduced": "rerank_filter (the LLM recognition memory filter)", "queries": {}}
    lines = []
    for q in QUERIES:
        q_fact = embed("query_to_fact: " + q["text"])
        q_passage = embed("query_to_passage: " + q["text"])
        lines.append(json.dumps({"id": q["id"], "text": q["text"], "k": q["k"],
                                 "fact_embedding": [float(x) for x in q_fact],
                                 "passage_embedding": [float(x) for x in q_passage]}, sort_keys=True))
        out = {}
        for name in ("clean", "poisoned"):
            back = ig.Graph.Read_Pickle(os.path.join(HERE, name, WORKDIR, "graph.pickle"))
            reset, top_facts = retrieve_reset(back, q_fact, q_passage, facts, fact_emb, chunk_ids, chunk_emb, ent_to_chunks)
            sg, sgs = top5(back, reset)
            sa, sas = top5(g_auth(back, docs), reset)
            out[name] = {"reset": {n: float(r) for n, r in zip(back.vs["name"], reset) if r > 0},
                         "facts": top_facts, "g": sg, "g_scores": sgs, "g_auth": sa, "g_auth_scores": sas}
        expected["queries"][q["id"]] = out
    with open(os.path.join(HERE, "query_embeddings.jsonl"), "w") as f:
        f.write("\n".join(lines) + "\n")
    with open(os.path.join(HERE, "expected_qemb.json"), "w") as f:
        json.dump(expected, f, indent=1, sort_keys=True)
        f.write("\n")
    for qid, out in expected["queries"].items():
        print(qid, {n: (o["g"][:3], o["g"] == o["g_auth"]) for n, o in out.items()}, out["clean"]["facts"])


if __name__ == "__main__":
    main()
