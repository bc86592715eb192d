package lightrag

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memscope/memscope/internal/sharedtest"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/transform"
)

// TestGraphMLEncodingsAsNetworkx: the fixture graph (one name given a
// Latin-1 letter, and for the encodings that hold them, another given
// Chinese ones) written in each of several
// encodings under each of several XML declarations, every pairing read by
// networkx and by memscope: the same graph where networkx reads one, a
// refusal where networkx raises. The pairings mismatched on purpose are
// the ones a re-saved file can be (a UTF-16 file still declaring UTF-8,
// a UTF-8 one declaring Latin-1).
func TestGraphMLEncodingsAsNetworkx(t *testing.T) {
	clean, err := os.ReadFile(filepath.Join(fixtures, "poisoned", graphFile))
	if err != nil {
		t.Fatal(err)
	}
	body := string(clean)
	decl, rest, ok := strings.Cut(body, "?>")
	if !ok || !strings.HasPrefix(decl, "<?xml") {
		t.Fatalf("the fixture starts %.40q, not with a declaration", body)
	}
	rest = strings.Replace(rest, "Karen Joy Fowler", "Karen Joy Fowler caf\u00e9", -1) // a Latin-1 letter too
	encs := []struct {
		name string
		enc  encoding.Encoding
		bom  string
	}{
		{"utf-8", nil, ""},
		{"utf-8-sig", nil, "\xef\xbb\xbf"},
		{"utf-16-le-bom", unicode.UTF16(unicode.LittleEndian, unicode.UseBOM), ""},
		{"utf-16-be-bom", unicode.UTF16(unicode.BigEndian, unicode.UseBOM), ""},
		{"utf-16-le", unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM), ""},
		{"latin-1", charmap.ISO8859_1, ""},
		{"cp1252", charmap.Windows1252, ""},
	}
	dir := t.TempDir()
	var paths, names []string
	for _, d := range []string{"", "utf-8", "UTF-16", "utf-16le", "utf-16be", "iso-8859-1", "latin-1", "us-ascii", "windows-1252", "koi8-r", "shift_jis", "no-such-codec"} {
		head := ""
		if d != "" {
			head = fmt.Sprintf("<?xml version='1.0' encoding='%s'?>", d)
		}
		text := head + rest
		if d == "" {
			text = strings.TrimLeft(rest, "\n")
		}
		if d == "us-ascii" || d == "koi8-r" {
			text = head + strings.Replace(rest, "caf\u00e9", "cafe", -1)
		}
		for _, e := range encs {
			var b []byte
			doc := text
			if _, single := e.enc.(*charmap.Charmap); !single {
				doc = strings.Replace(text, "Sarah Canary", "Sarah Canary \u91d1\u4e1d\u96c0", -1)
			}
			if e.enc == nil {
				b = []byte(e.bom + doc)
			} else if b, err = e.enc.NewEncoder().Bytes([]byte(doc)); err != nil {
				t.Fatal(err)
			}
			name := fmt.Sprintf("decl=%s bytes=%s", d, e.name)
			p := filepath.Join(dir, fmt.Sprintf("%d.graphml", len(paths)))
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Fatal(err)
			}
			paths, names = append(paths, p), append(names, name)
		}
	}
	version, docs := runNetworkx(t, paths)
	read := 0
	for i, p := range paths {
		if compareWithNetworkx(t, names[i], p, docs[p], version, nil) != nil {
			read++
		}
	}
	t.Logf("networkx and memscope read the same %d of %d pairings and both refuse the rest", read, len(paths))
	if read < 8 || read == len(paths) {
		t.Errorf("networkx and memscope read %d of %d pairings: the matrix should hold both verdicts", read, len(paths))
	}
}

// pyByteTables is each single-byte codec memscope knows, byte by byte, as
// Python decodes it ("" where it refuses the byte).
const pyByteTables = `
import json, sys
out = {}
for name in sys.argv[1:]:
    row = []
    for i in range(256):
        try:
            row.append(bytes([i]).decode(name))
        except UnicodeDecodeError:
            row.append("")
    out[name] = row
print(json.dumps(out))
`

// TestSingleByteCodecsAsPython: every byte of every codec name
// pySingleByte holds decodes to Python's character, or is refused where
// Python refuses it.
func TestSingleByteCodecsAsPython(t *testing.T) {
	var names []string
	for n := range pySingleByte {
		names = append(names, n)
	}
	var want map[string][256]string
	sharedtest.RunPython(t, pyByteTables, &want, names...)
	for _, n := range names {
		cm, err := pyCodec(n)
		if err != nil {
			t.Fatal(err)
		}
		d := singleByte{cm: cm, undefined: pyUndefined[cm]}
		for i := range 256 {
			got, _, err := transform.Bytes(d, []byte{byte(i)})
			if w := want[n][i]; string(got) != w || (err != nil) != (w == "") {
				t.Errorf("%s byte 0x%02x: %q (%v); Python %q", n, i, got, err, w)
			}
		}
	}
}

// pyToUTF16 saves a store's graph again in UTF-16 (a byte order mark,
// the declaration saying so), as a Windows tool saves text, and checks
// networkx still reads it.
const pyToUTF16 = `
import json, sys
import networkx as nx
p = sys.argv[1]
text = open(p, encoding="utf-8").read().replace("encoding='utf-8'", "encoding='utf-16'")
open(p, "wb").write(text.encode("utf-16"))
g = nx.read_graphml(p)
print(json.dumps({"nodes": g.number_of_nodes(), "edges": g.number_of_edges()}))
`

// TestUTF16StoreReadAsLightRAGReadsIt: a real LightRAG store whose graph
// was saved again in UTF-16 opens with the same nodes, edges and issues,
// and a note naming the encoding.
func TestUTF16StoreReadAsLightRAGReadsIt(t *testing.T) {
	src, dir := sharedtest.CopyCase(t, "lightrag-lennyhub", "rag_storage")
	want, err := Open(context.Background(), src)
	if err != nil {
		t.Fatal(err)
	}
	var nx struct{ Nodes, Edges int }
	sharedtest.RunPython(t, pyToUTF16, &nx, filepath.Join(dir, graphFile))
	got, err := Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Nodes) != len(want.Nodes) || len(got.Edges) != len(want.Edges) || len(got.Issues) != len(want.Issues) {
		t.Errorf("UTF-16: %d nodes %d edges %d issues; UTF-8: %d, %d, %d (networkx %d nodes, %d edges)", len(got.Nodes), len(got.Edges), len(got.Issues), len(want.Nodes), len(want.Edges), len(want.Issues), nx.Nodes, nx.Edges)
	}
	if notes := strings.Join(got.Notes, "\n"); !strings.Contains(notes, "UTF-16LE text") {
		t.Errorf("notes %q do not name the encoding", got.Notes)
	}
}
