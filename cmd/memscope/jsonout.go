package main

import (
	"io"

	"github.com/memscope/memscope/internal/present/jsonout"
)

// writeJSON prints v with memscope's one JSON encoder (package jsonout).
func writeJSON(w io.Writer, v any) error { return jsonout.Write(w, v) }
