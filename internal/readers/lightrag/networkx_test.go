package lightrag

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/memscope/memscope/internal/sharedtest"
)

// nxRead is the independent answer: networkx's own read_graphml (the
// python3-networkx Debian package) on each document, as JSON.
const nxRead = `
import json, sys, networkx as nx
out = {"version": nx.__version__, "docs": {}}
for p in sys.argv[1:]:
    try:
        g = nx.read_graphml(p)
    except Exception as e:
        out["docs"][p] = {"error": type(e).__name__ + ": " + str(e)}
        continue
    def val(v):
        if isinstance(v, bool):
            return "True" if v else "False"
        if isinstance(v, float):
            return repr(v)
        return str(v)
    nodes = [[str(n), {k: val(v) for k, v in d.items()}] for n, d in g.nodes(data=True)]
    edges = [[str(u), str(v), {k: val(x) for k, x in d.items() if k not in ("id", "key")}] for u, v, d in g.edges(data=True)]
    out["docs"][p] = {"directed": g.is_directed(), "nodes": nodes, "edges": edges}
print(json.dumps(out))
`

type nxDoc struct {
	Error    string
	Directed bool
	Nodes    [][2]json.RawMessage
	Edges    [][3]json.RawMessage
}

// runNetworkx runs nxRead on the paths; a machine without python3 or
// networkx skips with one line (CI fails).
func runNetworkx(t *testing.T, paths []string) (string, map[string]nxDoc) {
	t.Helper()
	if _, err := os.Stat("/usr/bin/python3"); err != nil {
		sharedtest.Missing(t, "/usr/bin/python3")
	}
	if err := exec.Command("/usr/bin/python3", "-c", "import networkx").Run(); err != nil {
		sharedtest.Missing(t, "python3-networkx")
	}
	out, err := exec.Command("/usr/bin/python3", append([]string{"-c", nxRead}, paths...)...).Output()
	if err != nil {
		t.Fatalf("networkx: %v", err)
	}
	var res struct {
		Version string
		Docs    map[string]nxDoc
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatal(err)
	}
	return res.Version, res.Docs
}

// canon renders a graph as comparable lines: each node with its data, each
// edge (ends ordered for undirected graphs) with its data, sorted.
func canon(directed bool, nodes []string, nodeData []map[string]string, edges [][2]string, edgeData []map[string]string, drop map[string]bool) string {
	var lines []string
	data := func(d map[string]string) string {
		var kv []string
		for k, v := range d {
			if drop[k] {
				continue
			}
			if x, err := strconv.ParseFloat(v, 64); err == nil && strings.ContainsAny(v, ".eE") {
				v = strconv.FormatFloat(x, 'g', -1, 64)
			}
			kv = append(kv, k+"="+v)
		}
		sort.Strings(kv)
		return strings.Join(kv, ",")
	}
	for i, n := range nodes {
		lines = append(lines, "node "+n+" {"+data(nodeData[i])+"}")
	}
	for i, e := range edges {
		a, b := e[0], e[1]
		if !directed && b < a {
			a, b = b, a
		}
		lines = append(lines, "edge "+a+" -> "+b+" {"+data(edgeData[i])+"}")
	}
	sort.Strings(lines)
	return fmt.Sprintf("directed=%v\n%s", directed, strings.Join(lines, "\n"))
}

func (d nxDoc) canon(drop map[string]bool) string {
	var nodes []string
	var nd, ed []map[string]string
	var edges [][2]string
	for _, n := range d.Nodes {
		var id string
		var m map[string]string
		json.Unmarshal(n[0], &id)
		json.Unmarshal(n[1], &m)
		nodes, nd = append(nodes, id), append(nd, m)
	}
	for _, e := range d.Edges {
		var u, v string
		var m map[string]string
		json.Unmarshal(e[0], &u)
		json.Unmarshal(e[1], &v)
		json.Unmarshal(e[2], &m)
		edges, ed = append(edges, [2]string{u, v}), append(ed, m)
	}
	return canon(d.Directed, nodes, nd, edges, ed, drop)
}

