package stores

// The formats of issue 25 item 4 (Mem0's vector stores, the MCP memory
// server, LlamaIndex) and the recognised-but-refused ones, wired into the
// detection above until the reader registry replaces it.

import (
	"context"

	"github.com/memscope/memscope/internal/readers/llamaindex"
	"github.com/memscope/memscope/internal/readers/mcpmem"
	"github.com/memscope/memscope/internal/readers/mem0vec"
	"github.com/memscope/memscope/internal/readers/refused"
	"github.com/memscope/memscope/internal/readers/storemodel"
)

// refusedFormat is the detected "format" of a store memscope recognises
// and refuses: opening it is the refusal (exit 2, naming the format).
const refusedFormat storemodel.Format = "refused"

var newFormats = []storemodel.Format{mem0vec.Format, mcpmem.Format, llamaindex.Format}

func detectNew(path string) (storemodel.Format, bool) {
	switch {
	case mem0vec.Looks(path):
		return mem0vec.Format, true
	case llamaindex.Looks(path):
		return llamaindex.Format, true
	case mcpmem.Looks(path):
		return mcpmem.Format, true
	}
	if _, ok := refused.Detect(path); ok {
		return refusedFormat, true
	}
	return "", false
}

func openNew(f storemodel.Format) (func(context.Context, string) (*storemodel.Store, error), bool) {
	switch f {
	case mem0vec.Format:
		return mem0vec.Open, true
	case mcpmem.Format:
		return mcpmem.Open, true
	case llamaindex.Format:
		return llamaindex.Open, true
	case refusedFormat:
		return func(_ context.Context, path string) (*storemodel.Store, error) { return nil, refused.Refuse(path) }, true
	}
	return nil, false
}
