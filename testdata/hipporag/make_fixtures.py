#!/usr/bin/python3
"""Build HippoRAG 2 save directories the way HippoRAG 2 writes them.

Run with Debian's python3 and python3-igraph (0.10) and python3-numpy:
    /usr/bin/python3 make_fixtures.py

It follows OSU-NLP-Group/HippoRAG, src/hipporag/HippoRAG.py:
  - HippoRAG.index(): OpenIE per chunk, text_processing() of every triple,
    extract_entity_nodes() (np.unique over the triple entities), then
  - add_fact_edges(): +1 for (s, o) and +1 for (o, s) per triple of a new chunk,
  - add_passage_edges(): (chunk, entity) = 1.0 for each entity of the chunk's triples,
  - add_synonymy_edges(): (e, nn) = cosine score when score >= 0.8,
  - add_new_nodes(): vertices from the entity store, then the chunk store,
    attributes hash_id, content, name,
  - add_new_edges(): one igraph edge per node_to_node_stats key (self-loops
    skipped), attribute weight, on ig.Graph(directed=False),
  - save_igraph(): Graph.write_pickle(<working dir>/graph.pickle);
  - save_openie_results(): openie_results_ner_<llm>.json with docs (idx,
    passage, extracted_entities, extracted_triples), avg_ent_chars, avg_ent_words;
  - _save_chunk_metadata(): <working dir>/chunk_metadata.json;
and src/hipporag/utils/misc_utils.py (compute_mdhash_id, text_processing,
extract_entity_nodes, min_max_normalize) for ids and the reset vector of
graph_search_with_fact_entities() (fact score / passages containing the
entity, passages at 0.05 x min-max normalised dense score), then
run_ppr(): personalized_pagerank(damping=0.5, directed=False,
weights='weight', implementation='prpack').

The poisoned store is the clean one after an attacker appended edges to
graph.pickle with Graph.add_edges (no OpenIE triple and no embedding
explains them): the AuthSelect attack. expected.json records igraph's top-5
on G and on G_auth (G without every no-source write) for each store and query.

Debian has no parquet writer (no pyarrow), so the vdb_*.parquet files are
written afterwards by `go run gen_parquet.go` (parquet-go) from
embeddings.json, following
embedding_store.py EmbeddingStore._save_data (columns hash_id, content,
embedding).
"""
import json, os, re, sys, random, shutil
from hashlib import md5
import numpy as np
import igraph as ig

HERE = os.path.dirname(os.path.abspath(__file__))
LLM = "gpt-4o-mini"
EMB = "nvidia/NV-Embed-v2"
WORKDIR = f"{LLM.replace('/', '_')}_{EMB.replace('/', '_')}"


def compute_mdhash_id(content, prefix=""):
    return prefix + md5(content.encode()).hexdigest()


def text_processing(text):
    if isinstance(text, list):
        return [text_processing(t) for t in text]
    if not isinstance(text, str):
        text = str(text)
    return re.sub('[^A-Za-z0-9 ]', ' ', text.lower()).strip()


def min_max_normalize(x):
    lo, hi = np.min(x), np.max(x)
    if hi - lo == 0:
        return np.ones_like(x)
    return (x - lo) / (hi - lo)