func goCanon(g *Graph, drop map[string]bool, emptyIsAbsent bool) string {
	var nodes []string
	var nd, ed []map[string]string
	var edges [][2]string
	seen := map[string]bool{}
	toMap := func(e Element) map[string]string {
		m := map[string]string{}
		for _, a := range e.Data {
			if a.Value == "" && emptyIsAbsent {
				continue
			}
			m[a.Name] = a.Value
		}
		return m
	}
	for _, n := range g.Nodes {
		seen[n.ID] = true
		nodes, nd = append(nodes, n.ID), append(nd, toMap(n))
	}
	for _, e := range g.Edges {
		for _, end := range []string{e.Source, e.Target} {
			if !seen[end] { // networkx adds an undeclared end as a node
				seen[end] = true
				nodes, nd = append(nodes, end), append(nd, map[string]string{})
			}
		}
		edges, ed = append(edges, [2]string{e.Source, e.Target}), append(ed, toMap(e))
	}
	return canon(g.Directed, nodes, nd, edges, ed, drop)
}

// TestAgainstNetworkx: on networkx's own GraphML test documents and the
// crafted LightRAG cases built from them, memscope either reads exactly
// the graph nx.read_graphml returns (nodes, edges, data), or refuses
// where networkx raises; where memscope reads something nx.write_graphml
// never writes, it says so with a deviation.
func TestAgainstNetworkx(t *testing.T) {
	peer := sharedtest.PeerCorpora(t)
	paths, _ := filepath.Glob(filepath.Join(peer, "networkx-graphml", "*.graphml"))
	cases, _ := filepath.Glob(filepath.Join(peer, "cases", "graphml-*", graphFile))
	paths = append(paths, cases...)
	if len(paths) < 22 {
		t.Fatalf("only %d documents under %s", len(paths), peer)
	}
	version, docs := runNetworkx(t, paths)
	t.Logf("networkx %s", version)
	for _, p := range paths {
		rel, _ := filepath.Rel(peer, p)
		g := compareWithNetworkx(t, rel, p, docs[p], version, nil)
		if g != nil && strings.HasPrefix(rel, "cases/") && len(g.Deviations) == 0 {
			t.Errorf("%s: read without a deviation", rel)
		}
	}
}

// compareWithNetworkx reads path and checks it against networkx's answer;
// it returns the graph when both read it. onPurpose lists documents
// memscope refuses where networkx reads them, with the reason.
func compareWithNetworkx(t *testing.T, name, path string, want nxDoc, version string, onPurpose map[string]string) *Graph {
	t.Helper()
	// networkx 2.x drops an empty data element where 3.x (what LightRAG
	// installs today, and what memscope follows) stores "".
	emptyIsAbsent := strings.HasPrefix(version, "2.")
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	g, err := ReadGraphML(f, nil)
	f.Close()
	switch {
	case want.Error != "" && err == nil:
		t.Errorf("%s: networkx raises (%s), memscope reads it", name, want.Error)
	case want.Error != "":
		t.Logf("%s: both refuse: networkx %q; memscope %v", name, want.Error, err)
	case err != nil:
		if why, ok := onPurpose[name]; ok && strings.Contains(err.Error(), why) {
			t.Logf("%s: memscope refuses on purpose: %v", name, err)
			return nil
		}
		t.Errorf("%s: networkx reads it, memscope refuses: %v", name, err)
	default:
		// yEd extension data: networkx stores a label, position and shape
		// under its own names, which memscope does not read (a deviation).
		drop := map[string]bool{}
		for _, d := range g.Deviations {
			if strings.Contains(d.Message, "yEd extension") {
				drop = map[string]bool{"label": true, "x": true, "y": true, "shape_type": true}
			}
		}
		got, exp := goCanon(g, drop, emptyIsAbsent), want.canon(drop)
		if got != exp {
			t.Errorf("%s: memscope reads\n%s\nnetworkx reads\n%s", name, got, exp)
			return nil
		}
		for _, d := range g.Deviations {
			t.Logf("%s: line %d %s: %s", name, d.Line, d.Subject, d.Message)
		}
		return g
	}
	return nil
}

