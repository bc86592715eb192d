// Package evidence names the layout of an evidence directory as memscope's
// generators (scenario, importer) write it: the snapshot, the log, the
// anchor files and scenario.json, the manifest that says how to verify it
// and what a responder should find. It is a leaf package so that readers
// can find evidence without linking the code that writes it.
package evidence

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Manifest is scenario.json: what other tools need to drive a scenario.
type Manifest struct {
	Name             string   `json:"name"`
	Description      string   `json:"description"`
	Snapshot         string   `json:"snapshot"`
	Log              string   `json:"log"`
	Anchors          Anchors  `json:"anchors"`
	HMACKeyFile      string   `json:"hmac_key_file,omitempty"`
	ExpectedFindings []string `json:"expected_findings"`
	VerifyArgs       []string `json:"verify_args"`
	// Expect says in a sentence what a responder should find.
	Expect string  `json:"expect"`
	Attack *Attack `json:"attack,omitempty"`
	// ExpectedActions gives, per action, the decision each defence should
	// reach (memscope actions with VerifyArgs' anchors and the HMAC key
	// when the scenario has one), keyed none, ifc, memlineage, authselect,
	// smsr.
	ExpectedActions map[string]map[string]string `json:"expected_actions,omitempty"`
	// Phases lists the per-phase snapshots of a phased scenario, oldest
	// first; the last one is Snapshot.
	Phases []Phase `json:"phases,omitempty"`
	Seed   uint64  `json:"seed"`
}

// Anchors are the public trust anchors of a scenario.
type Anchors struct {
	LogKey string   `json:"log_key"`
	Trust  []string `json:"trust"` // registry root public keys, hex
}

// Attack names the attacked query and the injected structural writes.
type Attack struct {
	Query string   `json:"query"`
	Edges []string `json:"edges"`
	// FirstWrite is the structural write after which the attacked query's
	// selection on G first differs from G_auth's (found by replaying after
	// every write while generating), with its log leaf.
	FirstWrite     string `json:"first_write,omitempty"`
	FirstWriteLeaf *int64 `json:"first_write_leaf,omitempty"`
}

// Phase is one snapshot of a store written in phases, with what the phase
// did to the store.
type Phase struct {
	Name     string `json:"name"`
	Snapshot string `json:"snapshot"`
	LogSize  uint64 `json:"log_size"`
	// Added lists the records the phase added, by table (entries, writes,
	// principals, tombstones, queries, actions).
	Added map[string][]string `json:"added"`
	// Tombstoned are entries the phase deleted with a tombstone;
	// SilentlyDeleted are entries whose rows it removed without one.
	Tombstoned      []string `json:"tombstoned"`
	SilentlyDeleted []string `json:"silently_deleted"`
}

// Files inside an evidence directory (as memscope demo and import write
// them).
const (
	SnapshotFile = "snapshot.db"
	LogDir       = "log"
	ManifestFile = "scenario.json"
	HMACKeyFile  = "hmac.key"
	TrustFile    = "trust.keys"
	LogKeyFile   = "log.vkey"
)

// maxManifestBytes bounds the manifest read: it is a few kilobytes, and a
// directory handed to memscope may hold anything under that name.
const maxManifestBytes = 16 << 20

// ReadManifest loads dir's manifest.
func ReadManifest(dir string) (*Manifest, error) {
	path := filepath.Join(dir, ManifestFile)
	b, err := ReadFile(path, maxManifestBytes)
	if err != nil {
		return nil, err
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &m, nil
}

// OpenFile opens a file the user named (anchors, keys, a gate policy, a
// queries or import file) read-only, refusing what is not a regular file (a
// FIFO blocks and a device never ends) and anything over max bytes before a
// byte of it is read. Callers still read at most max bytes: a file can grow.
// Errors name the file.
func OpenFile(path string, max int64) (*os.File, error) {
	f, st, err := openRegular(path)
	if err != nil {
		return nil, err
	}
	if st.Size() > max {
		f.Close()
		return nil, &TooLargeError{Name: path, Size: st.Size(), Max: max}
	}
	return f, nil
}

// ReadFile reads a file the user named whole, with OpenFile's checks.
func ReadFile(path string, max int64) ([]byte, error) {
	f, err := OpenFile(path, max)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if int64(len(b)) > max {
		return nil, &TooLargeError{Name: path, Max: max} // it grew while read
	}
	return b, nil
}