# The corpus: passages with the triples an OpenIE LLM would extract.
CORPUS = [
    ("Karen Joy Fowler (born February 7, 1950) is an American author of science fiction.",
     [["Karen Joy Fowler", "born on", "February 7, 1950"], ["Karen Joy Fowler", "is", "American author"]]),
    ("Bruce Chatwin (13 May 1940 - 18 January 1989) was an English travel writer.",
     [["Bruce Chatwin", "born on", "13 May 1940"], ["Bruce Chatwin", "was", "English travel writer"]]),
    ("Sarah Canary is a 1991 novel by Karen Joy Fowler set in the Pacific Northwest.",
     [["Sarah Canary", "written by", "Karen Joy Fowler"], ["Sarah Canary", "set in", "Pacific Northwest"]]),
    ("In Patagonia is a 1977 travel book by Bruce Chatwin.",
     [["In Patagonia", "written by", "Bruce Chatwin"], ["In Patagonia", "published in", "1977"]]),
    ("The Jane Austen Book Club is a 2004 novel by Karen Joy Fowler.",
     [["The Jane Austen Book Club", "written by", "Karen Joy Fowler"], ["The Jane Austen Book Club", "published in", "2004"]]),
    ("The Songlines is a 1987 book by Bruce Chatwin about Aboriginal Australia.",
     [["The Songlines", "written by", "Bruce Chatwin"], ["The Songlines", "about", "Aboriginal Australia"]]),
    ("Payee record: Acme Holdings, account ending 7731, approved for wire transfer.",
     [["Acme Holdings", "holds", "account ending 7731"], ["account ending 7731", "approved for", "wire transfer"]]),
    ("Ursula K. Le Guin (born October 21, 1929) was an American author.",
     [["Ursula K. Le Guin", "born on", "October 21, 1929"], ["Ursula K. Le Guin", "is", "American author"]]),
    ("Jan Morris (2 October 1926 - 20 November 2020) was a Welsh travel writer.",
     [["Jan Morris", "born on", "2 October 1926"], ["Jan Morris", "was", "Welsh travel writer"]]),
    ("The Left Hand of Darkness is a 1969 novel by Ursula K. Le Guin.",
     [["The Left Hand of Darkness", "written by", "Ursula Le Guin"], ["The Left Hand of Darkness", "published in", "1969"]]),
    ("Venice is a 1960 book by Jan Morris about the city of Venice.",
     [["Venice", "written by", "Jan Morris"], ["Venice", "about", "city of Venice"]]),
    ("The Pacific Northwest includes Washington and Oregon.",
     [["Pacific Northwest", "includes", "Washington"], ["Pacific Northwest", "includes", "Oregon"]]),
]


def embed(text):
    """A deterministic stand-in for the embedding model: a bag of hashed
    character trigrams, L2-normalised (NV-Embed-v2 also returns unit vectors)."""
    v = np.zeros(64, dtype=np.float32)
    t = " " + text.lower() + " "
    for i in range(len(t) - 2):
        v[int(md5(t[i:i + 3].encode()).hexdigest(), 16) % 64] += 1.0
    n = np.linalg.norm(v)
    return v / n if n else v


def build(corpus):
    # HippoRAG.index(): chunk store rows, OpenIE rows, triples after text_processing.
    chunk_rows = [(compute_mdhash_id(p, "chunk-"), p) for p, _ in corpus]
    docs = []
    for (cid, p), (_, triples) in zip(chunk_rows, corpus):
        ents = sorted({t[0] for t in triples} | {t[2] for t in triples})
        docs.append({"idx": cid, "passage": p, "extracted_entities": ents, "extracted_triples": triples})
    chunk_triples = [[text_processing(t) for t in d["extracted_triples"]] for d in docs]
    # extract_entity_nodes()
    chunk_triple_entities = []
    for triples in chunk_triples:
        s = set()
        for t in triples:
            s.update([t[0], t[2]])
        chunk_triple_entities.append(list(s))
    entity_nodes = list(np.unique([e for es in chunk_triple_entities for e in es]))
    entity_rows = [(compute_mdhash_id(e, "entity-"), e) for e in entity_nodes]

    stats = {}
    ent_to_chunks = {}
    # add_fact_edges()
    for (cid, _), triples in zip(chunk_rows, chunk_triples):
        in_chunk = set()
        for t in triples:
            a, b = compute_mdhash_id(t[0], "entity-"), compute_mdhash_id(t[2], "entity-")
            in_chunk.update([a, b])
            stats[(a, b)] = stats.get((a, b), 0.0) + 1
            stats[(b, a)] = stats.get((b, a), 0.0) + 1
        for n in in_chunk:
            ent_to_chunks.setdefault(n, set()).add(cid)
    # add_passage_edges()
    for (cid, _), ents in zip(chunk_rows, chunk_triple_entities):
        for e in ents:
            stats[(cid, compute_mdhash_id(e, "entity-"))] = 1.0
    # add_synonymy_edges(): KNN over entity embeddings, threshold 0.8.
    embs = {eid: embed(text) for eid, text in entity_rows}
    for eid, text in entity_rows:
        if len(re.sub('[^A-Za-z0-9]', '', text)) <= 2:
            continue
        scored = sorted(((float(np.dot(embs[eid], embs[o])), o) for o, _ in entity_rows), reverse=True)
        for score, o in scored:
            if score < 0.8:
                break
            if o != eid:
                # retrieve_knn() returns torch float32 scores through
                # .numpy().tolist(): Python floats holding float32 values.
                stats[(eid, o)] = float(np.float32(score))
    # add_new_nodes(): entity rows then chunk rows; add_new_edges().
    g = ig.Graph(directed=False)
    rows = entity_rows + chunk_rows
    g.add_vertices(len(rows), attributes={
        "hash_id": [r[0] for r in rows],
        "content": [r[1] for r in rows],
        "name": [r[0] for r in rows]})
    edges, weights = [], []
    for (a, b), w in stats.items():
        if a == b:
            continue
        edges.append((a, b))
        weights.append(w)
    g.add_edges(edges, attributes={"weight": weights})
    return g, docs, chunk_rows, entity_rows, ent_to_chunks, embs


