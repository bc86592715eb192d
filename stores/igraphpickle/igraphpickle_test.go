package igraphpickle

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func read(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The pickle python3-igraph writes decodes to its state, numpy.str_
// content as strings and numpy float32 weights as their float value.
func TestDecodeIgraphPickle(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"small.pickle"} {
		g, err := Decode(read(t, name))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if g.Directed || g.N != 3 || len(g.Edges) != 3 || g.Edges[2] != [2]int32{0, 2} {
			t.Errorf("%s: graph %+v", name, g)
		}
		content, err := Strings(g.VAttrs, "content")
		if err != nil || strings.Join(content, "|") != "alice|bob|a passage" {
			t.Errorf("%s: content %q, %v", name, content, err)
		}
		w, err := Floats(g.EAttrs, "weight")
		if err != nil || w[0] != 1 || w[1] != 0.875 || w[2] != 1 {
			t.Errorf("%s: weights %v, %v", name, w, err)
		}
	}
}

// Hostile pickles get an error that says what is wrong, never a call.
func TestRejectsHostilePickles(t *testing.T) {
	t.Parallel()
	huge := []byte{0x80, 5, 0x8d}
	huge = binary.LittleEndian.AppendUint64(huge, 1<<62)
	frame := []byte{0x80, 5, 0x95}
	frame = binary.LittleEndian.AppendUint64(frame, 1<<40)
	cases := []struct {
		name string
		data []byte
		says string
	}{
		// Protocol 2 carries numpy's bytes through _codecs.encode; HippoRAG
		// 2 writes the highest protocol, which does not.
		{"protocol 2 bytes", read(t, "small_proto2.pickle"), "refusing global _codecs.encode"},
		{"another class (os.system)", read(t, "os_system.pickle"), "refusing global"},
		{"a dict that is not a graph", read(t, "ordered_dict.pickle"), "not an igraph Graph"},
		{"truncated", read(t, "truncated.pickle"), "past the end"},
		{"text GLOBAL", []byte("cposix\nsystem\n(S'id'\ntR."), "refusing global posix.system"},
		{"8-byte length past the end", huge, "runs past the end"},
		{"frame past the end", frame, "runs past the end"},
		{"no STOP", []byte{0x80, 5, 'N'}, "truncated"},
		{"persistent id", []byte("P1\n."), "persistent"},
		{"unknown opcode", []byte{0x80, 5, 0xff}, "unknown opcode"},
		{"empty", nil, "truncated"},
		{"huge vertex count", []byte("cigraph\nGraph\n(I99999999999\n]I00\n}}}tR}b."), "vertex count"},
	}
	for _, c := range cases {
		_, err := Decode(c.data)
		if err == nil || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: err %v, want it to say %q", c.name, err, c.says)
		}
	}
}

func FuzzDecode(f *testing.F) {
	for _, name := range []string{"small.pickle", "small_proto2.pickle", "os_system.pickle", "ordered_dict.pickle", "truncated.pickle"} {
		f.Add(read(f, name))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		g, err := Decode(b)
		if err != nil {
			return
		}
		for _, e := range g.Edges {
			if int(e[0]) >= g.N || int(e[1]) >= g.N || e[0] < 0 || e[1] < 0 {
				t.Fatalf("edge %v outside %d vertices", e, g.N)
			}
		}
		for k, v := range g.VAttrs {
			if len(v) != g.N {
				t.Fatalf("vertex attribute %q has %d values for %d vertices", k, len(v), g.N)
			}
		}
	})
}
