package main

import (
	"fmt"
	"io"

	"github.com/memscope/memscope/inspect"
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
// coverage labels mean; nothing when every row is covered.
func writeCoverageNote[T any](w io.Writer, table string, rows []T, label func(T) string) {
	for _, r := range rows {
		if l := label(r); l != "" {
			fmt.Fprintf(w, "  (%s)\n", inspect.UnsignedNote(table, l))
			return
		}
	}
}
