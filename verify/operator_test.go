package verify_test

import (
	"crypto/ed25519"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/memscope/memscope/evidence"
	"github.com/memscope/memscope/evidence/record"
	"github.com/memscope/memscope/evidence/seedgen"
	"github.com/memscope/memscope/internal/evidencetest"
	"github.com/memscope/memscope/internal/generators/scenario"
	"github.com/memscope/memscope/internal/generators/scenario/scenariocache"
	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/verify"
)

// The store's own rows (meta, checkpoints, vectors) are covered by the
// operator's signatures on a generated store, and only verified meta
// values reach Report.Config.
func TestOperatorCoverage(t *testing.T) {
	t.Parallel()
	rep := baseline(t, "mwp")
	for _, table := range []string{verify.TableMeta, verify.TableCheckpoints, verify.TableVectors} {
		if l := rep.TableLabel(table); l != "" {
			t.Errorf("%s: %q on a signed store", table, l)
		}
	}
	if v, ok := rep.ConfigValue("gate_mediated_since"); !ok || v == "" {
		t.Errorf("gate_mediated_since not in the verified configuration: %q %v", v, ok)
	}
	if l := rep.Label(verify.TableCheckpoints, "checkpoint 1"); l != "" {
		t.Errorf("checkpoint 1 labelled %q", l)
	}
	var none *verify.Report
	if _, ok := none.ConfigValue("format"); ok {
		t.Error("a nil report verified a meta value")
	}
}

// An unsigned meta row inserted in a store whose operator signs its meta
// is ROW_UNSIGNED and decides nothing; an edited one fails verification.
func TestMetaRowsInsertedAndEdited(t *testing.T) {
	t.Parallel()
	dir := mutableCopy(t, "mwp")
	withDB(t, dir, func(db *sql.DB) {
		exec(t, db, "INSERT INTO meta(key, value) VALUES ('extra', 'x')")
		exec(t, db, "UPDATE meta SET value = '1' WHERE key = 'gate_mediated_since'")
	})
	rep := runScenario(t, dir)
	hasCode := func(code finding.Code, subject string) {
		t.Helper()
		for _, f := range rep.Findings {
			if f.Code == code && f.Subject == subject {
				return
			}
		}
		t.Errorf("no %s on %s: %+v", code, subject, rep.Findings)
	}
	hasCode(finding.RowUnsigned, "config extra")
	hasCode(finding.ColumnMismatch, "config gate_mediated_since")
	if _, ok := rep.ConfigValue("gate_mediated_since"); ok {
		t.Error("an edited meta value is in the verified configuration")
	}
	if l := rep.Label(verify.TableMeta, "gate_mediated_since"); l != verify.LabelFailed {
		t.Errorf("edited value labelled %q", l)
	}
	if l := rep.Label(verify.TableMeta, "extra"); l != verify.LabelUnsigned {
		t.Errorf("inserted value labelled %q", l)
	}
}

// A meta value signed by a principal on the unauthenticated channel has
// no authority over the store: OPERATOR_NO_AUTHORITY.
func TestOperatorNeedsAuthority(t *testing.T) {
	t.Parallel()
	dir := mutableCopy(t, "tombstone")
	key := seedgen.New(1, "scenario").Key("external:wiki")
	withDB(t, dir, func(db *sql.DB) {
		reencode(t, db, "meta", "key", "description", record.DecodeConfig, func(c *record.Config) {
			c.Writer, c.KID = "external:wiki", record.KeyIDOf(key.Public().(ed25519.PublicKey))
			if err := record.Sign(c, key); err != nil {
				t.Fatal(err)
			}
		})
	})
	hasFinding(t, dir, finding.OperatorNoAuthority, "config description")
}

// A meta value rolled back to an earlier signed revision (the incident's
// first phase snapshot holds an earlier store_version) is caught: the log
// holds a later revision no row claims.
func TestMetaRollback(t *testing.T) {
	t.Parallel()
	sc := evidencetest.CopyTree(t, filepath.Join(scenariocache.Dir(t, 1), "incident"))
	old, err := sql.Open("sqlite", "file:"+filepath.Join(sc, scenario.IncidentPhaseFile(0))+"?mode=ro&immutable=1")
	if err != nil {
		t.Fatal(err)
	}
	var value string
	var leaf int64
	var raw []byte
	if err := old.QueryRow("SELECT value, leaf_index, record FROM meta WHERE key = 'store_version'").Scan(&value, &leaf, &raw); err != nil {
		t.Fatal(err)
	}
	old.Close()
	// (The incident's silent deletion is an error of its own, about an
	// entry; only the meta row's finding is looked for.)
	if rep := runScenario(t, sc); len(rep.Findings) == 0 || !containsSubject(rep, "entry") {
		t.Fatalf("incident without its silent deletion: %+v", rep.Findings)
	}
	if _, ok := runScenario(t, sc).ConfigValue("store_version"); !ok {
		t.Fatal("store_version not verified before the rollback")
	}
	db, err := sql.Open("sqlite", "file:"+filepath.Join(sc, evidence.SnapshotFile))
	if err != nil {
		t.Fatal(err)
	}
	exec(t, db, "UPDATE meta SET value = ?, leaf_index = ?, record = ? WHERE key = 'store_version'", value, leaf, raw)
	db.Close()
	rep := runScenario(t, sc)
	found := false
	for _, f := range rep.Findings {
		found = found || (f.Code == finding.LeafWithoutRecord && f.Subject == "config store_version")
	}
	if !found {
		t.Errorf("rolled-back store_version not caught: %+v", rep.Findings)
	}
	if _, ok := rep.ConfigValue("store_version"); ok {
		t.Error("a rolled-back value is in the verified configuration")
	}
}

func containsSubject(rep *verify.Report, word string) bool {
	for _, f := range rep.Findings {
		if len(f.Subject) > len(word) && f.Subject[:len(word)+1] == word+" " {
			return true
		}
	}
	return false
}
