package hostile

import (
	"bytes"
	"encoding/binary"
	"errors"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/snappy"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// forgingCodec writes pages whose compressed bytes are forge(src) under a
// codec's name: parquet-go's writer records the honest uncompressed size
// in each page header, so the forgery is in the compressed stream only.
type forgingCodec struct {
	codec format.CompressionCodec
	forge func(src []byte) []byte
}

func (c forgingCodec) String() string                            { return c.codec.String() }
func (c forgingCodec) CompressionCodec() format.CompressionCodec { return c.codec }
func (c forgingCodec) Encode(_, src []byte) ([]byte, error)      { return c.forge(src), nil }
func (c forgingCodec) Decode(_, _ []byte) ([]byte, error) {
	return nil, errors.New("a forging codec only writes")
}

type bombRow struct {
	Title string `parquet:"title"`
}

func writeForged(codec forgingCodec) ([]byte, error) {
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[bombRow](&buf, parquet.Compression(codec))
	if _, err := w.Write([]bombRow{{"SARAH CANARY"}}); err != nil {
		return nil, err
	}
	err := w.Close()
	return buf.Bytes(), err
}

func wrapFooter(footer []byte) []byte {
	b := append([]byte("PAR1"), footer...)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(footer)))
	return append(b, "PAR1"...)
}

// ParquetBombs are parquet files that end a reader trusting their sizes
// in "fatal error: out of memory" (issue 23 item 13), by name: a Snappy
// page whose preamble claims 4 GiB, a 3 MB gzip page inflating 1000x, a
// footer schema nesting 100,000 groups, and a footer of thrift structs
// nested ten million deep.
func ParquetBombs() (map[string][]byte, error) {
	out := map[string][]byte{}
	var err error
	out["snappy-4GiB"], err = writeForged(forgingCodec{format.Snappy, func(src []byte) []byte {
		enc := snappy.Encode(nil, src)
		_, n := binary.Uvarint(enc)
		return append(binary.AppendUvarint(nil, 1<<32-16), enc[n:]...)
	}})
	if err != nil {
		return nil, err
	}
	// 3,000 gzip members of 1 MiB of zeros each: gzip readers read them all.
	var member bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&member, gzip.BestCompression)
	zw.Write(make([]byte, 1<<20))
	zw.Close()
	out["gzip-1000x"], err = writeForged(forgingCodec{format.Gzip, func([]byte) []byte {
		return bytes.Repeat(member.Bytes(), 3000)
	}})
	if err != nil {
		return nil, err
	}
	schema := []format.SchemaElement{{Name: "schema", NumChildren: thrift.New(int32(1))}}
	for i := 0; i < 100_000; i++ {
		schema = append(schema, format.SchemaElement{Name: "g", NumChildren: thrift.New(int32(1)), RepetitionType: thrift.New(format.Optional)})
	}
	schema = append(schema, format.SchemaElement{Name: "leaf", Type: thrift.New(format.Int32), RepetitionType: thrift.New(format.Optional)})
	footer, err := thrift.Marshal(new(thrift.CompactProtocol), &format.FileMetaData{Version: 1, Schema: schema})
	if err != nil {
		return nil, err
	}
	out["schema-100000-deep"] = wrapFooter(footer)
	// 0x1c: a struct field (id delta 1), ten million times.
	out["thrift-nesting"] = wrapFooter(append(bytes.Repeat([]byte{0x1c}, 10_000_000), 0))
	return out, nil
}
