package lightrag

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"unicode/utf8"
)

// tokenizer yields exactly the tokens, lines and errors of encoding/xml's
// Decoder.RawToken in strict mode (Go 1.26 src/encoding/xml/xml.go:
// rawToken, text, nsname, name, space), several times faster on what
// nx.write_graphml writes. It scans the common constructs itself: start
// and end tags with ASCII names and quoted attribute values, and text with
// the five predefined entities. Anything else (a comment, a processing
// instruction such as the XML declaration, CDATA, a directive, a
// character reference, a carriage return, a non-ASCII name, a token longer
// than maxScan, a token the input ends inside, anything encoding/xml would
// refuse) is handed to a real xml.Decoder reading from the same buffer, one
// token at a time, so what the fast path does not do exactly is done by
// the reference itself. FuzzTokenizerMatchesEncodingXML checks the two
// agree token for token.
type tokenizer struct {
	r          io.Reader
	buf        []byte
	pos, end   int
	eof        bool
	rerr       error // a read error, returned once the buffer is drained
	maxScan    int   // longest token the fast path buffers
	line       int   // 1 + newlines consumed, as InputPos reports it
	dec        *xml.Decoder
	handed     int64 // bytes handed to dec
	decOwes    bool  // dec holds an unread byte or a self-closing tag's end
	last       [2]byte
	attrs      []xml.Attr
	text       []byte // entity-decoded text or value
	pendingEnd *xml.Name
	names      map[string]string
	nameCache  [64]string // names met lately, by nameSlot
	// The element and text tokens are returned as pointers to these,
	// valid until the next token: no allocation for the interface.
	startTok xml.StartElement
	endTok   xml.EndElement
	charTok  xml.CharData
	// value, when set, may return a string equal to an attribute value
	// that the caller holds already (no allocation for it).
	value func([]byte) (string, bool)
}

const (
	tokBuffer  = 256 << 10
	tokMaxScan = 4 << 20
)

// newTokenizer reads r with a buffer of size bytes, scanning tokens of up
// to maxScan bytes itself.
func newTokenizer(r io.Reader, size, maxScan int) *tokenizer {
	t := &tokenizer{r: r, buf: make([]byte, size), maxScan: maxScan, line: 1, names: map[string]string{}, attrs: make([]xml.Attr, 0, 8)}
	t.dec = xml.NewDecoder(decoderSource{t})
	t.dec.Strict = true
	// What reaches the tokenizer is UTF-8 already (graphmlText decoded the
	// encoding the declaration names), so the declaration's name asks for
	// no decoding here.
	t.dec.CharsetReader = func(_ string, in io.Reader) (io.Reader, error) { return in, nil }
	return t
}

// Line is the line of the end of the last token, as Decoder.InputPos.
func (t *tokenizer) Line() int { return t.line }

// decoderSource lets the xml.Decoder read the tokenizer's buffer byte by
// byte (it uses io.ByteReader directly, with no buffer of its own), so the
// two always agree on the position.
type decoderSource struct{ t *tokenizer }

func (s decoderSource) ReadByte() (byte, error) {
	t := s.t
	if t.pos == t.end {
		if err := t.fill(); err != nil {
			return 0, err
		}
	}
	c := t.buf[t.pos]
	t.pos++
	t.handed++
	t.last = [2]byte{t.last[1], c}
	return c, nil
}

func (s decoderSource) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	c, err := s.ReadByte()
	if err != nil {
		return 0, err
	}
	p[0] = c
	return 1, nil
}

// fill reads more input after what is buffered, keeping the bytes from
// pos on; it returns io.EOF (or the read error) when nothing more came.
// It reads at least as much as was pending, so a token that needs many
// refills is rescanned a logarithmic number of times, however little each
// Read returns.
func (t *tokenizer) fill() error {
	if t.eof {
		if t.rerr != nil {
			return t.rerr
		}
		return io.EOF
	}
	if t.pos > 0 {
		n := copy(t.buf, t.buf[t.pos:t.end])
		t.pos, t.end = 0, n
	}
	want := max(t.end, 4096)
	if len(t.buf)-t.end < want {
		nb := make([]byte, t.end+max(want, len(t.buf)))
		copy(nb, t.buf[:t.end])
		t.buf = nb
	}
	for added := 0; added < want; {
		n, err := t.r.Read(t.buf[t.end:])
		t.end += n
		added += n
		if err != nil {
			t.eof = true
			if !errors.Is(err, io.EOF) {
				t.rerr = err
			}
			if added > 0 {
				return nil
			}
			return t.fill()
		}
	}
	return nil
}

// scan results.
const (
	scanDone  = iota // a token of n bytes
	scanMore         // the token goes past the buffered bytes
	scanOther        // not one the fast path takes: encoding/xml reads it
)

