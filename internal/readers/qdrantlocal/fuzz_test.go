package qdrantlocal

import (
	"os"
	"path/filepath"
	"testing"
)

// seeds are testdata/mkseeds.py's pickles (persist()'s shape, protocols 4
// and 5, named vectors, an int id).
func seeds(t testing.TB, pattern string) [][]byte {
	names, _ := filepath.Glob(filepath.Join("testdata", pattern))
	var out [][]byte
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
	}
	if len(out) == 0 {
		t.Fatalf("no testdata/%s", pattern)
	}
	return out
}

func TestSeeds(t *testing.T) {
	for _, b := range seeds(t, "point-p*.pickle") {
		p, err := DecodePoint(b)
		if err != nil {
			t.Fatal(err)
		}
		// The values mkseeds.py pickled.
		if p.ID != "43bf945d-a48e-4ba5-a96d-6170564bf14b" || p.Dims != 3 || len(p.Payload) != 5 || p.Payload[1].Value != "Loves Italian cuisine" {
			t.Fatalf("decoded %+v", p)
		}
		if got := JSON(p.Payload[4].Value); got != `{"a": [1, 2.5, null, true]}` {
			t.Fatalf("metadata %s", got)
		}
	}
	p, err := DecodePoint(seeds(t, "point-named.pickle")[0])
	if err != nil || p.ID != "7" || p.Dims != 2 || len(p.Names) != 1 || p.Names[0] != "dense" || p.Payload != nil {
		t.Fatalf("named: %+v %v", p, err)
	}
	for _, k := range seeds(t, "key-p*.txt") {
		if id, err := DecodeKey(string(k)); err != nil || id != "43bf945d-a48e-4ba5-a96d-6170564bf14b" {
			t.Fatalf("key %s: %q %v", k, id, err)
		}
	}
}

// TestRefusesCode: a pickle that names any other global (the os.system
// call every pickle exploit makes) is refused before anything runs.
func TestRefusesCode(t *testing.T) {
	evil := []byte("\x80\x04\x95\x1d\x00\x00\x00\x00\x00\x00\x00\x8c\x05posix\x94\x8c\x06system\x94\x93\x94\x8c\x02id\x94\x85\x94R\x94.")
	if _, err := DecodePoint(evil); err == nil {
		t.Fatal("a pickle calling posix.system decoded")
	}
	if _, err := DecodePoint([]byte("cos\nsystem\n(S'id'\ntR.")); err == nil {
		t.Fatal("a protocol-0 GLOBAL os.system decoded")
	}
}

func FuzzDecodePoint(f *testing.F) {
	for _, b := range seeds(f, "point-*.pickle") {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := DecodePoint(b)
		if err == nil {
			for _, kv := range p.Payload {
				_ = JSON(kv.Value)
			}
		}
	})
}

func FuzzDecodeKey(f *testing.F) {
	for _, b := range seeds(f, "key-p*.txt") {
		f.Add(string(b))
	}
	f.Fuzz(func(t *testing.T, s string) { _, _ = DecodeKey(s) })
}
