package parquetcols

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// A page header that claims more bytes than its chunk holds is refused
// before parquet-go reads the page (it would allocate the claimed size
// first). The header is rewritten with the same thrift encoding, in a
// fixture written by parquet-go.
func TestForgedPageSizeRefused(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(fixture)
	if err != nil {
		t.Fatal(err)
	}
	pf, err := Open(fixture, b)
	if err != nil {
		t.Fatal(err)
	}
	m := pf.f.Metadata().RowGroups[0].Columns[0].MetaData
	start := m.DataPageOffset
	if m.DictionaryPageOffset > 0 && m.DictionaryPageOffset < start {
		start = m.DictionaryPageOffset
	}
	var proto thrift.CompactProtocol
	r := proto.NewReaderFromBytes(b[start:])
	var h format.PageHeader
	if err := thrift.NewDecoder(r).Decode(&h); err != nil {
		t.Fatal(err)
	}
	n := r.(interface{ BytesRead() int }).BytesRead()
	for _, forge := range []func(*format.PageHeader){
		func(h *format.PageHeader) { h.CompressedPageSize = 0x641bad2d },
		func(h *format.PageHeader) { h.UncompressedPageSize = 0x7fff0000 },
	} {
		fh := h
		forge(&fh)
		var buf bytes.Buffer
		if err := thrift.NewEncoder(proto.NewWriter(&buf)).Encode(&fh); err != nil {
			t.Fatal(err)
		}
		forged := append(append(append([]byte(nil), b[:start]...), buf.Bytes()...), b[int(start)+n:]...)
		if len(forged) != len(b) {
			// A longer varint shifts the chunk; the walk must still refuse it.
			t.Logf("header grew by %d bytes", len(forged)-len(b))
		}
		if _, err := Open("forged.parquet", forged); err == nil || !strings.Contains(err.Error(), "forged.parquet") {
			t.Errorf("forged header accepted: %v", err)
		}
	}
}

// A footer length past the start of the file is refused before parquet-go
// allocates it.
func TestForgedFooterLengthRefused(t *testing.T) {
	t.Parallel()
	for _, b := range [][]byte{
		[]byte("PAR1\x15\x06\x15\xd8PAR1"),
		append([]byte("PAR1"), append(bytes.Repeat([]byte{0}, 64), []byte("\xff\xff\xff\x7fPAR1")...)...),
	} {
		if _, err := Open("forged.parquet", b); err == nil || !strings.Contains(err.Error(), "footer claims") {
			t.Errorf("%q: %v", b, err)
		}
	}
}
