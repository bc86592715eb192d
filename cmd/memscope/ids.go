package main

import (
	"iter"

	"github.com/memscope/memscope/internal/assemble"
	"github.com/memscope/memscope/internal/present/idform"
)

// The CLI takes every id form the inspector shows: the full id, a unique
// prefix or tail, or the short form head…tail (package idform).

func entryIDs(s *assemble.Session) iter.Seq[string] {
	return func(yield func(string) bool) {
		for i := range s.HeldEntries() {
			if !yield(s.EntryAt(i).ID) {
				return
			}
		}
	}
}

func writeIDs(s *assemble.Session) iter.Seq[string] {
	return func(yield func(string) bool) {
		for i := range s.WriteCount() {
			if !yield(s.WriteID(i)) {
				return
			}
		}
	}
}

func queryIDs(s *assemble.Session) iter.Seq[string] {
	return func(yield func(string) bool) {
		for _, q := range s.ReplayQueries() {
			if !yield(q.ID) {
				return
			}
		}
	}
}

// resolveAll resolves each form of a list against ids.
func resolveAll(ids iter.Seq[string], forms []string) ([]string, error) {
	out := make([]string, len(forms))
	for i, f := range forms {
		id, err := idform.Resolve(ids, f)
		if err != nil {
			return nil, err
		}
		out[i] = id
	}
	return out, nil
}
