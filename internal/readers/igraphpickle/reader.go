package igraphpickle

import "bytes"

// newReader gives gopickle the reader it wants (io.Reader plus ReadByte).
func newReader(b []byte) *bytes.Reader { return bytes.NewReader(b) }
