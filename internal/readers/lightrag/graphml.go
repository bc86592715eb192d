package lightrag

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Bounds on a GraphML document.
const (
	maxDepth   = 16
	maxKeys    = 1024
	maxDataLen = 8 << 20
)

// Element is a GraphML node or edge with its data by attribute name.
type Element struct {
	ID, Source, Target string
	Data               map[string]string
}

// Graph is a parsed GraphML graph.
type Graph struct {
	Directed bool
	Nodes    []Element
	Edges    []Element
}

// ParseGraphML reads GraphML as networkx's write_graphml writes it. A
// document type declaration (and with it every entity definition, the
// means of external entities and billion-laughs expansion) is refused;
// encoding/xml expands no entity but the five predefined ones anyway.
func ParseGraphML(b []byte) (*Graph, error) {
	d := xml.NewDecoder(bytes.NewReader(b))
	d.Strict = true
	keys := map[string]string{} // key id -> attr.name
	g := &Graph{}
	var cur *Element
	var dataKey string
	var text strings.Builder
	inData := false
	depth := 0
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("graphml: %w", err)
		}
		switch t := tok.(type) {
		case xml.Directive:
			return nil, fmt.Errorf("graphml: line %d: a <!DOCTYPE> or other declaration is refused (entities could expand or reach outside the file; networkx writes none)", line(b, d.InputOffset()))
		case xml.StartElement:
			depth++
			if depth > maxDepth {
				return nil, fmt.Errorf("graphml: line %d: elements nest deeper than %d", line(b, d.InputOffset()), maxDepth)
			}
			attr := func(name string) string {
				for _, a := range t.Attr {
					if a.Name.Local == name {
						return a.Value
					}
				}
				return ""
			}
			switch t.Name.Local {
			case "key":
				if len(keys) >= maxKeys {
					return nil, fmt.Errorf("graphml: more than %d keys", maxKeys)
				}
				keys[attr("id")] = attr("attr.name")
			case "graph":
				g.Directed = attr("edgedefault") == "directed"
			case "node":
				cur = &Element{ID: attr("id"), Data: map[string]string{}}
			case "edge":
				cur = &Element{ID: attr("id"), Source: attr("source"), Target: attr("target"), Data: map[string]string{}}
			case "data":
				if cur == nil {
					break // graph-level data
				}
				name, ok := keys[attr("key")]
				if !ok {
					return nil, fmt.Errorf("graphml: line %d: data names undeclared key %q", line(b, d.InputOffset()), attr("key"))
				}
				dataKey, inData = name, true
				text.Reset()
			}
		case xml.CharData:
			if inData {
				if text.Len()+len(t) > maxDataLen {
					return nil, fmt.Errorf("graphml: line %d: a data value exceeds %d bytes", line(b, d.InputOffset()), maxDataLen)
				}
				text.Write(t)
			}
		case xml.EndElement:
			depth--
			switch t.Name.Local {
			case "data":
				if inData && cur != nil {
					cur.Data[dataKey] = text.String()
				}
				inData = false
			case "node":
				if cur != nil {
					g.Nodes = append(g.Nodes, *cur)
				}
				cur = nil
			case "edge":
				if cur != nil {
					g.Edges = append(g.Edges, *cur)
				}
				cur = nil
			}
		}
	}
	return g, nil
}

func line(b []byte, off int64) int {
	if off > int64(len(b)) {
		off = int64(len(b))
	}
	return bytes.Count(b[:off], []byte("\n")) + 1
}
