package parquetcols

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memscope/memscope/internal/generators/hostile"
	"github.com/memscope/memscope/internal/sharedtest"
)

func bombs(t testing.TB) map[string][]byte {
	t.Helper()
	b, err := hostile.ParquetBombs()
	if err != nil {
		t.Fatal(err)
	}
	return b
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

// skipThrift measures every fixture's footer exactly as long as the file
// says it is (the thrift walk agrees with parquet-go's decoder).
func TestSkipThriftMeasuresFooters(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"relationships.parquet", "entities.parquet", "text_units.parquet"} {
		b, err := os.ReadFile(filepath.Join("../../../testdata/graphrag/clean/output", name))
		if err != nil {
			t.Fatal(err)
		}
		n := int(binary.LittleEndian.Uint32(b[len(b)-8:]))
		got, err := skipThrift(b[len(b)-8-n : len(b)-8])
		if err != nil || got != n {
			t.Errorf("%s: %d, %v; footer is %d bytes", name, got, err, n)
		}
	}
}
