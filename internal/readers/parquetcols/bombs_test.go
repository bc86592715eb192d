package parquetcols

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/snappy"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"

	"github.com/memscope/memscope/internal/sharedtest"
)

// forgingCodec writes pages whose compressed bytes are forge(src) under a
// codec's name: the writer records the honest uncompressed size in each
// page header, so the forgery is in the compressed stream only.
type forgingCodec struct {
	codec format.CompressionCodec
	forge func(src []byte) []byte
}

func (c forgingCodec) String() string                            { return c.codec.String() }
func (c forgingCodec) CompressionCodec() format.CompressionCodec { return c.codec }
func (c forgingCodec) Encode(dst, src []byte) ([]byte, error)    { return c.forge(src), nil }
func (c forgingCodec) Decode(dst, src []byte) ([]byte, error)    { return nil, fmt.Errorf("not used") }

type bombRow struct {
	Title string `parquet:"title"`
}

func writeForged(t testing.TB, codec forgingCodec) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[bombRow](&buf, parquet.Compression(codec))
	if _, err := w.Write([]bombRow{{"SARAH CANARY"}}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// bombs are the three crashes of issue 23 item 13 and a thrift nesting
// bomb: each made from scratch, each a few MB at most.
func bombs(t testing.TB) map[string][]byte {
	out := map[string][]byte{}
	// A Snappy page whose preamble claims 4 GiB decompressed; its header
	// honestly claims a few bytes.
	out["snappy-4GiB"] = writeForged(t, forgingCodec{format.Snappy, func(src []byte) []byte {
		enc := snappy.Encode(nil, src)
		_, n := binary.Uvarint(enc)
		return append(binary.AppendUvarint(nil, 1<<32-16), enc[n:]...)
	}})
	// A gzip page of 3,000 members of 1 MiB of zeros: 3 MB that inflate
	// 1000x (gzip readers read every member).
	var member bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&member, gzip.BestCompression)
	zw.Write(make([]byte, 1<<20))
	zw.Close()
	out["gzip-1000x"] = writeForged(t, forgingCodec{format.Gzip, func([]byte) []byte {
		return bytes.Repeat(member.Bytes(), 3000)
	}})
	// A footer whose schema nests 100,000 groups deep.
	schema := []format.SchemaElement{{Name: "schema", NumChildren: thrift.New(int32(1))}}
	for i := 0; i < 100_000; i++ {
		schema = append(schema, format.SchemaElement{Name: "g", NumChildren: thrift.New(int32(1)), RepetitionType: thrift.New(format.Optional)})
	}
	schema = append(schema, format.SchemaElement{Name: "leaf", Type: thrift.New(format.Int32), RepetitionType: thrift.New(format.Optional)})
	footer, err := thrift.Marshal(new(thrift.CompactProtocol), &format.FileMetaData{Version: 1, Schema: schema})
	if err != nil {
		t.Fatal(err)
	}
	out["schema-100000-deep"] = wrapFooter(footer)
	// A footer of structs nested ten million deep (one byte each):
	// parquet-go's thrift decoder recurses once per level.
	out["thrift-nesting"] = wrapFooter(append(bytes.Repeat([]byte{0x1c}, 10_000_000), 0))
	return out
}

func wrapFooter(footer []byte) []byte {
	b := append([]byte("PAR1"), footer...)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(footer)))
	return append(b, "PAR1"...)
}

// TestBombsUnderMemoryCap opens each bomb in a child process under
// ulimit -v 2 GiB and GOMEMLIMIT, as the hostile suite runs memscope: each
// must be refused with an error naming the file, never end the process.
func TestBombsUnderMemoryCap(t *testing.T) {
	if os.Getenv("PARQUET_BOMB") != "" {
		t.Skip("child")
	}
	dir := t.TempDir()
	for name, b := range bombs(t) {
		p := filepath.Join(dir, name+".parquet")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("/bin/sh", "-c", `ulimit -v 2097152 && exec "$0" -test.run '^TestBombChild$' -test.v`, os.Args[0])
		cmd.Env = append(os.Environ(), "PARQUET_BOMB="+p, "GOMEMLIMIT=768MiB")
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "refused: "+p) {
			t.Errorf("%s: %v\n%s", name, err, clipOutput(out))
			continue
		}
		t.Logf("%s: %s", name, refusal(out))
	}
}

// TestBombChild is the child process: open and read every column.
func TestBombChild(t *testing.T) {
	p := os.Getenv("PARQUET_BOMB")
	if p == "" {
		t.Skip("run by TestBombsUnderMemoryCap")
	}
	if list, ok := strings.CutPrefix(p, "list:"); ok {
		childList(t, list)
		return
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	f, err := Open(p, b)
	if err == nil {
		for _, c := range f.Columns() {
			if _, err = f.Strings(context.Background(), c); err != nil {
				break
			}
		}
	}
	if err == nil {
		t.Fatalf("read %s whole", p)
	}
	fmt.Println("refused:", err)
}

// childList reads every file listed, printing "read" or the refusal.
func childList(t *testing.T, list string) {
	lb, err := os.ReadFile(list)
	if err != nil {
		t.Fatal(err)
	}
	paths := strings.Split(string(lb), "\n")
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		f, err := Open(p, b)
		if err != nil {
			if !strings.Contains(err.Error(), p) {
				t.Errorf("%s: error does not name the file: %v", p, err)
			}
			fmt.Println("\nrefused", p)
			continue
		}
		// Every column through every reader: each reads or errs.
		ctx := context.Background()
		for _, c := range f.Columns() {
			f.Strings(ctx, c)
			f.Floats(ctx, c)
			f.StringLists(ctx, c)
			f.FloatLists(ctx, c)
		}
		fmt.Println("\nread", p)
	}
	fmt.Println("done", len(paths))
}

func refusal(out []byte) string {
	for _, l := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(l, "refused: ") {
			return l
		}
	}
	return ""
}

func clipOutput(b []byte) string {
	if len(b) > 3000 {
		b = b[:3000]
	}
	return string(b)
}

// TestParquetTestingCorpus opens every file of apache/parquet-testing
// (data/ and bad_data/, ../shared/peercorpora) in one child process under
// the same memory cap: each is read or refused with an error naming it;
// none ends the process.
func TestParquetTestingCorpus(t *testing.T) {
	if os.Getenv("PARQUET_BOMB") != "" {
		t.Skip("child")
	}
	root := filepath.Join(sharedtest.PeerCorpora(t), "parquet-testing")
	var paths []string
	for _, sub := range []string{"data", "bad_data"} {
		m, _ := filepath.Glob(filepath.Join(root, sub, "*.parquet"))
		paths = append(paths, m...)
	}
	if len(paths) < 50 {
		t.Fatalf("only %d files under %s", len(paths), root)
	}
	list := filepath.Join(t.TempDir(), "list")
	if err := os.WriteFile(list, []byte(strings.Join(paths, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("/bin/sh", "-c", `ulimit -v 2097152 && exec "$0" -test.run '^TestBombChild$' -test.v`, os.Args[0])
	cmd.Env = append(os.Environ(), "PARQUET_BOMB=list:"+list, "GOMEMLIMIT=768MiB")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), fmt.Sprintf("done %d", len(paths))) {
		t.Fatalf("%v\n%s", err, clipOutput(out))
	}
	read := strings.Count(string(out), "\nread ")
	t.Logf("%d files: %d read, %d refused with an error naming the file", len(paths), read, len(paths)-read)
}
