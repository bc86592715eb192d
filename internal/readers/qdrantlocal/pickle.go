package qdrantlocal

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"sort"
	"strconv"
	"strings"

	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/internal/readers/igraphpickle"
	"github.com/nlpodyssey/gopickle/pickle"
	"github.com/nlpodyssey/gopickle/types"
)

// The pickled classes of a local-mode point (qdrant_client/local/
// persistence.py CollectionPersistence.persist: pickle.dumps(PointStruct)).
// Everything else is refused by name, before and while decoding.
const modelsModule = "qdrant_client.http.models.models"

func allowed(module, name string) bool {
	return module == modelsModule && (name == "PointStruct" || name == "SparseVector")
}

func reject(module, name string) error {
	return fmt.Errorf("refusing global \"%s\".\"%s\": a Qdrant local point may name only %s.PointStruct and .SparseVector", clip(module), clip(name), modelsModule)
}

func clip(s string) string { return finding.Clip(s, 80) }

// maxDepth bounds the nesting of a payload value; JSON payloads of real
// applications nest a few levels.
const maxDepth = 64

// Point is one decoded PointStruct.
type Point struct {
	ID      string
	Dims    int      // dense vector length; for named vectors, the first name's
	Names   []string // named vectors, sorted ("" for the unnamed vector)
	Payload []KV     // payload keys in pickled order, last duplicate kept
}

// KV is one payload key and its value (nil, bool, int64, *big.Int,
// float64, string, []any, []KV).
type KV struct {
	Key   string
	Value any
}

// model is PointStruct or SparseVector as NEWOBJ builds it and BUILD fills
// it: pydantic v2's __getstate__ gives {"__dict__": fields,
// "__pydantic_extra__", "__pydantic_fields_set__", "__pydantic_private__"},
// pydantic v1's {"__dict__", "__fields_set__"}.
type model struct {
	name   string
	fields *types.Dict
}

type modelClass struct{ name string }

func (c modelClass) PyNew(args ...any) (any, error) {
	if len(args) != 0 {
		return nil, fmt.Errorf("%s: NEWOBJ with %d arguments (persist pickles none)", c.name, len(args))
	}
	return &model{name: c.name}, nil
}

func (c modelClass) Call(args ...any) (any, error) { return c.PyNew(args...) }

func (m *model) PySetState(state any) error {
	if m.fields != nil {
		return fmt.Errorf("%s: state set twice", m.name)
	}
	d, ok := state.(*types.Dict)
	if !ok {
		// A (dict, slots) pair is also a valid __setstate__ argument.
		if t, isTuple := state.(*types.Tuple); isTuple && t.Len() == 2 {
			d, ok = t.Get(0).(*types.Dict)
		}
	}
	if !ok {
		return fmt.Errorf("%s: state is %T, not a dict", m.name, state)
	}
	inner, found := lastValue(d, "__dict__")
	if id, isDict := inner.(*types.Dict); found && isDict {
		m.fields = id
		return nil
	}
	m.fields = d
	return nil
}

// lastValue is Python's d[key] for a string key: a dict built by SETITEMS
// keeps the last of duplicate keys (gopickle's Get would give the first).
func lastValue(d *types.Dict, key string) (any, bool) {
	var v any
	found := false
	for _, e := range *d {
		if k, ok := e.Key.(string); ok && k == key {
			v, found = e.Value, true
		}
	}
	return v, found
}

// unpickle runs the restricted decoder: the opcode scan first (lengths
// fit the bytes, no persistent ids, no extension codes), then gopickle with
// a FindClass that knows only the two model classes.
func unpickle(b []byte) (v any, err error) {
	if err := igraphpickle.ScanRestricted(b, allowed, reject, "a Qdrant local point"); err != nil {
		return nil, err
	}
	defer func() {
		if r := recover(); r != nil {
			v, err = nil, fmt.Errorf("malformed pickle: %v", r)
		}
	}()
	u := pickle.NewUnpickler(bytesReader(b))
	u.FindClass = func(module, name string) (any, error) {
		if !allowed(module, name) {
			return nil, reject(module, name)
		}
		return modelClass{name: name}, nil
	}
	return u.Load()
}

// DecodeKey decodes the points.id column: base64 of a pickled point id
// (CollectionPersistence.encode_key), a str or an int.
func DecodeKey(s string) (string, error) {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return "", fmt.Errorf("not base64: %v", err)
	}
	v, err := unpickle(b)
	if err != nil {
		return "", err
	}
	return idString(v)
}

func idString(v any) (string, error) {
	switch x := v.(type) {
	case string:
		return x, nil
	case int:
		return strconv.Itoa(x), nil
	case *big.Int:
		return x.String(), nil
	}
	return "", fmt.Errorf("point id is %s, not a str or int", describe(v))
}

