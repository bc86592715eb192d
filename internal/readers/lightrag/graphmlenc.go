package lightrag

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/memscope/memscope/internal/present/finding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/transform"
)

// networkx's read_graphml parses with xml.etree.ElementTree, that is with
// expat (Python 3.11's pyexpat, expat 2.5), which takes a document's
// encoding from its first bytes and its XML declaration (xmltok.c,
// initScan and XmlParseXmlDecl; pyexpat.c, PyUnknownEncodingHandler):
//
//   - FE FF or FF FE (a UTF-16 byte order mark), or 00 3C or 3C 00 (a
//     "<" in UTF-16) make the document UTF-16 of that byte order; EF BB
//     BF (a UTF-8 mark) is dropped; anything else is 8-bit, UTF-8 until
//     the declaration says otherwise.
//   - The declaration's encoding, compared without case: UTF-16 fits a
//     UTF-16 document, UTF-16LE and UTF-16BE one of that byte order;
//     UTF-8, ISO-8859-1 and US-ASCII fit an 8-bit one (and switch to it);
//     a mismatch is expat's "encoding specified in XML declaration is
//     incorrect".
//   - Any other name is looked up among Python's codecs: unknown is a
//     LookupError, a multi-byte codec a ValueError ("multi-byte encodings
//     are not supported"), a single-byte one decodes an 8-bit document
//     (a UTF-16 one is then not well-formed).
//
// graphmlText follows these rules, so a graph file saved again in UTF-16
// (by a Windows tool) is read as LightRAG reads it, and one networkx
// cannot read is refused with expat's reason. Of Python's single-byte
// codecs it knows the common ones (pySingleByte); another is refused,
// naming it. TestGraphMLEncodingsAsNetworkx compares the rules with
// networkx on 84 pairings of a declaration and an encoding of the bytes.

// maxDeclScan is how much of the document's start is read to find the
// XML declaration (which must come first).
const maxDeclScan = 4096

var declEncoding = regexp.MustCompile(`^<\?xml[ \t\r\n][^?]*?encoding[ \t\r\n]*=[ \t\r\n]*(?:"([^"]*)"|'([^']*)')`)

// pySingleByte are Python codec names (after its normalisation: lower
// case, "-" and " " as "_") of single-byte codecs, with x/text's charmap
// of the same table (TestSingleByteCodecsAsPython compares every byte).
var pySingleByte = map[string]*charmap.Charmap{
	"latin_1": charmap.ISO8859_1, "latin1": charmap.ISO8859_1, "l1": charmap.ISO8859_1, "iso8859_1": charmap.ISO8859_1, "iso_8859_1": charmap.ISO8859_1, "8859": charmap.ISO8859_1, "cp819": charmap.ISO8859_1,
	"cp1252": charmap.Windows1252, "windows_1252": charmap.Windows1252,
	"cp1250": charmap.Windows1250, "windows_1250": charmap.Windows1250,
	"cp1251": charmap.Windows1251, "windows_1251": charmap.Windows1251,
	"iso8859_15": charmap.ISO8859_15, "iso_8859_15": charmap.ISO8859_15, "latin9": charmap.ISO8859_15, "l9": charmap.ISO8859_15,
	"iso8859_2": charmap.ISO8859_2, "iso_8859_2": charmap.ISO8859_2, "latin2": charmap.ISO8859_2, "l2": charmap.ISO8859_2,
	"koi8_r": charmap.KOI8R, // not koi8_u: x/text's (WHATWG's) differs from Python's (RFC 2319) at 0xAE and 0xBE
}

// pyUndefined are the bytes Python's codec of that table does not decode
// (its cp125x leave them out where x/text's tables map them to C1
// controls): expat finds them not well-formed.
var pyUndefined = map[*charmap.Charmap]string{
	charmap.Windows1252: "\x81\x8d\x8f\x90\x9d",
	charmap.Windows1250: "\x81\x83\x88\x90\x98",
	charmap.Windows1251: "\x98",
}

// singleByte decodes one of pySingleByte's tables as Python's codec does.
type singleByte struct {
	cm        *charmap.Charmap
	undefined string
	transform.NopResetter
}

func (d singleByte) Transform(dst, src []byte, atEOF bool) (nDst, nSrc int, err error) {
	for nSrc < len(src) {
		c := src[nSrc]
		if strings.IndexByte(d.undefined, c) >= 0 {
			return nDst, nSrc, fmt.Errorf("byte 0x%02x has no character in this encoding (Python's codec refuses it): expat finds it not well-formed, so networkx cannot read it", c)
		}
		r := d.cm.DecodeByte(c)
		if r == utf8.RuneError && c >= 0x80 && c <= 0x9f {
			r = rune(c) // Python's ISO 8859 tables keep the C1 controls, x/text's do not
		}
		if nDst+utf8.RuneLen(r) > len(dst) {
			return nDst, nSrc, transform.ErrShortDst
		}
		nDst += utf8.EncodeRune(dst[nDst:], r)
		nSrc++
	}
	return nDst, nSrc, nil
}