// The attacks on a LightRAG graph a reader that matches by local name, or
// tracks one current element, falls for: each is built from the clean
// fixture (written by networkx), read by networkx and by memscope, which
// must agree with networkx (or refuse) and report a deviation.
var variants = []struct {
	name, from, to string
	refuseWhy      string // memscope refuses on purpose, saying this
}{
	{"namespaced-decoy-source", `<edge source="Karen Joy Fowler"`, `<edge xmlns:x="urn:decoy" x:source="Acme Holdings" source="Karen Joy Fowler"`, ""},
	{"decoy-source-only", `<edge source="Karen Joy Fowler"`, `<edge xmlns:x="urn:decoy" x:source="Karen Joy Fowler"`, ""},
	{"nested-graph-in-entity", `<node id="Sarah Canary">`, `<node id="Sarah Canary"><graph edgedefault="undirected"><node id="Ghost"/><edge source="Ghost" target="Karen Joy Fowler"/></graph>`, ""},
	{"foreign-namespace-edge", `<node id="Sarah Canary">`, `<x:edge xmlns:x="urn:decoy" source="Acme Holdings" target="Karen Joy Fowler"/><edge xmlns="urn:decoy" source="Acme Holdings" target="Sarah Canary"/><node id="Sarah Canary">`, ""},
	{"two-graphs", `</graphml>`, `<graph edgedefault="undirected"><node id="Mallory"/><edge source="Mallory" target="Karen Joy Fowler"/></graph></graphml>`, ""},
	{"second-graph-hyperedge", `</graphml>`, `<graph edgedefault="undirected"><hyperedge/></graph></graphml>`, ""},
	{"repeated-node", `<node id="Sarah Canary">`, `<node id="Sarah Canary"><data key="d3">chunk-forged</data></node><node id="Sarah Canary">`, ""},
	{"undeclared-endpoint", `<node id="Sarah Canary">`, `<edge source="Nobody" target="Karen Joy Fowler"/><node id="Sarah Canary">`, ""},
	{"no-namespace-header", `<graphml xmlns="http://graphml.graphdrawing.org/xmlns" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="http://graphml.graphdrawing.org/xmlns http://graphml.graphdrawing.org/xmlns/1.0/graphml.xsd">`, `<graphml>`, ""},
	{"repeated-attribute", `<edge source="Karen Joy Fowler"`, `<edge source="Acme Holdings" source="Karen Joy Fowler"`, ""},
	{"key-after-graph", `</graphml>`, `<key id="d3" for="node" attr.name="junk" attr.type="string"/></graphml>`, "a <key> after a <graph>"},
	{"directed-file", `edgedefault="undirected"`, `edgedefault="directed"`, ""},
	{"yed-group-node", `<node id="Sarah Canary">`, `<node id="Group" yfiles.foldertype="group"><graph edgedefault="undirected"><node id="Inner"><data key="d3">chunk-x</data></node><edge source="Inner" target="Karen Joy Fowler"/></graph></node><node id="Sarah Canary">`, ""},
}

func TestVariantsAgainstNetworkx(t *testing.T) {
	clean, err := os.ReadFile(filepath.Join(fixtures, "poisoned", graphFile))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var paths []string
	onPurpose := map[string]string{}
	for _, v := range variants {
		if !strings.Contains(string(clean), v.from) {
			t.Fatalf("%s: the fixture has no %q", v.name, v.from)
		}
		p := filepath.Join(dir, v.name+".graphml")
		if err := os.WriteFile(p, []byte(strings.Replace(string(clean), v.from, v.to, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
		if v.refuseWhy != "" {
			onPurpose[v.name] = v.refuseWhy
		}
	}
	version, docs := runNetworkx(t, paths)
	for i, p := range paths {
		name := variants[i].name
		if g := compareWithNetworkx(t, name, p, docs[p], version, onPurpose); g != nil && len(g.Deviations) == 0 {
			t.Errorf("%s: read as networkx reads it, but without a deviation", name)
		}
	}
}
