package main

import (
	"errors"
	"os"
	"path/filepath"

	"github.com/memscope/memscope/evidence"
	stores "github.com/memscope/memscope/internal/readers"
	"github.com/memscope/memscope/loader"
)

// nativeOrSnapshot tells a native store (true) from what may be a memscope
// snapshot (false), and refuses at once what can be neither, with the
// reason: a path that does not exist, a directory (memscope's own
// evidence directory, or a folder holding no store memscope reads, or
// several), or a file that is neither a store memscope reads nor SQLite.
// Without this, such a path fell through to the snapshot's flags and the
// responder read "--log is required" about a typo or a folder of two
// stores.
func nativeOrSnapshot(cmd, path string) (bool, error) {
	if _, ok := stores.Detect(path); ok {
		return true, nil
	}
	return false, notSnapshot(cmd, path)
}

// notSnapshot is nil when path may be a memscope snapshot (a regular file
// that starts as SQLite does; the loader's own checks follow), and says
// why not otherwise.
func notSnapshot(cmd, path string) error {
	st, err := os.Stat(path)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return usagef("%s: %v", path, err)
	}
	if st.IsDir() {
		if _, err := os.Stat(filepath.Join(path, "snapshot.db")); err == nil {
			return usagef("%s is a memscope evidence directory: name its snapshot and log, with the log key and trust roots from a copy you trust (the ones beside the evidence are the evidence's own): memscope %s %s --log %s --log-key VKEY --trust KEYS",
				path, cmd, filepath.Join(path, "snapshot.db"), filepath.Join(path, "log"))
		}
		_, rerr := stores.Resolve(path)
		return usagef("%v", rerr)
	}
	if !st.Mode().IsRegular() {
		return usagef("%s: not a regular file (%s)", path, evidence.FileKind(st.Mode()))
	}
	if !loader.IsSQLiteFile(path) {
		_, rerr := stores.Resolve(path)
		return usagef("%v; nor is it a memscope snapshot (not a SQLite database)", rerr)
	}
	return nil
}

// storeOrSnapshot is nativeOrSnapshot for a command with --format: a
// named format reads path as that store.
func storeOrSnapshot(cmd, format, path string) (bool, error) {
	if format != "" {
		return true, nil
	}
	return nativeOrSnapshot(cmd, path)
}