// pyMultiByte are Python codec names of multi-byte codecs, which pyexpat
// refuses.
var pyMultiByte = map[string]bool{
	"shift_jis": true, "sjis": true, "cp932": true, "euc_jp": true, "iso2022_jp": true, "gbk": true, "gb2312": true, "gb18030": true,
	"big5": true, "cp950": true, "euc_kr": true, "cp949": true, "utf_32": true, "utf_32_le": true, "utf_32_be": true, "utf_7": true, "utf_8_sig": true,
}

// graphmlText returns r as the UTF-8 text expat reads from it, and the
// encoding it read it in.
func graphmlText(r io.Reader) (io.Reader, string, error) {
	br := bufio.NewReaderSize(r, maxDeclScan)
	head, err := br.Peek(maxDeclScan)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return nil, "", err
	}
	wide, order := "", unicode.BigEndian
	bom := unicode.IgnoreBOM
	switch {
	case bytes.HasPrefix(head, []byte{0xFE, 0xFF}):
		wide, bom = "UTF-16BE", unicode.ExpectBOM
	case bytes.HasPrefix(head, []byte{0xFF, 0xFE}):
		wide, order, bom = "UTF-16LE", unicode.LittleEndian, unicode.ExpectBOM
	case bytes.HasPrefix(head, []byte{0, '<'}):
		wide = "UTF-16BE"
	case bytes.HasPrefix(head, []byte{'<', 0}):
		wide, order = "UTF-16LE", unicode.LittleEndian
	case bytes.HasPrefix(head, []byte{0xEF, 0xBB, 0xBF}):
		br.Discard(3)
		head = head[3:]
	}
	if wide != "" {
		// The declaration is read in the document's own encoding.
		dec := unicode.UTF16(order, bom).NewDecoder()
		h, _, _ := transform.Bytes(dec, head[:len(head)&^1])
		label := declaredEncoding(h)
		switch l := strings.ToUpper(label); {
		case label == "", l == "UTF-16", l == wide:
			return transform.NewReader(br, unicode.UTF16(order, bom).NewDecoder()), wide, nil
		case l == "UTF-16LE", l == "UTF-16BE", l == "UTF-8", l == "ISO-8859-1", l == "US-ASCII":
			return nil, "", fmt.Errorf("a %s document declares encoding %s: expat refuses it (\"encoding specified in XML declaration is incorrect\"), so networkx cannot read it", wide, quoteLabel(label))
		default:
			if _, err := pyCodec(label); err != nil {
				return nil, "", err
			}
			return nil, "", fmt.Errorf("a %s document declares the 8-bit encoding %s: expat reads it byte by byte and finds it not well-formed, so networkx cannot read it", wide, quoteLabel(label))
		}
	}
	label := declaredEncoding(head)
	switch l := strings.ToUpper(label); l {
	case "", "UTF-8":
		return br, "UTF-8", nil
	case "UTF-16", "UTF-16LE", "UTF-16BE":
		return nil, "", fmt.Errorf("an 8-bit document declares encoding %s: expat refuses it (\"encoding specified in XML declaration is incorrect\"), so networkx cannot read it", quoteLabel(label))
	case "ISO-8859-1":
		return transform.NewReader(br, singleByte{cm: charmap.ISO8859_1}), l, nil
	case "US-ASCII":
		return asciiOnly{br}, l, nil
	}
	cm, err := pyCodec(label)
	if err != nil {
		return nil, "", err
	}
	return transform.NewReader(br, singleByte{cm: cm, undefined: pyUndefined[cm]}), label, nil
}

// declaredEncoding is the encoding named by the XML declaration at the
// start of head ("" when there is none, or it names none).
func declaredEncoding(head []byte) string {
	m := declEncoding.FindSubmatch(head)
	if m == nil {
		return ""
	}
	return string(m[1]) + string(m[2])
}

// quoteLabel quotes a declared encoding as evidence is quoted (raw, every
// output sanitises it once), clipped.
func quoteLabel(label string) string { return finding.Quote(finding.Clip(label, 64)) }

// pyCodec is the single-byte codec Python's codecs.lookup finds for label,
// or why pyexpat cannot use it.
func pyCodec(label string) (*charmap.Charmap, error) {
	name := strings.NewReplacer("-", "_", " ", "_").Replace(strings.ToLower(strings.TrimSpace(label)))
	if cm, ok := pySingleByte[name]; ok {
		return cm, nil
	}
	if pyMultiByte[name] {
		return nil, fmt.Errorf("encoding %s declared: a multi-byte codec, which pyexpat refuses (\"multi-byte encodings are not supported\"), so networkx cannot read it", quoteLabel(label))
	}
	return nil, fmt.Errorf("encoding %s declared: not one of the encodings memscope reads as networkx does (UTF-8, UTF-16, ISO-8859-1, US-ASCII, and Python's latin-1, cp1250-1252, iso8859-2 and -15, koi8-r); Python may not know it either (a LookupError)", quoteLabel(label))
}

// asciiOnly passes US-ASCII through and fails at the first byte above
// 0x7F, as expat's US-ASCII decoder does.
type asciiOnly struct{ r io.Reader }

func (a asciiOnly) Read(p []byte) (int, error) {
	n, err := a.r.Read(p)
	if i := bytes.IndexFunc(p[:n], func(r rune) bool { return r >= 0x80 }); i >= 0 {
		return i, errors.New("a byte above 0x7F in a US-ASCII document: expat finds it not well-formed, so networkx cannot read it")
	}
	return n, err
}
