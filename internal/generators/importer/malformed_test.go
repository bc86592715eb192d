package importer

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memscope/memscope/internal/generators/graphfile"
)

// Every malformed input fails with an InputError that names the file, the
// line and the field, and says what is wrong.
func TestMalformedRows(t *testing.T) {
	type reader func(string, *strings.Reader, graphfile.Format) error
	nodes := func(name string, r *strings.Reader, f graphfile.Format) error {
		_, err := graphfile.ReadNodes(name, r, f)
		return err
	}
	edges := func(name string, r *strings.Reader, f graphfile.Format) error {
		_, err := graphfile.ReadEdges(name, r, f)
		return err
	}
	queries := func(name string, r *strings.Reader, f graphfile.Format) error {
		_, err := graphfile.ReadQueries(name, r, f)
		return err
	}
	cases := []struct {
		name   string
		read   reader
		format graphfile.Format
		input  string
		line   int
		field  string
		says   string
	}{
		{"csv missing column", nodes, graphfile.CSV, "id,kind\na,passage\n", 1, "text", "required column missing"},
		{"csv unknown column", nodes, graphfile.CSV, "id,kind,text,colour\n", 1, "colour", "unknown column"},
		{"csv duplicate column", nodes, graphfile.CSV, "id,kind,text,id\n", 1, "id", "twice"},
		{"csv empty file", nodes, graphfile.CSV, "", 1, "", "empty file"},
		{"csv bad kind", nodes, graphfile.CSV, "id,kind,text\na,passage,A\nb,document,B\n", 3, "kind", `"document"`},
		{"csv empty required", nodes, graphfile.CSV, "id,kind,text\na,passage,\n", 2, "text", "missing"},
		{"csv duplicate node", nodes, graphfile.CSV, "id,kind,text\na,passage,A\nb,entity,B\na,entity,C\n", 4, "id", "line 2"},
		{"csv id with space", nodes, graphfile.CSV, "id,kind,text\nthe node,entity,N\n", 2, "id", "space"},
		{"csv id non-ascii", nodes, graphfile.CSV, "id,kind,text\nnœud,entity,N\n", 2, "id", "not ASCII"},
		{"csv bad writer", nodes, graphfile.CSV, "id,kind,text,writer\na,passage,A,root\n", 2, "writer", "want user"},
		{"csv writer on entity", nodes, graphfile.CSV, "id,kind,text,writer\na,entity,A,user\n", 2, "writer", "only passages"},
		{"csv bad trust", nodes, graphfile.CSV, "id,kind,text,trust\na,passage,A,7\n", 2, "trust", "0..3"},
		{"csv invalid utf8", nodes, graphfile.CSV, "id,kind,text\na,passage,\xff\n", 2, "text", "UTF-8"},
		{"csv cell count", nodes, graphfile.CSV, "id,kind,text\na,passage\n", 2, "", "header has 3 columns"},
		{"csv bad quote", nodes, graphfile.CSV, "id,kind,text\na,passage,\"A\n", 2, "", "quote"},
		{"csv cell count edges", edges, graphfile.CSV, "src,dst,weight,sources\na,b,1\n", 2, "", "3 cells, but the header has 4"},
		{"csv non-numeric weight", edges, graphfile.CSV, "src,dst,weight,sources\na,b,1,\na,b,heavy,\n", 3, "weight", `"heavy" is not a number`},
		{"csv negative weight", edges, graphfile.CSV, "src,dst,weight,sources\na,b,-1,\n", 2, "weight", "negative"},
		{"csv NaN weight", edges, graphfile.CSV, "src,dst,weight,sources\na,b,NaN,\n", 2, "weight", "finite"},
		{"csv missing weight", edges, graphfile.CSV, "src,dst,weight,sources\na,b,,\n", 2, "weight", "missing"},
		{"csv no sources column", edges, graphfile.CSV, "src,dst,weight\na,b,1\n", 1, "sources", "required column"},
		{"csv bad sources JSON", edges, graphfile.CSV, "src,dst,weight,sources\na,b,1,\"[\"\"p1\"\",]\"\n", 2, "sources", "JSON array"},
		{"csv empty source item", edges, graphfile.CSV, "src,dst,weight,sources\na,b,1,p1||p2\n", 2, "sources", "item 2"},
		{"csv bad edge kind", edges, graphfile.CSV, "src,dst,weight,sources,kind\na,b,1,,link\n", 2, "kind", "edge, merge or relation"},
		{"csv bad declared", edges, graphfile.CSV, "src,dst,weight,sources,declared\na,b,1,,trusted\n", 2, "declared", "authenticated"},
		{"csv rel with space", edges, graphfile.CSV, "src,dst,weight,sources,rel\na,b,1,,born in\n", 2, "rel", "space"},
		{"csv duplicate edge id", edges, graphfile.CSV, "id,src,dst,weight,sources\ne1,a,b,1,\ne1,a,c,1,\n", 3, "id", "line 2"},
		{"csv bad reset pair", queries, graphfile.CSV, "id,text,reset\nq,Q,a=1|b\n", 2, "reset", "id=value"},
		{"csv reset duplicate", queries, graphfile.CSV, "id,text,reset\nq,Q,a=1|a=2\n", 2, "reset", "twice"},
		{"csv reset JSON duplicate", queries, graphfile.CSV, "id,text,reset\nq,Q,\"{\"\"a\"\":1,\"\"a\"\":2}\"\n", 2, "reset", "twice"},
		{"csv reset all zero", queries, graphfile.CSV, "id,text,reset\nq,Q,a=0\n", 2, "reset", "positive"},
		{"csv reset negative", queries, graphfile.CSV, "id,text,reset\nq,Q,a=1|b=-1\n", 2, "reset", "negative"},
		{"csv k zero", queries, graphfile.CSV, "id,text,k,reset\nq,Q,0,a=1\n", 2, "k", "outside"},
		{"csv k fraction", queries, graphfile.CSV, "id,text,k,reset\nq,Q,2.5,a=1\n", 2, "k", "integer"},
		{"csv duplicate query", queries, graphfile.CSV, "id,text,reset\nq,Q,a=1\nq,R,a=1\n", 3, "id", "line 2"},

		{"jsonl bad JSON", nodes, graphfile.JSONL, `{"id":"a","kind":"passage","text":"A"}` + "\n" + `{"id":"b",` + "\n", 2, "", "JSON"},
		{"jsonl not object", nodes, graphfile.JSONL, `["a"]`, 1, "", "object"},
		{"jsonl duplicate key", nodes, graphfile.JSONL, `{"id":"a","kind":"passage","text":"A","id":"b"}`, 1, "", "twice"},
		{"jsonl trailing data", nodes, graphfile.JSONL, `{"id":"a","kind":"passage","text":"A"} {}`, 1, "", "after"},
		{"jsonl unknown field", nodes, graphfile.JSONL, `{"id":"a","kind":"passage","text":"A","label":"x"}`, 1, "label", "unknown field"},
		{"jsonl missing field", nodes, graphfile.JSONL, "\n" + `{"id":"a","kind":"passage"}`, 2, "text", "missing"},
		{"jsonl id not string", nodes, graphfile.JSONL, `{"id":7,"kind":"passage","text":"A"}`, 1, "id", "JSON string"},
		{"jsonl invalid utf8", nodes, graphfile.JSONL, "{\"id\":\"a\",\"kind\":\"passage\",\"text\":\"\xff\"}", 1, "", "UTF-8"},
		{"jsonl weight string", edges, graphfile.JSONL, `{"src":"a","dst":"b","weight":"1","sources":[]}`, 1, "weight", "JSON number"},
		{"jsonl weight huge", edges, graphfile.JSONL, `{"src":"a","dst":"b","weight":1e999,"sources":[]}`, 1, "weight", "JSON number"},
		{"jsonl sources missing", edges, graphfile.JSONL, `{"src":"a","dst":"b","weight":1}`, 1, "sources", "missing"},
		{"jsonl sources null", edges, graphfile.JSONL, `{"src":"a","dst":"b","weight":1,"sources":null}`, 1, "sources", "missing"},
		{"jsonl sources not list", edges, graphfile.JSONL, `{"src":"a","dst":"b","weight":1,"sources":"p1"}`, 1, "sources", "JSON array"},
		{"jsonl sources null item", edges, graphfile.JSONL, `{"src":"a","dst":"b","weight":1,"sources":["p1",null]}`, 1, "sources", "item 2"},
		{"jsonl reset not object", queries, graphfile.JSONL, `{"id":"q","text":"Q","reset":[1]}`, 1, "reset", "JSON object"},
		{"jsonl reset value string", queries, graphfile.JSONL, `{"id":"q","text":"Q","reset":{"a":"1"}}`, 1, "reset", "want a number"},
		{"jsonl dense duplicate", queries, graphfile.JSONL, `{"id":"q","text":"Q","reset":{"a":1},"dense":{"p":1,"p":2}}`, 1, "dense", "twice"},
		{"jsonl k not integer", queries, graphfile.JSONL, `{"id":"q","text":"Q","reset":{"a":1},"k":2.5}`, 1, "k", "integer"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			file := "input." + string(c.format)
			err := c.read(file, strings.NewReader(c.input), c.format)
			checkInputError(t, err, file, c.line, c.field, c.says)
		})
	}
}

