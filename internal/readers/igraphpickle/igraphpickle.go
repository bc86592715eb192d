// Package igraphpickle reads a python-igraph Graph from its pickle (what
// igraph's Graph.write_pickle writes, and HippoRAG 2 saves as graph.pickle)
// without executing anything. The decoder is nlpodyssey/gopickle with a
// FindClass that builds only three things: igraph.Graph's constructor
// state (Graph.__reduce__: vertex count, edge list, directedness, graph,
// vertex and edge attributes), numpy scalars (numpy.core.multiarray.scalar,
// numpy._core under numpy 2) of string and float dtypes, and numpy.dtype
// for them. Every other global is refused by name. A scan of every opcode
// runs first, so no length in the file can make the decoder allocate more
// than the file holds.
package igraphpickle

import (
	"errors"
	"fmt"
	"math"

	"github.com/memscope/memscope/internal/present/finding"
	"github.com/nlpodyssey/gopickle/pickle"
	"github.com/nlpodyssey/gopickle/types"
)

// Limits on what one pickle may declare.
const (
	MaxVertices = 50_000_000
	MaxEdges    = 200_000_000
)

// Graph is the decoded state of an igraph Graph. Vertex and edge
// attribute values are string, float64, int64, bool or nil.
type Graph struct {
	Directed bool
	N        int
	Edges    [][2]int32
	VAttrs   map[string][]any
	EAttrs   map[string][]any
	GAttrs   []string // graph attribute names (values are not kept)
}

// Decode decodes a whole pickle held in memory.
func Decode(b []byte) (g *Graph, err error) {
	if err := scan(b); err != nil {
		return nil, err
	}
	if g, err := decodeFast(b); err == nil {
		return g, nil
	}
	return decodeGeneral(b)
}

// decodeGeneral is the general decoder (gopickle with a restricted
// FindClass) that every pickle decodeFast gives up on goes through.
func decodeGeneral(b []byte) (g *Graph, err error) {
	// gopickle panics on a few malformed inputs (an empty stack, a wrong
	// type); a hostile file must get an error, not a crash.
	defer func() {
		if r := recover(); r != nil {
			g, err = nil, fmt.Errorf("malformed pickle: %v", r)
		}
	}()
	u := pickle.NewUnpickler(newReader(b))
	u.FindClass = findClass
	v, err := u.Load()
	if err != nil {
		return nil, err
	}
	gr, ok := v.(*pickled)
	if !ok {
		return nil, fmt.Errorf("the pickle holds %s, not an igraph Graph", describe(v))
	}
	if !gr.built {
		return nil, errors.New("the igraph Graph was never constructed")
	}
	return &gr.Graph, nil
}

// allowed lists the globals the decoder builds; everything else is refused.
func allowed(module, name string) bool {
	switch module + "." + name {
	case "igraph.Graph", "numpy.core.multiarray.scalar", "numpy._core.multiarray.scalar", "numpy.dtype":
		return true
	}
	return false
}

func rejectGlobal(module, name string) error {
	return fmt.Errorf("refusing global %s.%s: an igraph pickle may name only igraph.Graph, numpy.dtype and numpy's multiarray.scalar", clip(module), clip(name))
}

func clip(s string) string { return finding.Clip(s, 80) }

func findClass(module, name string) (any, error) {
	if !allowed(module, name) {
		return nil, rejectGlobal(module, name)
	}
	switch name {
	case "Graph":
		return graphClass{}, nil
	case "scalar":
		return scalarFunc{}, nil
	}
	return dtypeClass{}, nil
}

type graphClass struct{}

// Call is Graph(n, edges, directed, graph_attrs, vertex_attrs, edge_attrs),
// the arguments igraph's Graph.__reduce__ pickles.
func (graphClass) Call(args ...any) (any, error) {
	if len(args) != 6 {
		return nil, fmt.Errorf("igraph.Graph: want 6 constructor arguments (n, edges, directed, graph, vertex and edge attributes), got %d", len(args))
	}
	n, ok := args[0].(int)
	if !ok || n < 0 || n > MaxVertices {
		return nil, fmt.Errorf("igraph.Graph: vertex count %v is not an integer in 0..%d", describe(args[0]), MaxVertices)
	}
	el, ok := args[1].(*types.List)
	if !ok {
		return nil, fmt.Errorf("igraph.Graph: edge list is %s, want a list", describe(args[1]))
	}
	if len(*el) > MaxEdges {
		return nil, fmt.Errorf("igraph.Graph: %d edges exceed %d", len(*el), MaxEdges)
	}
	g := &Graph{N: n, Edges: make([][2]int32, len(*el)), VAttrs: map[string][]any{}, EAttrs: map[string][]any{}}
	for i, e := range *el {
		var ends [2]any
		switch t := e.(type) {
		case pair: // decodeFast's (int, int) tuple
			ends = [2]any{t[0], t[1]}
		case *types.Tuple:
			if t.Len() != 2 {
				return nil, fmt.Errorf("igraph.Graph: edge %d is %s, want a pair of vertex indices", i, describe(e))
			}
			ends = [2]any{t.Get(0), t.Get(1)}
		default:
			return nil, fmt.Errorf("igraph.Graph: edge %d is %s, want a pair of vertex indices", i, describe(e))
		}
		for j, x := range ends {
			v, ok := x.(int)
			if !ok || v < 0 || v >= n {
				return nil, fmt.Errorf("igraph.Graph: edge %d names vertex %s, outside 0..%d", i, describe(x), n-1)
			}
			g.Edges[i][j] = int32(v)
		}
	}
	d, ok := args[2].(bool)
	if !ok {
		return nil, fmt.Errorf("igraph.Graph: directed is %s, want a bool", describe(args[2]))
	}
	g.Directed = d
	ga, ok := args[3].(*types.Dict)
	if !ok {
		return nil, fmt.Errorf("igraph.Graph: graph attributes are %s, want a dict", describe(args[3]))
	}
	for _, e := range *ga {
		k, ok := e.Key.(string)
		if !ok {
			return nil, fmt.Errorf("igraph.Graph: a graph attribute name is %s, want a string", describe(e.Key))
		}
		g.GAttrs = append(g.GAttrs, k)
	}
	var err error
	if g.VAttrs, err = attrs("vertex", args[4], n); err != nil {
		return nil, err
	}
	if g.EAttrs, err = attrs("edge", args[5], len(g.Edges)); err != nil {
		return nil, err
	}
	return &pickled{Graph: *g}, nil
}