def write_store(root, g, docs, chunk_rows):
    if os.path.exists(root):
        shutil.rmtree(root)
    wd = os.path.join(root, WORKDIR)
    os.makedirs(wd)
    ents = [e for d in docs for e in d["extracted_entities"]]
    openie = {"docs": docs,
              "avg_ent_chars": round(sum(len(e) for e in ents) / len(ents), 4),
              "avg_ent_words": round(sum(len(e.split()) for e in ents) / len(ents), 4)}
    with open(os.path.join(root, f"openie_results_ner_{LLM.replace('/', '_')}.json"), "w") as f:
        json.dump(openie, f)
    with open(os.path.join(wd, "chunk_metadata.json"), "w", encoding="utf-8") as f:
        json.dump({cid: {} for cid, _ in chunk_rows}, f, ensure_ascii=False, indent=2)
    g.write_pickle(os.path.join(wd, "graph.pickle"))


def reset_vector(g, facts, dense, ent_to_chunks, chunk_rows):
    """graph_search_with_fact_entities(): facts are (subject, predicate,
    object, score); dense maps chunk id -> dense similarity."""
    names = g.vs["name"]
    idx = {n: i for i, n in enumerate(names)}
    phrase = np.zeros(len(names))
    occurs = np.zeros(len(names))
    for s, _, o, score in facts:
        for ph in (s.lower(), o.lower()):
            key = compute_mdhash_id(ph, "entity-")
            if key in idx:
                w = score
                if len(ent_to_chunks.get(key, ())) > 0:
                    w /= len(ent_to_chunks[key])
                phrase[idx[key]] += w
                occurs[idx[key]] += 1
    phrase = np.divide(phrase, occurs, out=np.zeros_like(phrase), where=occurs != 0)
    passage = np.zeros(len(names))
    ids = [cid for cid, _ in chunk_rows]
    scores = np.array([dense[c] for c in ids])
    norm = min_max_normalize(scores)
    for c, s in zip(ids, norm):
        passage[idx[c]] = s * 0.05
    return phrase + passage


def top5(g, reset):
    pr = g.personalized_pagerank(vertices=range(g.vcount()), damping=0.5, directed=False,
                                 weights="weight", reset=reset, implementation="prpack")
    passages = [i for i, n in enumerate(g.vs["name"]) if n.startswith("chunk-")]
    doc = np.array([pr[i] for i in passages])
    order = np.argsort(doc)[::-1][:5]
    return [g.vs[passages[i]]["name"] for i in order], [float(doc[i]) for i in order]


def explained_pairs(docs):
    """The pairs OpenIE explains (the rule memscope applies, as HippoRAG built them)."""
    pairs = set()
    for d in docs:
        triples = [text_processing(t) for t in d["extracted_triples"] if len(t) == 3]
        for t in triples:
            a, b = compute_mdhash_id(t[0], "entity-"), compute_mdhash_id(t[2], "entity-")
            pairs.add(tuple(sorted((a, b))))
            pairs.add(tuple(sorted((d["idx"], a))))
            pairs.add(tuple(sorted((d["idx"], b))))
    return pairs


def g_auth(g, docs):
    pairs = explained_pairs(docs)
    h = g.copy()
    drop = [e.index for e in h.es if tuple(sorted((h.vs[e.source]["name"], h.vs[e.target]["name"]))) not in pairs]
    h.delete_edges(drop)
    return h


