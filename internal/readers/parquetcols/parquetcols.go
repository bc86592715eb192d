// Package parquetcols reads named columns of a Parquet file (as pandas and
// pyarrow write them: flat string and number columns, and list columns
// such as list<string> and list<float>) into Go slices, one value per row.
// It sits on parquet-go (github.com/parquet-go/parquet-go), the maintained
// successor of segmentio's reader, without Arrow's dependency tree. The
// file is read whole from memory after its size was checked; a malformed
// file gets an error naming the column, never a panic.
package parquetcols

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// MaxRows bounds the rows one file may declare.
const MaxRows = 50_000_000

// File is an opened Parquet file.
type File struct {
	f    *parquet.File
	name string
}

// Open parses the footer and schema of a Parquet file held in memory.
func Open(name string, b []byte) (f *File, err error) {
	defer func() {
		if r := recover(); r != nil {
			f, err = nil, fmt.Errorf("%s: malformed parquet: %v", name, r)
		}
	}()
	if len(b) < 12 || !bytes.Equal(b[:4], []byte("PAR1")) || !bytes.Equal(b[len(b)-4:], []byte("PAR1")) {
		return nil, fmt.Errorf("%s: not a parquet file, or truncated (no PAR1 magic at both ends)", name)
	}
	// parquet-go allocates the footer length the file's last 8 bytes claim
	// before it checks that the file holds that much (found by fuzzing: a
	// 12-byte file claiming a 3.6 GB footer).
	if n := int64(binary.LittleEndian.Uint32(b[len(b)-8:])); n > int64(len(b))-12 {
		return nil, fmt.Errorf("%s: the footer claims %d bytes, the file holds %d: truncated or forged", name, n, len(b))
	}
	if err := checkFooter(b); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	pf, err := parquet.OpenFile(bytes.NewReader(b), int64(len(b)), parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if n := pf.NumRows(); n < 0 || n > MaxRows {
		return nil, fmt.Errorf("%s: %d rows declared, limit %d", name, n, MaxRows)
	}
	if err := checkSizes(pf, int64(len(b))); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if err := checkPages(pf, b); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &File{f: pf, name: name}, nil
}

// maxExpansion bounds how much a column chunk may claim to grow when
// decompressed. Snappy and zstd on embeddings and text stay far below it; a
// footer claiming more would make the decoder allocate out of proportion
// to the file.
const maxExpansion = 256

// checkSizes refuses footers whose row counts or column chunk sizes cannot
// be true of a file of size bytes, before any page is decoded.
func checkSizes(pf *parquet.File, size int64) error {
	md := pf.Metadata()
	var rows int64
	for gi, rg := range md.RowGroups {
		if rg.NumRows < 0 || rg.NumRows > MaxRows {
			return fmt.Errorf("row group %d declares %d rows", gi, rg.NumRows)
		}
		rows += rg.NumRows
		for ci, cc := range rg.Columns {
			m := cc.MetaData
			if m.TotalCompressedSize < 0 || m.TotalCompressedSize > size || m.DataPageOffset < 0 || m.DataPageOffset >= size {
				return fmt.Errorf("row group %d column %d: chunk of %d bytes at offset %d does not fit a %d-byte file", gi, ci, m.TotalCompressedSize, m.DataPageOffset, size)
			}
			if m.TotalUncompressedSize < 0 || m.TotalUncompressedSize > maxExpansion*m.TotalCompressedSize+1<<20 {
				return fmt.Errorf("row group %d column %d: claims %d bytes uncompressed from %d", gi, ci, m.TotalUncompressedSize, m.TotalCompressedSize)
			}
			if m.NumValues < 0 || m.NumValues > m.TotalUncompressedSize*8+rg.NumRows+1 {
				return fmt.Errorf("row group %d column %d: %d values cannot fit %d bytes", gi, ci, m.NumValues, m.TotalUncompressedSize)
			}
		}
	}
	if rows != md.NumRows {
		return fmt.Errorf("row groups hold %d rows, the footer declares %d", rows, md.NumRows)
	}
	return nil
}

// maxPages bounds the pages of one column chunk.
const maxPages = 1 << 20

// checkPages walks every page header of every column chunk before
// parquet-go reads one: parquet-go allocates a page's compressed size from
// its header before reading it, so a forged header (found by fuzzing: 1.7
// GB claimed inside a 4 KB file) would make it allocate out of proportion
// to the file. Each page must lie inside its chunk, claim at most
// maxExpansion times its size uncompressed, and (data pages) no more values
// than its bytes can encode plus the row group's rows.
func checkPages(pf *parquet.File, b []byte) error {
	var proto thrift.CompactProtocol
	for gi, rg := range pf.Metadata().RowGroups {
		for ci, cc := range rg.Columns {
			m := cc.MetaData
			start := m.DataPageOffset
			if m.DictionaryPageOffset > 0 && m.DictionaryPageOffset < start {
				start = m.DictionaryPageOffset
			}
			end := start + m.TotalCompressedSize
			if start < 0 || end < start || end > int64(len(b)) {
				return fmt.Errorf("row group %d column %d: chunk [%d, %d) is outside the %d-byte file", gi, ci, start, end, len(b))
			}
			for pos, n := start, 0; pos < end; n++ {
				if n >= maxPages {
					return fmt.Errorf("row group %d column %d: more than %d pages", gi, ci, maxPages)
				}
				if _, err := skipThrift(b[pos:end]); err != nil {
					return fmt.Errorf("row group %d column %d: page header at offset %d: %v", gi, ci, pos, err)
				}
				r := proto.NewReaderFromBytes(b[pos:end])
				var h format.PageHeader
				if err := thrift.NewDecoder(r).Decode(&h); err != nil {
					return fmt.Errorf("row group %d column %d: page header at offset %d: %v", gi, ci, pos, err)
				}
				counted, ok := r.(interface{ BytesRead() int })
				if !ok {
					return errors.New("parquet-go's thrift reader no longer counts bytes: page headers cannot be checked")
				}
				pos += int64(counted.BytesRead())
				comp, uncomp := int64(h.CompressedPageSize), int64(h.UncompressedPageSize)
				if comp < 0 || pos+comp > end {
					return fmt.Errorf("row group %d column %d: page at offset %d claims %d bytes, past its chunk's end at %d", gi, ci, pos, comp, end)
				}
				if uncomp < 0 || uncomp > maxExpansion*comp+1<<20 {
					return fmt.Errorf("row group %d column %d: page at offset %d claims %d bytes uncompressed from %d", gi, ci, pos, uncomp, comp)
				}
				limit := uncomp*8 + rg.NumRows + 1
				if v := int64(h.DataPageHeader.V.NumValues); h.DataPageHeader.Valid && (v < 0 || v > limit) {
					return fmt.Errorf("row group %d column %d: page at offset %d claims %d values in %d bytes", gi, ci, pos, v, uncomp)
				}
				if v := int64(h.DataPageHeaderV2.V.NumValues); h.DataPageHeaderV2.Valid && (v < 0 || v > limit) {
					return fmt.Errorf("row group %d column %d: page at offset %d claims %d values in %d bytes", gi, ci, pos, v, uncomp)
				}
				if err := checkPageData(m.Codec, &h, b[pos:pos+comp]); err != nil {
					return fmt.Errorf("row group %d column %d: page at offset %d: %v", gi, ci, pos, err)
				}
				pos += comp
			}
		}
	}
	return nil
}

// Rows is the number of rows the footer declares.
func (f *File) Rows() int { return int(f.f.NumRows()) }

// Has says whether the file has a column of that top-level name.
func (f *File) Has(column string) bool {
	_, err := f.leaf(column)
	return err == nil
}

// Columns lists the top-level column names.
func (f *File) Columns() []string {
	var out []string
	for _, fl := range f.f.Schema().Fields() {
		out = append(out, fl.Name())
	}
	return out
}

func (f *File) leaf(column string) (int, error) {
	idx := -1
	for i, path := range f.f.Schema().Columns() {
		if len(path) > 0 && path[0] == column {
			if idx >= 0 {
				return 0, fmt.Errorf("%s: column %q is a nested group, not a flat or list column", f.name, column)
			}
			idx = i
		}
	}
	if idx < 0 {
		return 0, fmt.Errorf("%s: no column %q (have: %s)", f.name, column, strings.Join(f.Columns(), ", "))
	}
	return idx, nil
}

// each calls fn for every value of the column in row order; newRow says the
// value starts a row (repetition level 0).
func (f *File) each(ctx context.Context, column string, fn func(v parquet.Value, newRow bool) error) (err error) {
	idx, err := f.leaf(column)
	if err != nil {
		return err
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%s: column %q: malformed parquet: %v", f.name, column, r)
		}
	}()
	buf := make([]parquet.Value, 1024)
	for gi, rg := range f.f.RowGroups() {
		if err := ctx.Err(); err != nil {
			return err
		}
		chunks := rg.ColumnChunks()
		if idx >= len(chunks) {
			return fmt.Errorf("%s: row group %d has no chunk for column %q", f.name, gi, column)
		}
		pages := chunks[idx].Pages()
		for {
			p, err := pages.ReadPage()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				pages.Close()
				return fmt.Errorf("%s: column %q, row group %d: %w", f.name, column, gi, err)
			}
			vr := p.Values()
			for {
				n, err := vr.ReadValues(buf)
				for _, v := range buf[:n] {
					if e := fn(v, v.RepetitionLevel() == 0); e != nil {
						pages.Close()
						return e
					}
				}
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					pages.Close()
					return fmt.Errorf("%s: column %q, row group %d: %w", f.name, column, gi, err)
				}
				if n == 0 {
					break
				}
			}
			parquet.Release(p)
		}
		pages.Close()
	}
	return nil
}

