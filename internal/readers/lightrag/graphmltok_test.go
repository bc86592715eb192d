package lightrag

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"testing/iotest"
)

// rawTokens is encoding/xml's own token stream of b (strict RawToken),
// each token with the line after it: the reference the tokenizer must
// match. Both read b as UTF-8 whatever encoding its declaration names
// (graphmlText has decoded it before the tokenizer reads it).
func rawTokens(b []byte) ([]string, error) {
	d := xml.NewDecoder(bytes.NewReader(b))
	d.Strict = true
	d.CharsetReader = func(_ string, in io.Reader) (io.Reader, error) { return in, nil }
	return collect(d.RawToken, func() int { l, _ := d.InputPos(); return l })
}

// fastTokens is the tokenizer's stream, read through r, with a buffer
// and a fast-path token limit of size bytes (small ones force every
// refill and hand-over path).
func fastTokens(r io.Reader, size int) ([]string, error) {
	t := newTokenizer(r, size, size)
	return collect(t.Token, t.Line)
}

// collect prints every token next returns, with the line after it, up to
// io.EOF or an error.
func collect(next func() (xml.Token, error), line func() int) ([]string, error) {
	var out []string
	for {
		tok, err := next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		switch v := tok.(type) { // the fast path's pointers, as RawToken's values
		case *xml.StartElement:
			tok = *v
		case *xml.EndElement:
			tok = *v
		case *xml.CharData:
			tok = *v
		}
		out = append(out, fmt.Sprintf("%d %#v", line(), tok))
	}
}

func sameTokens(t *testing.T, b []byte) {
	t.Helper()
	want, werr := rawTokens(b)
	for _, size := range []int{1, 3, 7, 64, 4096} {
		for name, r := range map[string]io.Reader{"whole": bytes.NewReader(b), "one byte a read": iotest.OneByteReader(bytes.NewReader(b))} {
			got, gerr := fastTokens(r, size)
			if fmt.Sprint(gerr) != fmt.Sprint(werr) {
				t.Fatalf("buffer %d, %s: error %v, encoding/xml %v", size, name, gerr, werr)
			}
			if len(got) != len(want) {
				t.Fatalf("buffer %d, %s: %d tokens, encoding/xml %d", size, name, len(got), len(want))
			}
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("buffer %d, %s: token %d is\n%s\nencoding/xml's\n%s", size, name, i, got[i], want[i])
				}
			}
		}
	}
}

// tokenSeeds are the fixtures plus the constructs the fast path hands to
// encoding/xml or has to get exactly right.
func tokenSeeds(t testing.TB) [][]byte {
	var seeds [][]byte
	for _, p := range []string{"clean/graph_chunk_entity_relation.graphml", "poisoned/graph_chunk_entity_relation.graphml",
		"hostile/external_entity.graphml", "hostile/billion_laughs.graphml", "hostile/undeclared_entity.graphml"} {
		b, err := os.ReadFile(filepath.Join(fixtures, p))
		if err != nil {
			t.Fatal(err)
		}
		seeds = append(seeds, b)
	}
	for _, s := range []string{
		`<?xml version='1.0' encoding='utf-8'?>` + "\n" + `<graphml xmlns="http://graphml.graphdrawing.org/xmlns"><key id="d0" for="node" attr.name="x" attr.type="string"/><graph edgedefault="undirected"><node id="a"><data key="d0">t &lt;&amp;&gt; &quot;&apos;</data></node></graph></graphml>`,
		"<a x='1'y=\"2\" z = '3' >\r\n text\r more</a >",
		"<a>]]></a>", "<a>]]&gt;</a>", "<a x=']]>'/>", "<a>]x]></a>", "<a>&#60;&#x3c;&#1114112;</a>", "<a>&foo;</a>", "<a>&lt</a>", "<a>&</a>",
		"<a:b:c/>", "<:a/>", "<a:/>", "<x:a y:b='1'/>", "<1a/>", "<-a/>", "<é/>", "<a é='1'/>", "<a b/>", "<a b=c/>", "<a b='<'/>",
		"<a>\x00</a>", "<a>\x7f\u00e9\U0001F600\uFFFE</a>", "<a>\xff</a>", "<a>\xe2\x82</a>", "<a x='\t\n'/>",
		"<!-- c --><a/><!DOCTYPE a><![CDATA[x]]>", "<?pi data?><a/>", "<?xml version='2.0'?>", "<?xml version='1.0' encoding='latin1'?>",
		"<a></b>", "<a", "<a x='1", "text at the end", "<a/ >", "</a", "</ a>", "</a x>", "<a/><b/>",
	} {
		seeds = append(seeds, []byte(s))
	}
	return seeds
}

func TestTokenizerMatchesEncodingXML(t *testing.T) {
	t.Parallel()
	for i, b := range tokenSeeds(t) {
		t.Run(fmt.Sprint(i), func(t *testing.T) { sameTokens(t, b) })
	}
}

func FuzzTokenizerMatchesEncodingXML(f *testing.F) {
	for _, b := range tokenSeeds(f) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) { sameTokens(t, b) })
}
