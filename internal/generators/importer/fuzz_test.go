package importer

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/memscope/memscope/internal/generators/graphfile"
)

// FuzzReadRows feeds arbitrary bytes to the nodes, edges and queries
// readers in both formats. Properties: no panic; a failure is an InputError
// naming the file and a line inside it; a success yields rows that satisfy
// the documented rules, and writing them back as JSONL and reading that
// again gives the same rows.
func FuzzReadRows(f *testing.F) {
	f.Add([]byte("id,kind,text\np1,passage,Hello\ne1,entity,World\n"), uint8(0), false)
	f.Add([]byte("src,dst,weight,sources,declared\na,b,1.5,p1|p2,authenticated\n"), uint8(1), false)
	f.Add([]byte("id,text,k,reset,selected\nq,Q,3,a=1|b=0.5,p1\n"), uint8(2), false)
	f.Add([]byte(`{"id":"p1","kind":"passage","text":"Hi","trust":2}`+"\n"), uint8(0), true)
	f.Add([]byte(`{"src":"a","dst":"b","weight":60,"sources":[],"declared":"unauthenticated"}`), uint8(1), true)
	f.Add([]byte(`{"id":"q","text":"Q","reset":{"a":1},"dense":{"p":0.5},"selected":["p"]}`), uint8(2), true)
	f.Fuzz(func(t *testing.T, data []byte, kind uint8, jsonl bool) {
		format := graphfile.CSV
		if jsonl {
			format = graphfile.JSONL
		}
		rows, err := readKind(kind%3, "in", data, format)
		if err != nil {
			var ie *graphfile.InputError
			if !errors.As(err, &ie) {
				t.Fatalf("error %v (%T) is not an InputError", err, err)
			}
			if ie.File != "in" || ie.Line < 0 || ie.Line > bytes.Count(data, []byte("\n"))+1 {
				t.Fatalf("error names %s line %d for a %d-line input: %v", ie.File, ie.Line, bytes.Count(data, []byte("\n"))+1, err)
			}
			if !utf8.ValidString(err.Error()) {
				t.Fatalf("error message is not valid UTF-8: %q", err.Error())
			}
			return
		}
		checkRowRules(t, rows)
		back, err := readKind(kind%3, "back", encodeJSONL(t, rows), graphfile.JSONL)
		if err != nil {
			t.Fatalf("re-reading the rows as JSONL: %v", err)
		}
		if !reflect.DeepEqual(withoutLines(rows), withoutLines(back)) {
			t.Fatalf("JSONL round trip changed the rows:\n%+v\n%+v", rows, back)
		}
	})
}

func readKind(kind uint8, name string, data []byte, f graphfile.Format) (any, error) {
	switch kind {
	case 0:
		return graphfile.ReadNodes(name, bytes.NewReader(data), f)
	case 1:
		return graphfile.ReadEdges(name, bytes.NewReader(data), f)
	}
	return graphfile.ReadQueries(name, bytes.NewReader(data), f)
}

func checkRowRules(t *testing.T, rows any) {
	switch rs := rows.(type) {
	case []graphfile.Node:
		ids := map[string]bool{}
		for _, n := range rs {
			if nameProblem(n.ID) != "" || ids[n.ID] || (n.Kind != "passage" && n.Kind != "entity") || n.Text == "" {
				t.Fatalf("accepted a bad node %+v", n)
			}
			ids[n.ID] = true
		}
	case []graphfile.Edge:
		for _, e := range rs {
			if nameProblem(e.Src) != "" || nameProblem(e.Dst) != "" || e.Weight < 0 || math.IsNaN(e.Weight) || math.IsInf(e.Weight, 0) || e.Sources == nil {
				t.Fatalf("accepted a bad edge %+v", e)
			}
		}
	case []graphfile.Query:
		for _, q := range rs {
			sum := 0.0
			for _, v := range q.Reset {
				if v < 0 {
					t.Fatalf("accepted a negative reset %+v", q)
				}
				sum += v
			}
			if !(sum > 0) || q.K < 1 || q.K > graphfile.MaxK {
				t.Fatalf("accepted a bad query %+v", q)
			}
		}
	}
}

// encodeJSONL writes rows in the documented JSONL form.
func encodeJSONL(t *testing.T, rows any) []byte {
	var out []map[string]any
	switch rs := rows.(type) {
	case []graphfile.Node:
		for _, n := range rs {
			m := map[string]any{"id": n.ID, "kind": n.Kind, "text": n.Text}
			if n.Writer != "" {
				m["writer"] = n.Writer
			}
			if n.Trust != nil {
				m["trust"] = int(*n.Trust)
			}
			out = append(out, m)
		}
	case []graphfile.Edge:
		for _, e := range rs {
			m := map[string]any{"src": e.Src, "dst": e.Dst, "weight": e.Weight, "kind": e.Kind, "sources": e.Sources}
			for k, v := range map[string]string{"id": e.ID, "rel": e.Rel, "writer": e.Writer, "declared": e.Declared} {
				if v != "" {
					m[k] = v
				}
			}
			out = append(out, m)
		}
	case []graphfile.Query:
		for _, q := range rs {
			m := map[string]any{"id": q.ID, "text": q.Text, "k": q.K, "reset": q.Reset}
			if q.Dense != nil {
				m["dense"] = q.Dense
			}
			if q.Selected != nil {
				m["selected"] = q.Selected
			}
			out = append(out, m)
		}
	}
	var b strings.Builder
	for _, m := range out {
		j, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(j)
		b.WriteByte('\n')
	}
	return []byte(b.String())
}

func withoutLines(rows any) any {
	switch rs := rows.(type) {
	case []graphfile.Node:
		c := append([]graphfile.Node(nil), rs...)
		for i := range c {
			c[i].Line = 0
		}
		return c
	case []graphfile.Edge:
		c := append([]graphfile.Edge(nil), rs...)
		for i := range c {
			c[i].Line = 0
		}
		return c
	case []graphfile.Query:
		c := append([]graphfile.Query(nil), rs...)
		for i := range c {
			c[i].Line = 0
		}
		return c
	}
	return rows
}
