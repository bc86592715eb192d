package main

import (
	"fmt"
	"io"

	"github.com/memscope/memscope/internal/assemble"
)

// bracket is a coverage label as text outputs print it beside a value:
// " [unsigned]", " [not checked]", or nothing for a covered row.
func bracket(label string) string {
	if label == "" {
		return ""
	}
	return " [" + label + "]"
}

// writeCoverageNote prints, once above rows of one table, what their
// coverage labels mean, once per label present; nothing when every row is
// covered.
func writeCoverageNote[T any](w io.Writer, table string, rows []T, label func(T) string) {
	seen := map[string]bool{}
	for _, r := range rows {
		if l := label(r); l != "" && !seen[l] {
			seen[l] = true
			fmt.Fprintf(w, "  (%s)\n", assemble.UnsignedNote(table, l))
		}
	}
}
