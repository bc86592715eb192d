package parquetcols

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/snappy"
	"github.com/klauspost/compress/zstd"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
	"github.com/pierrec/lz4/v4"
)

// parquet-go (v0.32) trusts sizes it reads from the file: its Snappy codec
// allocates whatever length a page's Snappy preamble claims, its gzip
// codec inflates until the stream ends, its thrift decoder recurses once
// per nested struct, and building a schema costs the square of its depth.
// None of that can be bounded through its options, so every footer and
// page is checked here, from the file's bytes, before parquet-go decodes
// it: thrift nesting, schema depth and size, and each compressed page
// decompressed through a bounded reader (with the library parquet-go uses,
// klauspost/compress, so both read the same stream) and compared with the
// size its header claims. Nothing is vendored.
const (
	maxThriftDepth = 64        // FileMetaData nests 6 deep, a PageHeader 4
	maxSchemaDepth = 64        // pandas' list<list<float>> is 4 deep
	maxSchemaNodes = 1 << 20   // columns and groups of one file
	maxPageBytes   = 256 << 20 // one page, decompressed
	zstdSlack      = 16 << 20
)

// thriftLevel is one open container of a thrift value being skipped.
type thriftLevel struct {
	list     bool
	left     int64 // list/set/map: elements left
	elemType byte  // list/set element type; map: key<<4|value
	isMap    bool
	keyNext  bool
}

// thriftWalker skips thrift compact-protocol values with an explicit
// stack instead of recursion.
type thriftWalker struct {
	b     []byte
	pos   int
	stack []thriftLevel
}

func (w *thriftWalker) byteAt() (byte, error) {
	if w.pos >= len(w.b) {
		return 0, io.ErrUnexpectedEOF
	}
	w.pos++
	return w.b[w.pos-1], nil
}

func (w *thriftWalker) varint() (uint64, error) {
	v, n := binary.Uvarint(w.b[w.pos:])
	if n <= 0 {
		return 0, errors.New("thrift: bad varint")
	}
	w.pos += n
	return v, nil
}

// length reads a container length, which cannot exceed the data left.
func (w *thriftWalker) length(v uint64) (int64, error) {
	if v > uint64(len(w.b)) {
		return 0, errors.New("thrift: a container longer than the data")
	}
	return int64(v), nil
}

// value skips one value of type t, opening containers on the stack.
func (w *thriftWalker) value(t byte) error {
	var err error
	switch t {
	case 1, 2: // bool in a struct field header: no payload
	case 3:
		_, err = w.byteAt()
	case 4, 5, 6:
		_, err = w.varint()
	case 7:
		if w.pos+8 > len(w.b) {
			return io.ErrUnexpectedEOF
		}
		w.pos += 8
	case 8:
		var n uint64
		if n, err = w.varint(); err == nil {
			if n > uint64(len(w.b)-w.pos) {
				return io.ErrUnexpectedEOF
			}
			w.pos += int(n)
		}
	case 9, 10:
		var h byte
		if h, err = w.byteAt(); err != nil {
			return err
		}
		n := int64(h >> 4)
		if n == 15 {
			v, err := w.varint()
			if err != nil {
				return err
			}
			if n, err = w.length(v); err != nil {
				return err
			}
		}
		w.stack = append(w.stack, thriftLevel{list: true, left: n, elemType: h & 0x0f})
	case 11:
		v, err := w.varint()
		if err != nil {
			return err
		}
		n, err := w.length(v)
		if err != nil {
			return err
		}
		var kv byte
		if n > 0 {
			if kv, err = w.byteAt(); err != nil {
				return err
			}
		}
		w.stack = append(w.stack, thriftLevel{list: true, isMap: true, left: n * 2, elemType: kv, keyNext: true})
	case 12:
		w.stack = append(w.stack, thriftLevel{})
	default:
		return fmt.Errorf("thrift: unknown type %d", t)
	}
	if err != nil {
		return err
	}
	if len(w.stack) > maxThriftDepth {
		return fmt.Errorf("thrift: structures nest deeper than %d", maxThriftDepth)
	}
	return nil
}

// element skips the next element of the open container top.
func (w *thriftWalker) element(top *thriftLevel) error {
	top.left--
	t := top.elemType
	if top.isMap {
		if top.keyNext {
			t = top.elemType >> 4
		} else {
			t = top.elemType & 0x0f
		}
		top.keyNext = !top.keyNext
	}
	if t == 1 || t == 2 { // a bool element is one byte
		_, err := w.byteAt()
		return err
	}
	return w.value(t)
}

// skipThrift walks one thrift compact-protocol struct without recursion,
// refusing nesting deeper than maxThriftDepth, and returns its length.
func skipThrift(b []byte) (int, error) {
	w := &thriftWalker{b: b, stack: []thriftLevel{{}}}
	for len(w.stack) > 0 {
		top := &w.stack[len(w.stack)-1]
		if top.list {
			if top.left == 0 {
				w.stack = w.stack[:len(w.stack)-1]
				continue
			}
			if err := w.element(top); err != nil {
				return 0, err
			}
			continue
		}
		h, err := w.byteAt()
		if err != nil {
			return 0, err
		}
		if h == 0 { // STOP
			w.stack = w.stack[:len(w.stack)-1]
			continue
		}
		if h>>4 == 0 { // a long-form field id follows
			if _, err := w.varint(); err != nil {
				return 0, err
			}
		}
		if err := w.value(h & 0x0f); err != nil {
			return 0, err
		}
	}
	return w.pos, nil
}