func checkInputError(t *testing.T, err error, file string, line int, field, says string) {
	t.Helper()
	var ie *graphfile.InputError
	if !errors.As(err, &ie) {
		t.Fatalf("err = %v (%T), want an *InputError", err, err)
	}
	if ie.File != file || ie.Line != line || ie.Field != field {
		t.Errorf("error names %s line %d field %q, want %s line %d field %q (%v)", ie.File, ie.Line, ie.Field, file, line, field, err)
	}
	if !strings.Contains(err.Error(), says) {
		t.Errorf("error %q does not say %q", err, says)
	}
	if !strings.HasPrefix(err.Error(), file) {
		t.Errorf("error %q does not start with the file name", err)
	}
}

// Cross-file problems name the file and line of the row that refers.
func TestMalformedReferences(t *testing.T) {
	const nodes = "id,kind,text\np1,passage,P1\np2,passage,P2\ne1,entity,E1\n"
	cases := []struct {
		name, edges, queries string
		file                 string
		line                 int
		field, says          string
	}{
		{"unknown src", "src,dst,weight,sources\np1,e1,1,\nzz,e1,1,\n", "", "edges.csv", 3, "src", `"zz" is not in`},
		{"unknown dst", "src,dst,weight,sources\np1,zz,1,\n", "", "edges.csv", 2, "dst", `"zz"`},
		{"unknown source", "src,dst,weight,sources\np1,e1,1,p1|p9\n", "", "edges.csv", 2, "sources", `"p9"`},
		{"entity source", "src,dst,weight,sources\np1,e1,1,e1\n", "", "edges.csv", 2, "sources", "entity"},
		{"repeated source", "src,dst,weight,sources\np1,e1,1,p1|p1\n", "", "edges.csv", 2, "sources", "twice"},
		{"unknown reset node", "src,dst,weight,sources\n", "id,text,reset\nq,Q,e1=1|e2=1\n", "queries.csv", 2, "reset", `"e2"`},
		{"dense on entity", "src,dst,weight,sources\n", "id,text,reset,dense\nq,Q,e1=1,e1=0.5\n", "queries.csv", 2, "dense", "not a passage"},
		{"selected entity", "src,dst,weight,sources\n", "id,text,reset,selected\nq,Q,e1=1,p1|e1\n", "queries.csv", 2, "selected", "not a passage"},
		{"selected twice", "src,dst,weight,sources\n", "id,text,reset,selected\nq,Q,e1=1,p1|p1\n", "queries.csv", 2, "selected", "twice"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			opt := Options{Nodes: filepath.Join(dir, "nodes.csv"), Edges: filepath.Join(dir, "edges.csv"), Out: filepath.Join(dir, "out")}
			writeFile(t, opt.Nodes, nodes)
			writeFile(t, opt.Edges, c.edges)
			if c.queries != "" {
				opt.Queries = filepath.Join(dir, "queries.csv")
				writeFile(t, opt.Queries, c.queries)
			}
			_, _, err := Load(opt)
			checkInputError(t, err, filepath.Join(dir, c.file), c.line, c.field, c.says)
		})
	}
}

func TestDetectFormat(t *testing.T) {
	for _, c := range []struct {
		path     string
		override graphfile.Format
		want     graphfile.Format
		ok       bool
	}{
		{"a.csv", "", graphfile.CSV, true},
		{"a.JSONL", "", graphfile.JSONL, true},
		{"a.ndjson", "", graphfile.JSONL, true},
		{"a.txt", "", "", false},
		{"a.txt", "csv", graphfile.CSV, true},
		{"a.csv", "jsonl", graphfile.JSONL, true},
		{"a.csv", "xml", "", false},
	} {
		got, err := graphfile.DetectFormat(c.path, c.override)
		if got != c.want || (err == nil) != c.ok {
			t.Errorf("DetectFormat(%q, %q) = %q, %v", c.path, c.override, got, err)
		}
	}
}

func writeFile(t *testing.T, path, body string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}
