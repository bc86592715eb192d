package igraphpickle

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"reflect"
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

// The fast decoder reads what python-igraph writes (the HippoRAG 2 store
// fixtures and the seed, numpy strings and floats included) and builds the
// same Graph as the general decoder; the protocol 2 seed takes the general
// path.
func TestFastMatchesGeneral(t *testing.T) {
	t.Parallel()
	paths := []string{filepath.Join("testdata", "small.pickle")}
	for _, s := range []string{"clean", "poisoned"} {
		paths = append(paths, filepath.Join("..", "..", "..", "testdata", "hipporag", s, "gpt-4o-mini_nvidia_NV-Embed-v2", "graph.pickle"))
	}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		fast, err := decodeFast(b)
		if err != nil {
			t.Fatalf("%s: the fast decoder gave up: %v", p, err)
		}
		gen, err := decodeGeneral(b)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(fast, gen) {
			t.Errorf("%s: fast %+v\ngeneral %+v", p, fast, gen)
		}
	}
	if _, err := decodeFast(read(t, "small_proto2.pickle")); err != errFallback {
		t.Errorf("protocol 2 pickle: %v, want the general path", err)
	}
}

// Wherever the fast decoder succeeds, the general one builds the same
// Graph: the fast path changes speed, never a result.
func FuzzFastMatchesGeneral(f *testing.F) {
	for _, name := range []string{"small.pickle", "small_proto2.pickle", "os_system.pickle", "ordered_dict.pickle", "truncated.pickle"} {
		f.Add(read(f, name))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if scan(b) != nil {
			return
		}
		fast, err := decodeFast(b)
		if err != nil {
			return
		}
		gen, err := decodeGeneral(b)
		if err != nil {
			t.Fatalf("fast decoded %+v, the general decoder refuses: %v", fast, err)
		}
		if !reflect.DeepEqual(fast, gen) {
			t.Fatalf("fast %+v\ngeneral %+v", fast, gen)
		}
	})
}
