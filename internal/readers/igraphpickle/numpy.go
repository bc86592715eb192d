package igraphpickle

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/nlpodyssey/gopickle/types"
)

// npString is a numpy.str_ scalar (HippoRAG 2's entity content comes from
// np.unique and pickles as one); npFloat is a numpy float scalar (synonym
// edge weights are numpy similarity scores).
type (
	npString string
	npFloat  float64
)

// dtype is a numpy.dtype of one of the kinds igraph pickles carry here:
// U<n> (UTF-32 code units), f4 or f8.
type dtype struct {
	kind   byte // 'U' or 'f'
	size   int  // bytes per code unit (U: 4) or per value (f: 4 or 8)
	big    bool // byte order '>'
	stated bool
}

type dtypeClass struct{}

// Call is numpy.dtype(name, align, copy) as numpy's dtype.__reduce__ pickles it.
func (dtypeClass) Call(args ...any) (any, error) {
	if len(args) != 3 {
		return nil, fmt.Errorf("numpy.dtype: want 3 arguments, got %d", len(args))
	}
	name, ok := args[0].(string)
	if !ok {
		return nil, fmt.Errorf("numpy.dtype: name is %s, want a string", describe(args[0]))
	}
	switch {
	case name == "f8":
		return &dtype{kind: 'f', size: 8}, nil
	case name == "f4":
		return &dtype{kind: 'f', size: 4}, nil
	case strings.HasPrefix(name, "U") && len(name) > 1 && len(name) < 12 && strings.Trim(name[1:], "0123456789") == "":
		return &dtype{kind: 'U', size: 4}, nil
	}
	return nil, fmt.Errorf("numpy.dtype \"%s\" is not a string (U) or float (f4, f8) dtype", clip(name))
}

// PySetState takes numpy's dtype state tuple (version, byte order, ...);
// only the byte order matters for decoding.
func (d *dtype) PySetState(state any) error {
	t, ok := state.(*types.Tuple)
	if !ok || t.Len() < 2 {
		return fmt.Errorf("numpy.dtype: state is %s, want numpy's state tuple", describe(state))
	}
	switch t.Get(1) {
	case "<", "|", "=":
	case ">":
		d.big = true
	default:
		return fmt.Errorf("numpy.dtype: byte order %s is not <, >, = or |", describe(t.Get(1)))
	}
	d.stated = true
	return nil
}

type scalarFunc struct{}

// Call is numpy.core.multiarray.scalar(dtype, data): the value's raw bytes.
func (scalarFunc) Call(args ...any) (any, error) {
	if len(args) != 2 {
		return nil, fmt.Errorf("numpy scalar: want 2 arguments (dtype, bytes), got %d", len(args))
	}
	d, ok := args[0].(*dtype)
	if !ok {
		return nil, fmt.Errorf("numpy scalar: dtype is %s", describe(args[0]))
	}
	var raw []byte
	switch b := args[1].(type) {
	case []byte:
		raw = b
	case string: // protocol 2 pickles bytes as latin-1 text
		raw = []byte(b)
	default:
		return nil, fmt.Errorf("numpy scalar: data is %s, want bytes", describe(args[1]))
	}
	var order binary.ByteOrder = binary.LittleEndian
	if d.big {
		order = binary.BigEndian
	}
	switch d.kind {
	case 'f':
		if len(raw) != d.size {
			return nil, fmt.Errorf("numpy scalar: float of %d bytes for dtype f%d", len(raw), d.size)
		}
		if d.size == 4 {
			return npFloat(math.Float32frombits(order.Uint32(raw))), nil
		}
		return npFloat(math.Float64frombits(order.Uint64(raw))), nil
	}
	if len(raw)%4 != 0 {
		return nil, fmt.Errorf("numpy str_: %d bytes is not a whole number of UTF-32 code units", len(raw))
	}
	// numpy pads a str_ with NUL code units; the value ends at the first one
	// of the padding.
	raw = bytes.TrimRight(raw, "\x00")
	for len(raw)%4 != 0 {
		raw = append(raw, 0)
	}
	var sb strings.Builder
	for i := 0; i < len(raw); i += 4 {
		r := rune(order.Uint32(raw[i:]))
		if !utf8.ValidRune(r) {
			return nil, fmt.Errorf("numpy str_: code unit %d (0x%x) is not a Unicode scalar value", i/4, uint32(r))
		}
		sb.WriteRune(r)
	}
	return npString(sb.String()), nil
}