// pickled is the Graph as the unpickler holds it until BUILD.
type pickled struct {
	Graph
	built bool
}

// PySetState accepts the instance __dict__ igraph pickles (a dict of plain
// values, empty for HippoRAG's graphs); its contents are not used.
func (p *pickled) PySetState(state any) error {
	if _, ok := state.(*types.Dict); !ok {
		return fmt.Errorf("igraph.Graph: instance state is %s, want a dict", describe(state))
	}
	p.built = true
	return nil
}

func attrs(what string, v any, n int) (map[string][]any, error) {
	d, ok := v.(*types.Dict)
	if !ok {
		return nil, fmt.Errorf("igraph.Graph: %s attributes are %s, want a dict", what, describe(v))
	}
	out := make(map[string][]any, len(*d))
	for _, e := range *d {
		k, ok := e.Key.(string)
		if !ok {
			return nil, fmt.Errorf("igraph.Graph: a %s attribute name is %s, want a string", what, describe(e.Key))
		}
		if _, dup := out[k]; dup {
			return nil, fmt.Errorf("igraph.Graph: %s attribute \"%s\" appears twice", what, clip(k))
		}
		l, ok := e.Value.(*types.List)
		if !ok {
			return nil, fmt.Errorf("igraph.Graph: %s attribute \"%s\" is %s, want a list", what, clip(k), describe(e.Value))
		}
		if len(*l) != n {
			return nil, fmt.Errorf("igraph.Graph: %s attribute \"%s\" has %d values for %d %ss", what, clip(k), len(*l), n, what)
		}
		vals := make([]any, n)
		for i, x := range *l {
			switch x := x.(type) {
			case string, float64, bool, nil:
				vals[i] = x
			case int:
				vals[i] = int64(x)
			case npString:
				vals[i] = string(x)
			case npFloat:
				vals[i] = float64(x)
			default:
				return nil, fmt.Errorf("igraph.Graph: %s %d attribute \"%s\" is %s, want a string or a number", what, i, clip(k), describe(x))
			}
		}
		out[k] = vals
	}
	return out, nil
}

// Strings returns a vertex or edge attribute as strings (nil when absent).
func Strings(attrs map[string][]any, name string) ([]string, error) {
	vals, ok := attrs[name]
	if !ok {
		return nil, nil
	}
	out := make([]string, len(vals))
	for i, v := range vals {
		s, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("attribute \"%s\" value %d is %s, want a string", clip(name), i, describe(v))
		}
		out[i] = s
	}
	return out, nil
}

// Floats returns an attribute as finite floats (nil when absent).
func Floats(attrs map[string][]any, name string) ([]float64, error) {
	vals, ok := attrs[name]
	if !ok {
		return nil, nil
	}
	out := make([]float64, len(vals))
	for i, v := range vals {
		var f float64
		switch v := v.(type) {
		case float64:
			f = v
		case int64:
			f = float64(v)
		default:
			return nil, fmt.Errorf("attribute \"%s\" value %d is %s, want a number", clip(name), i, describe(v))
		}
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, fmt.Errorf("attribute \"%s\" value %d is %v, want a finite number", clip(name), i, f)
		}
		out[i] = f
	}
	return out, nil
}

func describe(v any) string {
	switch v := v.(type) {
	case nil:
		return "None"
	case string:
		return "a string"
	case int, int64:
		return fmt.Sprintf("the integer %v", v)
	case float64:
		return fmt.Sprintf("the float %v", v)
	case bool:
		return fmt.Sprintf("the bool %v", v)
	case *types.List:
		return "a list"
	case *types.Tuple:
		return "a tuple"
	case *types.Dict:
		return "a dict"
	case *pickled:
		return "an igraph Graph"
	case pair:
		return "a tuple"
	case *types.GenericClass:
		return "a " + v.Module + "." + v.Name
	}
	return fmt.Sprintf("a value of type %T", v)
}
