package exactjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// repeatedNameByTokens is the reference for RepeatedName: encoding/json's
// own tokenizer, which unescapes every name, and a set per object.
func repeatedNameByTokens(b []byte) (string, bool) {
	dec := json.NewDecoder(bytes.NewReader(b))
	type frame struct {
		object bool
		key    bool
		names  map[string]bool
	}
	var stack []*frame
	for {
		tok, err := dec.Token()
		if err != nil {
			return "", false
		}
		if d, ok := tok.(json.Delim); ok {
			switch d {
			case '{', '[':
				if n := len(stack); n > 0 && stack[n-1].object {
					stack[n-1].key = true
				}
				stack = append(stack, &frame{object: d == '{', key: d == '{', names: map[string]bool{}})
			default:
				stack = stack[:len(stack)-1]
			}
			continue
		}
		top := len(stack) - 1
		if top < 0 || !stack[top].object {
			continue
		}
		if stack[top].key {
			name := tok.(string)
			if stack[top].names[name] {
				return name, true
			}
			stack[top].names[name] = true
			stack[top].key = false
			continue
		}
		stack[top].key = true
	}
}

var namesSeeds = []string{
	`{"a":1,"b":2}`,
	`{"a":1,"a":2}`,
	`{"a":{"x":1},"b":{"x":2}}`,
	`{"a":{"x":1,"x":2}}`,
	`[{"a":1},{"a":1}]`,
	`{"a":[{"b":1,"c":{"b":2}}],"b":3}`,
	`{"\u0061":1,"a":2}`,
	`{"a\"":1,"a":2,"a\\":3}`,
	`{"k":"a","a":"k"}`,
	`{"Name":1,"name":2,"NAME":3}`,
	`{"name\u0000":1,"name":2}`,
	`{"\ud800":1,"\ufffd":2}`,
	"{\"\xff\":1,\"\xfe\":2}",
	`{"x":[],"y":{},"x":null}`,
	`{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"j":10,"k":11,"l":12,"m":13,"n":14,"o":15,"p":16,"q":17,"r":18,"a":19}`,
	`{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"j":10,"k":11,"l":12,"m":13,"n":14,"o":15,"p":16,"q":17,"r":18}`,
	`"just a string"`,
	`null`,
	` { "a" : { "a" : { "a" : 1 } } } `,
}

func checkRepeatedName(t *testing.T, b []byte) {
	if !json.Valid(b) {
		return // RepeatedName's precondition
	}
	name, repeated := repeatedNameByTokens(b)
	err := RepeatedName(b)
	var e *RepeatedNameError
	switch {
	case repeated && !errors.As(err, &e):
		t.Fatalf("%q: name %q repeats, RepeatedName says %v", b, name, err)
	case !repeated && err != nil:
		t.Fatalf("%q: no name repeats, RepeatedName says %v", b, err)
	case repeated && e.Name != name:
		t.Fatalf("%q: first repeated name is %q, RepeatedName says %q", b, name, e.Name)
	}
}

func TestRepeatedNameAgreesWithTokenizer(t *testing.T) {
	for _, s := range namesSeeds {
		checkRepeatedName(t, []byte(s))
	}
	// An object of many names is linear, not quadratic: 200,000 names.
	var b strings.Builder
	b.WriteString("{")
	for i := range 200000 {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`"n` + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + `":0`)
		b.WriteString(`,"u` + strconv.Itoa(i) + `":0`)
	}
	b.WriteString("}")
	checkRepeatedName(t, []byte(b.String()))
}

func FuzzRepeatedName(f *testing.F) {
	for _, s := range namesSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		checkRepeatedName(t, b)
	})
}

// doc is a record shape like those the readers decode.
type doc struct {
	Idx      string            `json:"idx"`
	Passage  string            `json:"passage"`
	Entities []json.RawMessage `json:"extracted_entities"`
	Triples  [][]any           `json:"extracted_triples"`
	Props    map[string]any    `json:"properties"`
	Text     *string           `json:"text"`
	Skip     int               `json:"-"`
}

// foldsToField reports whether b has a member name encoding/json would
// match to one of doc's fields without being that name.
func foldsToField(b []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(b))
	for {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		if s, ok := tok.(string); ok {
			for _, f := range []string{"idx", "passage", "extracted_entities", "extracted_triples", "properties", "text", "Skip"} {
				if s != f && strings.EqualFold(s, f) {
					return true
				}
			}
		}
	}
}

func TestDecode(t *testing.T) {
	var d doc
	if err := Decode([]byte(`{"passage":"a","Passage":"b","PASSAGE":"c","paſſage":"d"}`), &d); err != nil || d.Passage != "a" {
		t.Errorf("case variants: got %q, %v; want the exact name's value", d.Passage, err)
	}
	var e *RepeatedNameError
	if err := Decode([]byte(`{"idx":"1","properties":{"k":1},"properties":{}}`), &d); !errors.As(err, &e) || e.Name != "properties" {
		t.Errorf("repeated name: got %v", err)
	}
	var syn *json.SyntaxError
	if err := Decode([]byte(`{"idx":"1",}`), &d); !errors.As(err, &syn) {
		t.Errorf("invalid JSON: want encoding/json's syntax error, got %v", err)
	}
	if err := Decode([]byte(`{"idx":"1"} {}`), &d); err == nil {
		t.Error("two values: want an error")
	}
}

// FuzzDecodeAgreesWithStdlib: apart from case variants and repeated names,
// Decode reads what encoding/json reads, and errs where it errs.
func FuzzDecodeAgreesWithStdlib(f *testing.F) {
	for _, s := range namesSeeds {
		f.Add([]byte(s))
	}
	f.Add([]byte(`{"idx":"chunk-1","passage":"p \u00e9 \ud800","extracted_entities":["a",1,null],"extracted_triples":[["a","b","c"],[1,null]],"properties":{"x":[1.5e300,true]},"text":null}`))
	f.Add([]byte(`{"idx":5}`))
	f.Add([]byte(`{"Skip":3,"-":4}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		if json.Valid(b) && (RepeatedName(b) != nil || foldsToField(b)) {
			return
		}
		var exact, std doc
		errExact, errStd := Decode(b, &exact), json.Unmarshal(b, &std)
		if (errExact == nil) != (errStd == nil) {
			t.Fatalf("%q: Decode error %v, encoding/json error %v", b, errExact, errStd)
		}
		if errExact == nil && !reflect.DeepEqual(exact, std) {
			t.Fatalf("%q:\nDecode        %+v\nencoding/json %+v", b, exact, std)
		}
	})
}