func (f *File) checkRows(column string, n int) error {
	if n != f.Rows() {
		return fmt.Errorf("%s: column %q has %d rows, the footer declares %d", f.name, column, n, f.Rows())
	}
	return nil
}

func str(f *File, column string, row int, v parquet.Value) (string, error) {
	if v.Kind() != parquet.ByteArray && v.Kind() != parquet.FixedLenByteArray {
		return "", fmt.Errorf("%s: column %q row %d: %s value, want a string", f.name, column, row, v.Kind())
	}
	b := v.ByteArray()
	if !utf8.Valid(b) {
		return "", fmt.Errorf("%s: column %q row %d: invalid UTF-8", f.name, column, row)
	}
	return string(b), nil
}

func num(f *File, column string, row int, v parquet.Value) (float64, error) {
	var x float64
	switch v.Kind() {
	case parquet.Double:
		x = v.Double()
	case parquet.Float:
		x = float64(v.Float())
	case parquet.Int32:
		x = float64(v.Int32())
	case parquet.Int64:
		x = float64(v.Int64())
	default:
		return 0, fmt.Errorf("%s: column %q row %d: %s value, want a number", f.name, column, row, v.Kind())
	}
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return 0, fmt.Errorf("%s: column %q row %d: %v is not finite", f.name, column, row, x)
	}
	return x, nil
}

