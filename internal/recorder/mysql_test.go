package recorder_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "github.com/go-sql-driver/mysql"
	"github.com/transparency-dev/tessera/api"
	"github.com/transparency-dev/tessera/api/layout"
	"github.com/transparency-dev/tessera/storage/mysql"
)

// startMariaDB starts Debian's mariadb-server on a loopback port with a
// fresh data directory (grant tables skipped: the test's own server) and
// returns the DSN of an empty database with tessera's schema applied.
func startMariaDB(t *testing.T) string {
	t.Helper()
	bin := "/usr/sbin/mariadbd"
	install, _ := exec.LookPath("mariadb-install-db")
	if _, err := os.Stat(bin); err != nil || install == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("mariadb-server is not installed (.ci/services.sh installs it)")
		}
		t.Skip("skipping: mariadb-server not installed (run .ci/services.sh)")
	}
	data := t.TempDir()
	if out, err := exec.Command(install, "--no-defaults", "--datadir="+data, "--user=root", "--auth-root-authentication-method=normal", "--skip-test-db").CombinedOutput(); err != nil {
		t.Fatalf("mariadb-install-db: %v\n%s", err, out)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command(bin, "--no-defaults", "--datadir="+data, "--socket="+filepath.Join(data, "sock"), "--port="+fmt.Sprint(port),
		"--bind-address=127.0.0.1", "--user=root", "--skip-grant-tables", "--skip-log-bin")
	var log bytes.Buffer
	cmd.Stderr = &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	root := fmt.Sprintf("root@tcp(127.0.0.1:%d)/", port)
	db, err := sql.Open("mysql", root+"?multiStatements=true")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	deadline := time.Now().Add(60 * time.Second)
	for db.Ping() != nil {
		if time.Now().After(deadline) {
			t.Fatalf("mariadbd did not start:\n%s", log.String())
		}
		time.Sleep(200 * time.Millisecond)
	}
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/transparency-dev/tessera").Output()
	if err != nil {
		t.Fatal(err)
	}
	schema, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(out)), "storage", "mysql", "schema.sql"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("CREATE DATABASE tessera; USE tessera; " + string(schema)); err != nil {
		t.Fatalf("applying tessera's schema.sql: %v", err)
	}
	return root + "tessera"
}

// serveMySQLLog serves a MySQL-kept log as tlog-tiles over HTTP, the way a
// fleet's read front end would, so memscope reads it with --log URL.
func serveMySQLLog(t *testing.T, dsn string) string {
	t.Helper()
	db, err := sql.Open("mysql", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	st, err := mysql.New(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		p := strings.TrimPrefix(r.URL.Path, "/")
		var body []byte
		var err error
		switch {
		case p == "checkpoint":
			body, err = st.ReadCheckpoint(ctx)
		case strings.HasPrefix(p, "tile/entries/"):
			var idx uint64
			var w8 uint8
			if idx, w8, err = layout.ParseTileIndexPartial(strings.TrimPrefix(p, "tile/entries/")); err == nil {
				if body, err = st.ReadEntryBundle(ctx, idx, w8); err == nil && w8 > 0 {
					body, err = truncateBundle(body, int(w8))
				}
			}
		case strings.HasPrefix(p, "tile/"):
			level, rest, _ := strings.Cut(strings.TrimPrefix(p, "tile/"), "/")
			var l, idx uint64
			var w8 uint8
			if l, idx, w8, err = layout.ParseTileLevelIndexPartial(level, rest); err == nil {
				if body, err = st.ReadTile(ctx, l, idx, w8); err == nil && w8 > 0 && len(body) > int(w8)*32 {
					body = body[:int(w8)*32]
				}
			}
		default:
			err = os.ErrNotExist
		}
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				http.NotFound(w, r)
				return
			}
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// truncateBundle keeps an entry bundle's first n leaves (the partial
// resource tlog-tiles names).
func truncateBundle(b []byte, n int) ([]byte, error) {
	var eb api.EntryBundle
	if err := eb.UnmarshalText(b); err != nil {
		return nil, err
	}
	if len(eb.Entries) < n {
		return nil, os.ErrNotExist
	}
	var out []byte
	for _, e := range eb.Entries[:n] {
		out = binary.BigEndian.AppendUint16(out, uint16(len(e)))
		out = append(out, e...)
	}
	return out, nil
}

// TestMySQLLogStorage records through the gateway with the log in
// Debian's MariaDB via tessera's MySQL driver, restarts on it, and
// verifies the store with the log read over HTTP from the same database.
func TestMySQLLogStorage(t *testing.T) {
	dsn := startMariaDB(t)
	memscope, _, _ := bins(t)
	notes := filepath.Join(filepath.Dir(memscope), "notes")
	dir := t.TempDir()
	store := filepath.Join(dir, "store")
	logStorage := "mysql://" + dsn
	if out, err := exec.Command(memscope, "record", "init", store, "--log-storage", logStorage).CombinedOutput(); err != nil {
		t.Fatalf("record init --log-storage: %v\n%s", err, out)
	}
	cfg := filepath.Join(dir, "notes.json")
	if err := os.WriteFile(cfg, []byte(fmt.Sprintf(`{"servers":[{"name":"notes","command":[%q],"role":"memory","mapping":{"writes":[{"tool":"remember","content":"text","id":"id"}]}}]}`, notes)), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for session := 0; session < 2; session++ { // the second run resumes the MySQL log
		cs, _ := connectArgs(t, ctx, memscope, "record", "--store", store, "--config", cfg, "--log-storage", logStorage)
		for i := 0; i < 20; i++ {
			call(t, ctx, cs, "remember", map[string]any{"text": fmt.Sprintf("note %d of session %d", i, session)})
		}
		cs.Close()
	}
	url := serveMySQLLog(t, dsn)
	out, code := memscopeRun(t, memscope, "verify", filepath.Join(store, "snapshot.db"), "--log", url, "--log-key", filepath.Join(store, "log.vkey"), "--trust", filepath.Join(store, "trust.keys"))
	if code != 0 || !strings.Contains(out, "entries                 40/40") {
		t.Fatalf("verify with the log read from MariaDB over HTTP: exit %d\n%s", code, out)
	}
}
