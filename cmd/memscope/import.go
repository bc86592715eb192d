package main

import (
	"context"
	"errors"
	"io"
)

// runImport is replaced by the importer's command (in progress).
func runImport(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	return exitUsage, errors.New("import is not built yet")
}