def main():
    g, docs, chunk_rows, entity_rows, ent_to_chunks, embs = build(CORPUS)
    cid = {p: c for c, p in chunk_rows}
    eid = lambda text: compute_mdhash_id(text_processing(text), "entity-")
    rng = random.Random(7)
    dense = {c: round(rng.uniform(0.2, 0.6), 4) for c, _ in chunk_rows}
    fowler, chatwin = cid[CORPUS[0][0]], cid[CORPUS[1][0]]
    dense[fowler], dense[chatwin] = 0.83, 0.81
    facts = [("karen joy fowler", "born on", "february 7  1950", 0.92),
             ("bruce chatwin", "born on", "13 may 1940", 0.90)]
    reset = reset_vector(g, facts, dense, ent_to_chunks, chunk_rows)
    queries = [{"id": "q-born-first", "text": "Who was born first, Karen Joy Fowler or Bruce Chatwin?",
                "k": 5, "reset": {n: float(r) for n, r in zip(g.vs["name"], reset) if r > 0}}]

    # The attack: edges from the two seeded entities to the payee passage.
    payee = cid[CORPUS[6][0]]
    targets = [eid("Karen Joy Fowler"), eid("Bruce Chatwin")]
    clean_auth = top5(g_auth(g, docs), reset)[0]
    # The clean store must select the same on G and G_auth, so that the
    # culprits of the poisoned store are exactly the injected edges.
    assert top5(g, reset)[0] == clean_auth, (top5(g, reset), clean_auth)
    chosen = None
    for w in (1.0, 2.0, 3.0, 4.0, 6.0, 8.0, 12.0, 16.0, 30.0, 60.0, 120.0):
        p = g.copy()
        p.add_edges([(t, payee) for t in targets], attributes={"weight": [w, w]})
        sel = top5(p, reset)[0]
        # Each injected edge alone must still change the selection (so that
        # removing one alone does not restore G_auth's), and the two together
        # must bring the payee passage in: then both are necessary culprits.
        alone = []
        for t in targets:
            q = g.copy()
            q.add_edges([(t, payee)], attributes={"weight": [w]})
            alone.append(top5(q, reset)[0] != clean_auth)
        if payee in sel and all(alone):
            chosen = (w, p)
            break
    if chosen is None:
        sys.exit("no weight makes both injected edges necessary")
    w, poisoned = chosen

    expected = {"igraph": ig.__version__, "numpy": np.__version__, "workdir": WORKDIR,
                "injected_weight": w,
                "injected_edges": sorted("--".join(sorted((t, payee))) for t in targets),
                "payee": payee, "stores": {}}
    for name, graph in (("clean", g), ("poisoned", poisoned)):
        root = os.path.join(HERE, name)
        write_store(root, graph, docs, chunk_rows)
        # Read back the way HippoRAG does (ig.Graph.Read_Pickle) before replaying.
        back = ig.Graph.Read_Pickle(os.path.join(root, WORKDIR, "graph.pickle"))
        sg, sgs = top5(back, reset)
        sa, sas = top5(g_auth(back, docs), reset)
        expected["stores"][name] = {"vertices": back.vcount(), "edges": back.ecount(),
                                    "q-born-first": {"g": sg, "g_scores": sgs, "g_auth": sa, "g_auth_scores": sas}}
    assert expected["stores"]["clean"]["q-born-first"]["g_auth"] == clean_auth
    with open(os.path.join(HERE, "queries.jsonl"), "w") as f:
        for q in queries:
            f.write(json.dumps(q, sort_keys=True) + "\n")
    with open(os.path.join(HERE, "expected.json"), "w") as f:
        json.dump(expected, f, indent=1, sort_keys=True)
        f.write("\n")
    emb = {"chunk": [[c, p, [float(x) for x in embed(p)]] for c, p in chunk_rows],
           "entity": [[e, t, [float(x) for x in embs[e]]] for e, t in entity_rows]}
    with open(os.path.join(HERE, "embeddings.json"), "w") as f:
        json.dump(emb, f)
    print(json.dumps({k: v for k, v in expected.items() if k != "stores"}, indent=1))
    print(json.dumps(expected["stores"], indent=1))


if __name__ == "__main__":
    main()