// checkFooter refuses a footer whose thrift nests too deep or whose schema
// is too deep or too large, before parquet-go builds anything from it.
func checkFooter(b []byte) error {
	n := int64(binary.LittleEndian.Uint32(b[len(b)-8:]))
	footer := b[int64(len(b))-8-n : len(b)-8]
	if _, err := skipThrift(footer); err != nil {
		return fmt.Errorf("footer: %w", err)
	}
	var md format.FileMetaData
	if err := thrift.Unmarshal(new(thrift.CompactProtocol), footer, &md); err != nil {
		return fmt.Errorf("footer: %w", err)
	}
	if len(md.Schema) > maxSchemaNodes {
		return fmt.Errorf("footer: the schema has %d elements, limit %d", len(md.Schema), maxSchemaNodes)
	}
	// The schema is a depth-first list: each group is followed by its
	// num_children subtrees. Walk it with a stack of children left.
	var left []int64
	for i, el := range md.Schema {
		for len(left) > 0 && left[len(left)-1] == 0 {
			left = left[:len(left)-1]
		}
		if i > 0 {
			if len(left) == 0 {
				return fmt.Errorf("footer: schema element %d lies outside the root", i)
			}
			left[len(left)-1]--
		}
		if c := int64(el.NumChildren.V); el.NumChildren.Valid && c > 0 {
			if c > int64(len(md.Schema)) {
				return fmt.Errorf("footer: schema element %d claims %d children", i, c)
			}
			left = append(left, c)
			if len(left) > maxSchemaDepth {
				return fmt.Errorf("footer: the schema nests deeper than %d", maxSchemaDepth)
			}
		} else if i == 0 {
			left = append(left, 0)
		}
	}
	return nil
}

// checkPageData decompresses one page's data through a bounded reader and
// refuses it unless it yields exactly the size its header claims.
func checkPageData(codec format.CompressionCodec, h *format.PageHeader, data []byte) error {
	uncomp := int64(h.UncompressedPageSize)
	if uncomp > maxPageBytes {
		return fmt.Errorf("claims %d bytes decompressed, over the %d-byte page limit", uncomp, maxPageBytes)
	}
	if h.DataPageHeaderV2.Valid {
		v2 := h.DataPageHeaderV2.V
		levels := int64(v2.RepetitionLevelsByteLength) + int64(v2.DefinitionLevelsByteLength)
		if levels < 0 || levels > int64(len(data)) || levels > uncomp {
			return fmt.Errorf("levels of %d bytes do not fit the page", levels)
		}
		if !v2.IsCompressed.Valid || v2.IsCompressed.V {
			data, uncomp = data[levels:], uncomp-levels
		} else {
			codec = format.Uncompressed
		}
	}
	if len(data) == 0 && uncomp == 0 {
		return nil // an empty page (pyarrow writes them for empty V2 pages)
	}
	var got int64
	switch codec {
	case format.Uncompressed:
		return nil
	case format.Lz4Raw, format.Lz4:
		// parquet-go's LZ4 codec doubles its buffer on any error, without
		// end: a corrupt block must never reach it.
		out := make([]byte, uncomp)
		n, err := lz4.UncompressBlock(data, out)
		if err != nil {
			return fmt.Errorf("lz4: %w (decompressed into the %d bytes its header claims)", err, uncomp)
		}
		got = int64(n)
	case format.Brotli:
		n, err := io.Copy(io.Discard, io.LimitReader(brotli.NewReader(bytes.NewReader(data)), uncomp+1))
		if err != nil {
			return fmt.Errorf("brotli: %w", err)
		}
		got = n
	case format.Snappy:
		n, err := snappy.DecodedLen(data)
		if err != nil {
			return fmt.Errorf("snappy: %w", err)
		}
		got = int64(n)
	case format.Gzip:
		r, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			return fmt.Errorf("gzip: %w", err)
		}
		if got, err = io.Copy(io.Discard, io.LimitReader(r, uncomp+1)); err != nil {
			return fmt.Errorf("gzip: %w", err)
		}
	case format.Zstd:
		// The limit bounds both the frame's declared content size (which
		// parquet-go's DecodeAll allocates up front) and its window; the
		// slack admits a writer's window larger than a small page.
		d, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(uint64(uncomp)+zstdSlack))
		if err != nil {
			return err
		}
		defer d.Close()
		out, err := d.DecodeAll(data, nil)
		if err != nil {
			return fmt.Errorf("zstd: %w", err)
		}
		got = int64(len(out))
	default:
		return fmt.Errorf("compression %s is not checked by memscope; refused", codec)
	}
	if got != uncomp {
		return fmt.Errorf("decompresses to %d bytes or more, its header claims %d", got, uncomp)
	}
	return nil
}