// byPointer returns an element or text token of the decoder as the fast
// path does.
func (t *tokenizer) byPointer(tok xml.Token) xml.Token {
	switch v := tok.(type) {
	case xml.StartElement:
		t.startTok = v
		return &t.startTok
	case xml.EndElement:
		t.endTok = v
		return &t.endTok
	case xml.CharData:
		t.charTok = v
		return &t.charTok
	}
	return tok
}

// Token returns the next raw token (io.EOF at the end): what RawToken
// returns, except that a StartElement, EndElement or CharData comes as a
// pointer to it, valid until the next call.
func (t *tokenizer) Token() (xml.Token, error) {
	if t.pendingEnd != nil {
		n := *t.pendingEnd
		t.pendingEnd = nil
		t.endTok = xml.EndElement{Name: n}
		return &t.endTok, nil
	}
	if t.decOwes {
		return t.fromDecoder()
	}
	for {
		if t.pos == t.end {
			if err := t.fill(); err != nil {
				return nil, err
			}
		}
		tok, n, res := t.scan(t.buf[t.pos:t.end])
		switch res {
		case scanDone:
			t.line += bytes.Count(t.buf[t.pos:t.pos+n], []byte{'\n'})
			t.pos += n
			return tok, nil
		case scanMore:
			if !t.eof && t.end-t.pos < t.maxScan {
				if err := t.fill(); err == nil {
					continue
				}
			}
		}
		return t.fromDecoder()
	}
}

// fromDecoder reads one token with the xml.Decoder, from the buffer's
// position, fixing its line numbers (it counts from its own start).
func (t *tokenizer) fromDecoder() (xml.Token, error) {
	l0, _ := t.dec.InputPos()
	tok, err := t.dec.RawToken()
	l1, _ := t.dec.InputPos()
	base := t.line - l0
	t.line += l1 - l0
	var se *xml.SyntaxError
	if errors.As(err, &se) {
		se.Line += base
	}
	// The decoder owes the next token when it has unread a byte (after
	// text) or will close the self-closing tag it just returned.
	_, start := tok.(xml.StartElement)
	t.decOwes = t.dec.InputOffset() != t.handed || (start && t.last == [2]byte{'/', '>'})
	return t.byPointer(tok), err
}

func isSpace(c byte) bool { return c == ' ' || c == '\r' || c == '\n' || c == '\t' }

func isNameByte(c byte) bool {
	return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '_' || c == ':' || c == '.' || c == '-'
}

