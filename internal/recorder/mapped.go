package recorder

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/memscope/memscope/evidence/snapshot"
	"github.com/memscope/memscope/evidence/writer"
	"github.com/memscope/memscope/internal/exactjson"
)

// recordMapped records a call of a memory server described by a config
// mapping (Mapping): no code change is needed for another server.
func (s *session) recordMapped(ctx context.Context, rt route, p callParams, res *callResult) error {
	m, server := rt.up.cfg.Mapping, rt.up.cfg.Name
	for _, w := range m.Writes {
		if w.Tool != rt.name {
			continue
		}
		content := argText(p.Arguments[w.Content])
		memID := ""
		if w.ID != "" {
			if ids := fieldValues(structured(res), w.ID); len(ids) > 0 {
				memID = ids[0]
			}
		}
		if memID == "" {
			memID = "content:" + content
		}
		return s.write(ctx, func(tx *Tx, lw *lineageWrite) error {
			id, err := lw.entry(tx, itemKey(server, "id", memID), content)
			if err != nil {
				return err
			}
			return tx.Node(passageNode(id), snapshot.NodePassage, clip(content, 256), &id, lw.agent)
		})
	}
	for _, d := range m.Deletes {
		if d.Tool != rt.name {
			continue
		}
		memID := argText(p.Arguments[d.ID])
		reason := "deleted by " + rt.name + " through memscope record (session " + s.id + ")"
		return s.g.rec.Do(ctx, func(tx *Tx) error {
			_, err := tx.Delete(itemKey(server, "id", memID), reason, s.g.agent)
			return err
		})
	}
	for _, r := range m.Reads {
		if r.Tool != rt.name {
			continue
		}
		text := rt.name
		if r.Query != "" {
			text = argText(p.Arguments[r.Query])
		}
		ids := fieldValues(structured(res), r.ID)
		var seen []seenItem
		qid := "q-" + newID(now()).String()
		err := s.g.rec.Do(ctx, func(tx *Tx) error {
			selected := []string{}
			reset := map[string]float64{}
			for _, v := range ids {
				if id, ok := tx.Item(itemKey(server, "id", v)); ok {
					n := passageNode(id)
					selected = append(selected, n)
					reset[n] = 1
					seen = append(seen, seenItem{id, "", tx.Trust(id)})
				}
			}
			for n := range reset {
				reset[n] = 1 / float64(len(reset))
			}
			return tx.Query(writer.Query{ID: qid, Text: text, K: max(1, min(len(selected), 1000)), Reset: reset, Selected: selected}, s.g.agent)
		})
		if err == nil {
			s.mu.Lock()
			s.seen.add(seen...)
			s.lastQuery = qid
			s.mu.Unlock()
		}
		return err
	}
	return nil
}

// argText is an argument as text: a JSON string's value, else its JSON.
func argText(v json.RawMessage) string {
	var s string
	if exactjson.DecodeChecked(v, &s) == nil {
		return s
	}
	return string(v)
}

// fieldValues returns, in document order, every scalar value of field
// name in the JSON document (at any depth), as text.
func fieldValues(doc json.RawMessage, name string) []string {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var out []string
	// Inside an object, every other token is a key; the value following
	// key name is taken when it is a scalar.
	type frame struct {
		object bool
		key    bool // the next token is a key
	}
	var stack []frame
	want := false
	for {
		tok, err := dec.Token()
		if err != nil {
			return out
		}
		top := len(stack) - 1
		if d, ok := tok.(json.Delim); top >= 0 && stack[top].object && stack[top].key && !(ok && d == '}') {
			stack[top].key = false
			k, _ := tok.(string)
			want = k == name
			continue
		}
		switch v := tok.(type) {
		case json.Delim:
			if v == '{' || v == '[' {
				stack = append(stack, frame{object: v == '{', key: v == '{'})
				want = false
				continue
			}
			stack = stack[:len(stack)-1]
		case string:
			if want {
				out = append(out, v)
			}
		case json.Number:
			if want {
				out = append(out, v.String())
			}
		case bool:
			if want {
				out = append(out, fmt.Sprint(v))
			}
		}
		want = false
		if top := len(stack) - 1; top >= 0 && stack[top].object {
			stack[top].key = true
		}
	}
}