// DecodePoint decodes one points.point blob.
func DecodePoint(b []byte) (*Point, error) {
	v, err := unpickle(b)
	if err != nil {
		return nil, err
	}
	m, ok := v.(*model)
	if !ok || m.name != "PointStruct" {
		return nil, fmt.Errorf("the pickle holds %s, not a PointStruct", describe(v))
	}
	if m.fields == nil {
		return nil, errors.New("the PointStruct was never given its fields")
	}
	p := &Point{}
	idv, ok := lastValue(m.fields, "id")
	if !ok {
		return nil, errors.New("field id: missing")
	}
	if p.ID, err = idString(idv); err != nil {
		return nil, fmt.Errorf("field id: %v", err)
	}
	vec, _ := lastValue(m.fields, "vector")
	if err := p.readVector(vec); err != nil {
		return nil, fmt.Errorf("field vector: %v", err)
	}
	pl, _ := lastValue(m.fields, "payload")
	if pl != nil {
		d, ok := pl.(*types.Dict)
		if !ok {
			return nil, fmt.Errorf("field payload: %s, not a dict", describe(pl))
		}
		if p.Payload, err = dictKV(d, 0); err != nil {
			return nil, fmt.Errorf("field payload: %v", err)
		}
	}
	return p, nil
}

// readVector takes PointStruct.vector: a list of floats, or a dict of named
// vectors (dense lists, multivectors, SparseVector).
func (p *Point) readVector(v any) error {
	switch x := v.(type) {
	case nil:
		return nil
	case *types.List:
		n, err := denseLen(x)
		p.Dims, p.Names = n, []string{""}
		return err
	case *types.Dict:
		for _, e := range *x {
			name, ok := e.Key.(string)
			if !ok {
				return fmt.Errorf("vector name is %s", describe(e.Key))
			}
			p.Names = append(p.Names, name)
		}
		sort.Strings(p.Names)
		if len(p.Names) > 0 {
			first, _ := lastValue(x, p.Names[0])
			if l, ok := first.(*types.List); ok {
				n, err := denseLen(l)
				if err == nil {
					p.Dims = n
				}
			}
		}
		return nil
	}
	return fmt.Errorf("%s, not a list or dict", describe(v))
}

func denseLen(l *types.List) (int, error) {
	for i, e := range *l {
		switch e.(type) {
		case float64, int, *big.Int:
		case *types.List: // a multivector: a list of lists
		default:
			return 0, fmt.Errorf("element %d is %s, not a number", i, describe(e))
		}
	}
	return l.Len(), nil
}

// dictKV converts a payload dict: string keys only (payloads are JSON
// objects), the last of duplicate keys at the position of the first, as a
// Python dict keeps it.
func dictKV(d *types.Dict, depth int) ([]KV, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("nested more than %d levels", maxDepth)
	}
	var out []KV
	at := map[string]int{}
	for _, e := range *d {
		k, ok := e.Key.(string)
		if !ok {
			return nil, fmt.Errorf("key %s is not a str", describe(e.Key))
		}
		v, err := plain(e.Value, depth+1)
		if err != nil {
			return nil, fmt.Errorf("key \"%s\": %v", clip(k), err)
		}
		if i, seen := at[k]; seen {
			out[i].Value = v
			continue
		}
		at[k] = len(out)
		out = append(out, KV{k, v})
	}
	return out, nil
}

func plain(v any, depth int) (any, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("nested more than %d levels", maxDepth)
	}
	switch x := v.(type) {
	case nil, bool, string, float64, *big.Int:
		return x, nil
	case int:
		return int64(x), nil
	case *types.Dict:
		return dictKV(x, depth)
	case *types.List:
		return plainList(*x, depth)
	case *types.Tuple:
		return plainList(*x, depth)
	}
	return nil, fmt.Errorf("value of type %s", describe(v))
}

func plainList(items []any, depth int) ([]any, error) {
	out := make([]any, len(items))
	for i, e := range items {
		v, err := plain(e, depth+1)
		if err != nil {
			return nil, fmt.Errorf("item %d: %v", i, err)
		}
		out[i] = v
	}
	return out, nil
}

// JSON renders a payload value as JSON (NaN and infinities, which JSON
// lacks, as Python's json.dumps writes them).
func JSON(v any) string {
	var b strings.Builder
	writeJSON(&b, v)
	return b.String()
}

func writeJSON(b *strings.Builder, v any) {
	switch x := v.(type) {
	case float64:
		switch {
		case math.IsNaN(x):
			b.WriteString("NaN")
			return
		case math.IsInf(x, 1):
			b.WriteString("Infinity")
			return
		case math.IsInf(x, -1):
			b.WriteString("-Infinity")
			return
		}
	case []KV:
		b.WriteByte('{')
		for i, kv := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			writeJSON(b, kv.Key)
			b.WriteString(": ")
			writeJSON(b, kv.Value)
		}
		b.WriteByte('}')
		return
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			writeJSON(b, e)
		}
		b.WriteByte(']')
		return
	}
	enc, err := json.Marshal(v)
	if err != nil {
		enc, _ = json.Marshal(fmt.Sprint(v))
	}
	b.Write(enc)
}

func describe(v any) string {
	switch x := v.(type) {
	case nil:
		return "None"
	case *model:
		return x.name
	case string:
		return "a str"
	case int, *big.Int:
		return "an int"
	case float64:
		return "a float"
	case bool:
		return "a bool"
	}
	return fmt.Sprintf("%T", v)
}