// scan reads one token at the start of b.
func (t *tokenizer) scan(b []byte) (xml.Token, int, int) {
	if b[0] != '<' {
		data, n, res := t.chars(b, -1)
		if res != scanDone {
			return nil, 0, res
		}
		t.charTok = data
		return &t.charTok, n, scanDone
	}
	if len(b) < 2 {
		return nil, 0, scanMore
	}
	switch b[1] {
	case '?', '!':
		return nil, 0, scanOther
	case '/':
		name, i, res := t.name(b, 2)
		if res != scanDone {
			return nil, 0, res
		}
		i = skipSpace(b, i)
		if i == len(b) {
			return nil, 0, scanMore
		}
		if b[i] != '>' {
			return nil, 0, scanOther
		}
		t.endTok = xml.EndElement{Name: name}
		return &t.endTok, i + 1, scanDone
	}
	name, i, res := t.name(b, 1)
	if res != scanDone {
		return nil, 0, res
	}
	t.attrs = t.attrs[:0]
	for {
		i = skipSpace(b, i)
		if i == len(b) {
			return nil, 0, scanMore
		}
		switch b[i] {
		case '/':
			if i+1 == len(b) {
				return nil, 0, scanMore
			}
			if b[i+1] != '>' {
				return nil, 0, scanOther
			}
			t.pendingEnd = &name
			t.startTok = xml.StartElement{Name: name, Attr: t.attrs}
			return &t.startTok, i + 2, scanDone
		case '>':
			t.startTok = xml.StartElement{Name: name, Attr: t.attrs}
			return &t.startTok, i + 1, scanDone
		}
		var a xml.Attr
		if a.Name, i, res = t.name(b, i); res != scanDone {
			return nil, 0, res
		}
		i = skipSpace(b, i)
		if i == len(b) {
			return nil, 0, scanMore
		}
		if b[i] != '=' {
			return nil, 0, scanOther // strict: an attribute needs a value
		}
		i = skipSpace(b, i+1)
		if i == len(b) {
			return nil, 0, scanMore
		}
		if q := b[i]; q != '"' && q != '\'' {
			return nil, 0, scanOther
		}
		v, n, res := t.chars(b[i+1:], int(b[i]))
		if res != scanDone {
			return nil, 0, res
		}
		if s, ok := t.known(v); ok {
			a.Value = s
		} else {
			a.Value = string(v)
		}
		i += 1 + n
		t.attrs = append(t.attrs, a)
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// name reads an XML name at b[i:] as nsname does, for ASCII names only.
func (t *tokenizer) name(b []byte, i int) (xml.Name, int, int) {
	j := i
	colons, colon := 0, -1
	for ; j < len(b); j++ {
		c := b[j]
		if c >= utf8.RuneSelf {
			return xml.Name{}, 0, scanOther
		}
		if !isNameByte(c) {
			break
		}
		if c == ':' {
			colons++
			colon = j
		}
	}
	if j == len(b) {
		return xml.Name{}, 0, scanMore
	}
	// The first character must be a letter, '_' or ':' (isName's first
	// table, ASCII part); a missing name, more than one colon: the
	// decoder's error.
	if j == i || colons > 1 {
		return xml.Name{}, 0, scanOther
	}
	if c := b[i]; !('A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || c == '_' || c == ':') {
		return xml.Name{}, 0, scanOther
	}
	if colon > i && colon < j-1 {
		return xml.Name{Space: t.intern(b[i:colon]), Local: t.intern(b[colon+1 : j])}, j, scanDone
	}
	return xml.Name{Local: t.intern(b[i:j])}, j, scanDone
}

// intern keeps one copy of each of the first names met (GraphML has a
// few element and attribute names, repeated millions of times).
func (t *tokenizer) intern(b []byte) string {
	slot := &t.nameCache[nameSlot(b)]
	if *slot == string(b) {
		return *slot
	}
	if s, ok := t.names[string(b)]; ok {
		*slot = s
		return s
	}
	s := string(b)
	if len(t.names) < 1024 {
		t.names[s] = s
		*slot = s
	}
	return s
}

// nameSlot is where a name is cached: GraphML's dozen names (graphml,
// key, graph, node, edge, data, id, source, target, ...) mostly differ in
// length, first or last byte.
func nameSlot(b []byte) int {
	if len(b) == 0 {
		return 0
	}
	return (len(b)*7 + int(b[0])*3 + int(b[len(b)-1])) & 63
}

func (t *tokenizer) known(v []byte) (string, bool) {
	if t.value == nil {
		return "", false
	}
	return t.value(v)
}

// entities are the five encoding/xml expands (its entity map); any other
// reference goes to the decoder.
var entities = [...]struct {
	ref string
	c   byte
}{{"lt;", '<'}, {"gt;", '>'}, {"amp;", '&'}, {"apos;", '\''}, {"quot;", '"'}}

// chars reads text as Decoder.text does: up to '<' (quote < 0) or up to
// and past the closing quote. It returns the text (b itself when nothing
// was expanded) and the bytes read.
func (t *tokenizer) chars(b []byte, quote int) ([]byte, int, int) {
	expanded := false
	t.text = t.text[:0]
	flushed := 0 // b[flushed:i] not yet copied to t.text
	var b0, b1 byte
	for i := 0; i < len(b); {
		c := b[i]
		switch {
		case quote < 0 && c == '<':
			if !expanded {
				return b[:i], i, scanDone
			}
			return append(t.text, b[flushed:i]...), i, scanDone
		case quote >= 0 && int(c) == quote:
			if !expanded {
				return b[:i], i + 1, scanDone
			}
			return append(t.text, b[flushed:i]...), i + 1, scanDone
		case c == '<', c == '\r':
			return nil, 0, scanOther // an error in a value; \r is rewritten
		case quote < 0 && c == '>' && b0 == ']' && b1 == ']':
			return nil, 0, scanOther // the decoder's "unescaped ]]>"
		case c == '&':
			k := -1
			for e := range entities {
				ref := entities[e].ref
				if n := min(len(ref), len(b)-i-1); string(b[i+1:i+1+n]) == ref[:n] {
					if n < len(ref) {
						return nil, 0, scanMore
					}
					k = e
					break
				}
			}
			if k < 0 {
				return nil, 0, scanOther
			}
			t.text = append(append(t.text, b[flushed:i]...), entities[k].c)
			expanded = true
			i += 1 + len(entities[k].ref)
			flushed = i
			b0, b1 = 0, 0
			continue
		case c < 0x20 && c != '\t' && c != '\n':
			return nil, 0, scanOther
		case c >= utf8.RuneSelf:
			if !utf8.FullRune(b[i:]) {
				return nil, 0, scanMore
			}
			r, n := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && n == 1 || !inCharRange(r) {
				return nil, 0, scanOther
			}
			b0, b1 = b[i+n-2], b[i+n-1]
			i += n
			continue
		}
		b0, b1 = b1, c
		i++
	}
	return nil, 0, scanMore
}

// inCharRange is encoding/xml's isInCharacterRange (XML 1.0 Char).
func inCharRange(r rune) bool {
	return r == 0x09 || r == 0x0A || r == 0x0D || r >= 0x20 && r <= 0xD7FF ||
		r >= 0xE000 && r <= 0xFFFD || r >= 0x10000 && r <= 0x10FFFF
}
