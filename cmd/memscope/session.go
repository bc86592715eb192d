package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/memscope/memscope/internal/assemble"
	"github.com/memscope/memscope/internal/present/sanitize"
)

// evidenceFlags are shared by the commands that analyse a snapshot.
type evidenceFlags struct {
	anchorFlags
	log string
}

func (e *evidenceFlags) register(fs *flag.FlagSet) {
	e.anchorFlags.register(fs)
	fs.StringVar(&e.log, "log", "", "the Merkle log: a tlog-tiles directory or an http(s) URL serving one")
}

// open loads a snapshot for analysis with the given options filled in.
func (e *evidenceFlags) open(ctx context.Context, snapshot string, opts assemble.Options) (*assemble.Session, error) {
	s, err := e.openSmall(ctx, snapshot, opts)
	if err != nil {
		return nil, err
	}
	if err := s.Load(ctx, nil); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// openSmall opens a snapshot and reads its small tables, without loading
// the entries (replay's provenance pass reads only those it needs).
func (e *evidenceFlags) openSmall(ctx context.Context, snapshot string, opts assemble.Options) (*assemble.Session, error) {
	an, err := e.resolveFor(snapshot, e.log)
	if err != nil {
		return nil, err
	}
	opts.Snapshot, opts.Log, opts.AnchorSources = snapshot, e.log, an.Sources
	opts.DeferEntries = true // the CLI reads Entries only after Load
	opts.LogKey, opts.TrustRoots, opts.HMACKey, opts.LogOptions = an.LogKey, an.Roots, an.HMAC, an.Log
	return assemble.Open(ctx, opts)
}

// warnLoadIssues prints what could not be read (refused tables, malformed
// rows) on stderr, sanitised, so that a partial analysis never looks like a
// complete one; it returns exitFindings when there was any, else code.
func warnLoadIssues(stderr io.Writer, s *assemble.Session, code int) int {
	for _, issue := range s.LoadIssues {
		fmt.Fprintf(stderr, "memscope: warning: not analysed: %s\n", sanitize.Line(issue))
	}
	if len(s.LoadIssues) > 0 && code == exitOK {
		return exitFindings
	}
	return code
}
