package watch

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/memscope/memscope/evidence"
)

// maxFleetSize bounds a fleet file (a line or so per tenant).
const maxFleetSize = 64 << 20

// Tenant is one log of a fleet file. Relative paths are relative to the
// fleet file's directory.
type Tenant struct {
	Name          string `json:"name"`
	Log           string `json:"log"`
	LogKey        string `json:"log_key"`
	Trust         string `json:"trust,omitempty"`
	Snapshot      string `json:"snapshot,omitempty"`
	State         string `json:"state"`
	WitnessPolicy string `json:"witness_policy,omitempty"`
}

// ReadFleet reads a fleet file: a JSON array of tenants, or one tenant
// object per line (JSON Lines). Names must be unique and non-empty, and
// so must state paths: two tenants sharing a state file would corrupt it.
func ReadFleet(path string) ([]Tenant, error) {
	// Regular files only: a FIFO named as the fleet would block the open.
	f, err := evidence.OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	raw, err := io.ReadAll(io.LimitReader(f, maxFleetSize+1))
	if err != nil {
		return nil, fmt.Errorf("fleet %s: %w", path, err)
	}
	if len(raw) > maxFleetSize {
		return nil, fmt.Errorf("fleet %s: over %d bytes", path, maxFleetSize)
	}
	var ts []Tenant
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		dec := json.NewDecoder(bytes.NewReader(trimmed))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&ts); err != nil {
			return nil, fmt.Errorf("fleet %s: %w", path, err)
		}
	} else {
		for i, line := range strings.Split(string(raw), "\n") {
			if strings.TrimSpace(line) == "" {
				continue
			}
			var t Tenant
			dec := json.NewDecoder(strings.NewReader(line))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&t); err != nil {
				return nil, fmt.Errorf("fleet %s line %d: %w", path, i+1, err)
			}
			ts = append(ts, t)
		}
	}
	if len(ts) == 0 {
		// A fleet of none would watch nothing and exit 0 as if every log
		// were fine: an empty or truncated file is a mistake to say.
		return nil, fmt.Errorf("fleet %s: no tenants", path)
	}
	base := filepath.Dir(path)
	names, states := map[string]bool{}, map[string]string{}
	for i := range ts {
		t := &ts[i]
		if t.Name == "" || t.Log == "" || t.LogKey == "" || t.State == "" {
			return nil, fmt.Errorf("fleet %s: tenant %d (%q): name, log, log_key and state are required", path, i+1, t.Name)
		}
		if names[t.Name] {
			return nil, fmt.Errorf("fleet %s: tenant name %q twice", path, t.Name)
		}
		names[t.Name] = true
		for _, p := range []*string{&t.Log, &t.Trust, &t.Snapshot, &t.State, &t.WitnessPolicy} {
			if *p != "" && !strings.Contains(*p, "://") && !filepath.IsAbs(*p) {
				*p = filepath.Join(base, *p)
			}
		}
		if other, ok := states[t.State]; ok {
			return nil, fmt.Errorf("fleet %s: tenants %q and %q share the state file %s", path, other, t.Name, t.State)
		}
		states[t.State] = t.Name
	}
	sort.Slice(ts, func(i, j int) bool { return ts[i].Name < ts[j].Name })
	return ts, nil
}

// Shard returns the tenants shard i of n watches: those at positions
// i, i+n, i+2n... of the fleet sorted by name. Every tenant falls in
// exactly one shard, shards differ in size by at most one, and every
// process that reads the same fleet file computes the same split, so an
// Indexed Job needs no coordinator.
func Shard(ts []Tenant, i, n int) []Tenant {
	var out []Tenant
	for k := i; k < len(ts); k += n {
		out = append(out, ts[k])
	}
	return out
}

// ParseShard parses "I/N" (0 <= I < N). An empty spec takes Kubernetes
// Indexed Jobs' JOB_COMPLETION_INDEX and the job's completions, passed as
// JOB_COMPLETIONS (the downward API does not expose the count, so the
// manifest in docs/WATCH.md sets it); with neither it is 0/1.
func ParseShard(spec string, getenv func(string) string) (i, n int, err error) {
	if spec == "" {
		idx, cnt := getenv("JOB_COMPLETION_INDEX"), getenv("JOB_COMPLETIONS")
		if idx == "" && cnt == "" {
			return 0, 1, nil
		}
		if idx == "" || cnt == "" {
			return 0, 0, fmt.Errorf("JOB_COMPLETION_INDEX=%q and JOB_COMPLETIONS=%q: set both, or give --shard I/N", idx, cnt)
		}
		spec = idx + "/" + cnt
	}
	a, b, ok := strings.Cut(spec, "/")
	if ok {
		i, err = strconv.Atoi(a)
		if err == nil {
			n, err = strconv.Atoi(b)
		}
	}
	if !ok || err != nil || n < 1 || i < 0 || i >= n {
		return 0, 0, fmt.Errorf("shard %q: want I/N with 0 <= I < N", spec)
	}
	return i, n, nil
}
