package watch

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/memscope/memscope/evidence"
	"github.com/memscope/memscope/verify"
)

// stateVersion is the state file's format version.
const stateVersion = 1

// maxStateSize bounds a state file: it holds one checkpoint, a few counters
// and the events of at most one round.
const maxStateSize = 16 << 20

// State is what a monitor keeps between rounds for one log, as certspotter
// and rekor-monitor do: the last checkpoint it verified and nothing it
// could recompute. It is written atomically (a temporary file in the same
// directory, synced, renamed over the old one, and the directory synced),
// so a kill at any moment leaves either the old state or the new one.
type State struct {
	Version int `json:"version"`
	// Log is the log's location as given, for messages; Origin its
	// checkpoint origin line.
	Log    string `json:"log"`
	Origin string `json:"origin,omitempty"`
	// Size, Root and Checkpoint are the last checkpoint the monitor
	// verified (log signature, consistency with the one before).
	Size       uint64 `json:"size"`
	Root       []byte `json:"root,omitempty"`
	Checkpoint string `json:"checkpoint,omitempty"`
	// QuorumMet is the witness quorum at the last round with a policy
	// (nil before the first such round).
	QuorumMet *bool `json:"quorum_met,omitempty"`
	// Round counts completed rounds.
	Round uint64 `json:"round"`
	// Seq is the sequence number of the last event emitted.
	Seq uint64 `json:"seq"`
	// Alerted holds the ids of standing error conditions already reported
	// (a fork at a size and root, a rollback to a size): a condition that
	// persists is reported once, not every round.
	Alerted []string `json:"alerted,omitempty"`
	// Suspect holds the ids of transient-looking findings (a record not
	// yet in the log, a leaf whose row is not yet committed) seen at the
	// last round: reported if the next round still sees them.
	Suspect []string `json:"suspect,omitempty"`
	// Pending are the events of a round whose new state was written but
	// whose events were not yet all delivered; the next run delivers them
	// first, so a kill between the two loses none.
	Pending []Event `json:"pending,omitempty"`
	// Snapshot is what the monitor keeps of a snapshot between rounds
	// (the stored queries' last selections), when --snapshot is given.
	Snapshot *SnapshotState `json:"snapshot,omitempty"`
}

// SnapshotState is the per-snapshot memory of a monitor.
type SnapshotState struct {
	// Diverged names the stored queries whose G and G_auth selections
	// differed at the last round, so a flip is reported once.
	Diverged []string `json:"diverged,omitempty"`
	// Marks are, per table, the largest seq whose row a round has
	// checked: the next round reads the rows past them (and the rows the
	// new leaves name) instead of the whole store. Absent before the
	// first round with the snapshot, which checks the whole store.
	Marks verify.Marks `json:"marks,omitempty"`
}

// LoadState reads a state file; a missing file is a new, empty state.
func LoadState(path string) (*State, error) {
	// Regular files only: a FIFO named as the state would block the open.
	f, err := evidence.OpenRegular(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &State{Version: stateVersion}, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	raw, err := io.ReadAll(io.LimitReader(f, maxStateSize+1))
	if err != nil {
		return nil, fmt.Errorf("state %s: %w", path, err)
	}
	if len(raw) > maxStateSize {
		return nil, fmt.Errorf("state %s: over %d bytes: not a memscope watch state", path, maxStateSize)
	}
	var s State
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("state %s: %w", path, err)
	}
	if s.Version != stateVersion {
		return nil, fmt.Errorf("state %s: version %d, this memscope reads version %d", path, s.Version, stateVersion)
	}
	return &s, nil
}

// SaveState writes the state atomically.
func SaveState(path string, s *State) error {
	raw, err := json.MarshalIndent(s, "", " ")
	if err != nil {
		return err
	}
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("state %s: %w", path, err)
	}
	name := tmp.Name()
	defer os.Remove(name) // after a successful rename this finds nothing
	if _, err := tmp.Write(append(raw, '\n')); err != nil {
		tmp.Close()
		return fmt.Errorf("state %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("state %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("state %s: %w", path, err)
	}
	if err := os.Rename(name, path); err != nil {
		return fmt.Errorf("state %s: %w", path, err)
	}
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

func (s *State) alerted(id string) bool {
	for _, a := range s.Alerted {
		if a == id {
			return true
		}
	}
	return false
}
