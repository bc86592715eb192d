#!/usr/bin/python3
"""Seeds for igraphpickle's tests and fuzz corpus.

Run with Debian's python3-igraph (0.10) and python3-numpy: /usr/bin/python3 make_seeds.py
small.pickle is what HippoRAG 2's save_igraph() (src/hipporag/HippoRAG.py)
writes: Graph.write_pickle of an undirected graph with vertex attributes
name, hash_id, content (numpy.str_ from np.unique, as extract_entity_nodes
gives) and edge attribute weight. The rest are hostile inputs.
"""
import igraph as ig, numpy as np, pickle, os, collections
g = ig.Graph(directed=False)
g.add_vertices(3, attributes={"name": ["entity-a", "entity-b", "chunk-c"], "hash_id": ["entity-a", "entity-b", "chunk-c"],
                              "content": list(np.unique(["alice", "bob"])) + ["a passage"]})
g.add_edges([(0, 1), (1, 0), (2, 0)], attributes={"weight": [1.0, np.float32(0.875), 1.0]})
g.write_pickle("small.pickle")
with open("small_proto2.pickle", "wb") as f:
    pickle.dump(g, f, protocol=2)
class Evil:
    def __reduce__(self):
        return (os.system, ("echo pwned",))
with open("os_system.pickle", "wb") as f:
    pickle.dump(Evil(), f)
with open("ordered_dict.pickle", "wb") as f:
    pickle.dump(collections.OrderedDict(a=1), f)
b = open("small.pickle", "rb").read()
open("truncated.pickle", "wb").write(b[: len(b) // 2])
