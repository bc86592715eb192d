package verify_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/memscope/memscope/evidence"
	"github.com/memscope/memscope/evidence/record"
	"github.com/memscope/memscope/evidence/tlog"
	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/verify"
)

// splitBundleServer serves a log directory over a real loopback HTTP
// server, except that from the request number swapFrom on (1-based) the
// entry bundle at path is answered with swapped instead of its bytes. It
// counts the requests for path.
type splitBundleServer struct {
	path     string
	swapped  []byte
	swapFrom int
	mu       sync.Mutex
	requests int
}

func (s *splitBundleServer) handler(dir string) http.Handler {
	files := http.FileServer(http.Dir(dir))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.TrimPrefix(r.URL.Path, "/") != s.path {
			files.ServeHTTP(w, r)
			return
		}
		s.mu.Lock()
		s.requests++
		n := s.requests
		s.mu.Unlock()
		if n >= s.swapFrom {
			w.Write(s.swapped)
			return
		}
		files.ServeHTTP(w, r)
	})
}

// hiddenDeletion builds the attack of issue 23 item 1 on the tombstone
// scenario: an entry row is deleted without a tombstone (its leaf is an
// orphan, LEAF_WITHOUT_RECORD from a directory), and the swapped bundle
// puts the tombstoned entry's record leaf where the orphan's was, so that a
// reader of the swapped bytes sees no orphan.
func hiddenDeletion(t *testing.T) (dir, bundlePath string, swapped []byte) {
	t.Helper()
	dir = mutableCopy(t, "tombstone")
	var victim, tombstoned string
	withDB(t, dir, func(db *sql.DB) {
		if err := db.QueryRow("SELECT target FROM tombstones ORDER BY seq LIMIT 1").Scan(&tombstoned); err != nil {
			t.Fatal(err)
		}
		q := "SELECT eid FROM entries ORDER BY seq DESC LIMIT 1"
		if err := db.QueryRow(q).Scan(&victim); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		exec(t, db, "DELETE FROM entries WHERE eid = ?", victim)
	})
	bundles, _ := filepath.Glob(filepath.Join(dir, evidence.LogDir, "tile", "entries", "*.p", "*"))
	if len(bundles) != 1 {
		t.Fatalf("want one partial entry bundle, found %v", bundles)
	}
	raw, err := os.ReadFile(bundles[0])
	if err != nil {
		t.Fatal(err)
	}
	var leaves [][]byte
	for off := 0; off < len(raw); {
		n := int(binary.BigEndian.Uint16(raw[off:]))
		leaves = append(leaves, raw[off+2:off+2+n])
		off += 2 + n
	}
	idOf := func(l []byte) string {
		pl, err := record.ParseLeaf(l)
		if err != nil || pl.Kind != record.LeafRecord {
			return ""
		}
		return pl.ID.String()
	}
	vi := slices.IndexFunc(leaves, func(l []byte) bool { return idOf(l) == victim })
	ti := slices.IndexFunc(leaves, func(l []byte) bool { return idOf(l) == tombstoned })
	if vi < 0 || ti < 0 {
		t.Fatalf("record leaves of %s (%d) and %s (%d) not found", victim, vi, tombstoned, ti)
	}
	leaves[vi] = leaves[ti]
	var out bytes.Buffer
	for _, l := range leaves {
		out.Write(binary.BigEndian.AppendUint16(nil, uint16(len(l))))
		out.Write(l)
	}
	rel, _ := filepath.Rel(filepath.Join(dir, evidence.LogDir), bundles[0])
	return dir, filepath.ToSlash(rel), out.Bytes()
}

// runOnce verifies once: the servers here answer by request count, so a
// second verification would see another log.
func runOnce(t *testing.T, opts verify.Options) *verify.Report {
	t.Helper()
	rep, err := verify.Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func codeSubjects(rep *verify.Report) []string {
	var out []string
	for _, f := range rep.Findings {
		out = append(out, string(f.Code)+" "+f.Subject)
	}
	return out
}

// TestHTTPLogLeavesAreTheHashedLeaves: over HTTP, the leaves verify scans
// are the bytes the tree check hashed. The server answers the bundle
// honestly to the first two reads (the presence check and the tree check)
// and with the doctored bundle afterwards: a reader that fetches the bundle
// a third time for its leaf scan sees no orphan and passes a silent
// deletion. Verify must conclude what it concludes from the directory.
func TestHTTPLogLeavesAreTheHashedLeaves(t *testing.T) {
	dir, path, swapped := hiddenDeletion(t)
	opts := scenarioOptions(t, dir)
	fromDir := runOptions(t, opts)
	if !slices.ContainsFunc(fromDir.Findings, func(f finding.Finding) bool { return f.Code == "LEAF_WITHOUT_RECORD" }) {
		t.Fatalf("from the directory, the deletion is not LEAF_WITHOUT_RECORD: %v", codeSubjects(fromDir))
	}
	srv := &splitBundleServer{path: path, swapped: swapped, swapFrom: 3}
	ts := httptest.NewServer(srv.handler(filepath.Join(dir, evidence.LogDir)))
	defer ts.Close()
	opts.Log = ts.URL
	overHTTP := runOnce(t, opts)
	if got, want := codeSubjects(overHTTP), codeSubjects(fromDir); !slices.Equal(got, want) {
		t.Errorf("over HTTP verify found\n  %v\nfrom the directory\n  %v", got, want)
	}
	if overHTTP.OK {
		t.Error("verify over HTTP passed a silent deletion")
	}
}

// TestHTTPLogSplitViewIsAFinding: a server that answers a second read of
// the same bundle with other bytes is itself a finding, LOG_SPLIT_VIEW,
// naming the bundle.
func TestHTTPLogSplitViewIsAFinding(t *testing.T) {
	dir, path, swapped := hiddenDeletion(t)
	opts := scenarioOptions(t, dir)
	srv := &splitBundleServer{path: path, swapped: swapped, swapFrom: 2}
	ts := httptest.NewServer(srv.handler(filepath.Join(dir, evidence.LogDir)))
	defer ts.Close()
	opts.Log = ts.URL
	rep := runOnce(t, opts)
	if !slices.Contains(codeSubjects(rep), "LOG_SPLIT_VIEW "+path) {
		t.Errorf("no LOG_SPLIT_VIEW for %s: %v", path, codeSubjects(rep))
	}
	if rep.OK {
		t.Error("a split view passed")
	}
}

// A log server that answers every request slowly, inside every
// per-request limit, cannot hold verify past the command's deadline: Run
// refuses to conclude (the CLI exits 2) instead of passing late (issue 23
// item 15).
func TestHTTPLogDeadlineRefuses(t *testing.T) {
	t.Parallel()
	dir := pristine(t, "clean")
	opts := scenarioOptions(t, dir)
	files := http.FileServer(http.Dir(filepath.Join(dir, evidence.LogDir)))
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(150 * time.Millisecond):
		case <-r.Context().Done():
			return
		}
		files.ServeHTTP(w, r)
	}))
	defer ts.Close()
	opts.Log = ts.URL
	opts.LogOptions.Deadline = time.Now().Add(400 * time.Millisecond)
	start := time.Now()
	rep, err := verify.Run(context.Background(), opts)
	if !errors.Is(err, tlog.ErrDeadline) {
		t.Errorf("verify past the deadline: %v (report ok %v)", err, rep != nil && rep.OK)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the deadline did not stop verify: %v", d)
	}
}