// Strings reads a flat string column ("" for null).
func (f *File) Strings(ctx context.Context, column string) ([]string, error) {
	out := make([]string, 0, f.Rows())
	err := f.each(ctx, column, func(v parquet.Value, newRow bool) error {
		if !newRow {
			return fmt.Errorf("%s: column %q is a list, want a flat string column", f.name, column)
		}
		if len(out) >= f.Rows() {
			return f.checkRows(column, len(out)+1)
		}
		if v.IsNull() {
			out = append(out, "")
			return nil
		}
		s, err := str(f, column, len(out), v)
		out = append(out, s)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, f.checkRows(column, len(out))
}

// Floats reads a flat numeric column (NaN for null is refused: 0).
func (f *File) Floats(ctx context.Context, column string) ([]float64, error) {
	out := make([]float64, 0, f.Rows())
	err := f.each(ctx, column, func(v parquet.Value, newRow bool) error {
		if !newRow {
			return fmt.Errorf("%s: column %q is a list, want a flat number column", f.name, column)
		}
		if len(out) >= f.Rows() {
			return f.checkRows(column, len(out)+1)
		}
		if v.IsNull() {
			out = append(out, 0)
			return nil
		}
		x, err := num(f, column, len(out), v)
		out = append(out, x)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, f.checkRows(column, len(out))
}

// list reads a list column, calling add for each non-null element.
func (f *File) list(ctx context.Context, column string, start func(), add func(row int, v parquet.Value) error) (int, error) {
	rows := 0
	err := f.each(ctx, column, func(v parquet.Value, newRow bool) error {
		if newRow {
			if rows >= f.Rows() {
				return f.checkRows(column, rows+1)
			}
			rows++
			start()
		}
		if v.IsNull() {
			return nil
		}
		return add(rows-1, v)
	})
	if err != nil {
		return 0, err
	}
	return rows, f.checkRows(column, rows)
}

// StringLists reads a list<string> column (an empty or null list is nil).
func (f *File) StringLists(ctx context.Context, column string) ([][]string, error) {
	out := make([][]string, 0, f.Rows())
	_, err := f.list(ctx, column, func() { out = append(out, nil) }, func(row int, v parquet.Value) error {
		s, err := str(f, column, row, v)
		out[row] = append(out[row], s)
		return err
	})
	return out, err
}

// FloatLists reads a list<float> or list<double> column as float32 (what
// embedding models emit).
func (f *File) FloatLists(ctx context.Context, column string) ([][]float32, error) {
	out := make([][]float32, 0, f.Rows())
	_, err := f.list(ctx, column, func() { out = append(out, nil) }, func(row int, v parquet.Value) error {
		x, err := num(f, column, row, v)
		out[row] = append(out[row], float32(x))
		return err
	})
	return out, err
}
