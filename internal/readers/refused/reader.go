package refused

import (
	"context"
	"fmt"

	"github.com/memscope/memscope/internal/readers/storemodel"
)

// Format is what the registry calls the stores this package recognises:
// opening one is the refusal naming its real format (every command exits 2).
const Format storemodel.Format = "unsupported"

// Reader registers the recognised-but-unread formats, last, so that a
// store memscope reads is never taken for one of them.
var Reader = storemodel.Reader{
	Format: Format, Name: "a store memscope recognises but does not read", Looks: Looks,
	Open: open,
}

// open refuses the recognised store at path; a path that is none of them
// is refused too (Refuse alone returns nil there).
func open(_ context.Context, path string) (*storemodel.Store, error) {
	if err := Refuse(path); err != nil {
		return nil, err
	}
	return nil, fmt.Errorf("%s: not a store of a format memscope recognises", path)
}

// Looks says whether path itself (a file, or a directory holding one) is
// a recognised format; the registry's own search looks further down.
func Looks(path string) bool {
	_, ok := Detect(path)
	return ok
}
