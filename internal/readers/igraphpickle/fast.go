package igraphpickle

import (
	"encoding/binary"
	"errors"
	"math"

	"github.com/nlpodyssey/gopickle/types"
)

// decodeFast runs the pickle machine over the opcodes python-igraph's
// Graph.write_pickle (protocol 4/5, HippoRAG 2's graph.pickle) emits, with
// a memo held in a slice and each (int, int) edge tuple held as a pair, the
// two costs of the general decoder on a graph of tens of thousands of
// edges. It builds the same Graph the general decoder does, through the
// same constructors (graphClass, scalarFunc, dtypeClass). It gives up on
// anything else (another opcode, an error, an odd stack) with
// errFallback, and Decode then runs the general decoder, so every error a
// caller sees comes from one decoder, and FuzzFastMatchesGeneral checks that
// the two agree wherever this one succeeds. scan has already run.
func decodeFast(b []byte) (g *Graph, err error) {
	defer func() {
		if r := recover(); r != nil {
			g, err = nil, errFallback
		}
	}()
	var (
		stack    []any
		marks    []int
		memo     []any
		memoSet  []bool
		memoN    int  // distinct memo keys set (MEMOIZE's index)
		put      bool // BINPUT/LONG_BINPUT seen: then MEMOIZE is not handled here
		memoized bool
		frameEnd = -1
	)
	pos := 0
	next := func(n int) []byte {
		if n < 0 || n > len(b)-pos {
			panic(errFallback)
		}
		s := b[pos : pos+n]
		pos += n
		return s
	}
	pop := func() any {
		if len(stack) == 0 || (len(marks) > 0 && len(stack) <= marks[len(marks)-1]) {
			panic(errFallback)
		}
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		return v
	}
	popMark := func() []any {
		if len(marks) == 0 {
			panic(errFallback)
		}
		m := marks[len(marks)-1]
		marks = marks[:len(marks)-1]
		items := append([]any(nil), stack[m:]...)
		stack = stack[:m]
		return items
	}
	setMemo := func(i int, v any) {
		if i < 0 || i > len(b) { // a memo index cannot exceed the opcodes that fill it
			panic(errFallback)
		}
		for len(memo) <= i {
			memo, memoSet = append(memo, nil), append(memoSet, false)
		}
		if !memoSet[i] {
			memoN++
		}
		memo[i], memoSet[i] = v, true
	}
	getMemo := func(i int) any {
		if i < 0 || i >= len(memo) || !memoSet[i] {
			panic(errFallback)
		}
		return memo[i]
	}
	for pos < len(b) {
		at := pos
		if frameEnd >= 0 && at >= frameEnd {
			frameEnd = -1
		}
		op := b[pos]
		pos++
		switch op {
		case 0x80: // PROTO
			if next(1)[0] > 5 {
				return nil, errFallback
			}
		case 0x95: // FRAME
			if frameEnd >= 0 {
				return nil, errFallback
			}
			size := binary.LittleEndian.Uint64(next(8))
			if size > uint64(len(b)-pos) {
				return nil, errFallback
			}
			frameEnd = pos + int(size)
			continue
		case '.': // STOP
			if len(stack) != 1 || len(marks) != 0 {
				return nil, errFallback
			}
			gr, ok := stack[0].(*pickled)
			if !ok || !gr.built {
				return nil, errFallback
			}
			return &gr.Graph, nil
		case '(':
			marks = append(marks, len(stack))
		case ']':
			stack = append(stack, types.NewList())
		case '}':
			stack = append(stack, types.NewDict())
		case ')':
			stack = append(stack, types.NewTupleFromSlice([]any{}))
		case 'a':
			v := pop()
			l, ok := pop().(*types.List)
			if !ok {
				return nil, errFallback
			}
			l.Append(v)
			stack = append(stack, l)
		case 'e':
			items := popMark()
			l, ok := pop().(*types.List)
			if !ok {
				return nil, errFallback
			}
			*l = append(*l, items...)
			stack = append(stack, l)
		case 's':
			v, k := pop(), pop()
			d, ok := pop().(*types.Dict)
			if !ok {
				return nil, errFallback
			}
			d.Set(k, v)
			stack = append(stack, d)
		case 'u':
			items := popMark()
			d, ok := pop().(*types.Dict)
			if !ok || len(items)%2 != 0 {
				return nil, errFallback
			}
			for i := 0; i < len(items); i += 2 {
				d.Set(items[i], items[i+1])
			}
			stack = append(stack, d)
		case 't':
			stack = append(stack, types.NewTupleFromSlice(popMark()))
		case 0x85:
			stack = append(stack, types.NewTupleFromSlice([]any{pop()}))
		case 0x86:
			y, x := pop(), pop()
			xi, ok1 := x.(int)
			yi, ok2 := y.(int)
			if ok1 && ok2 {
				stack = append(stack, pair{xi, yi})
			} else {
				stack = append(stack, types.NewTupleFromSlice([]any{x, y}))
			}
		case 0x87:
			z, y, x := pop(), pop(), pop()
			stack = append(stack, types.NewTupleFromSlice([]any{x, y, z}))
		case 'J':
			stack = append(stack, int(int32(binary.LittleEndian.Uint32(next(4)))))
		case 'K':
			stack = append(stack, int(next(1)[0]))
		case 'M':
			stack = append(stack, int(binary.LittleEndian.Uint16(next(2))))
		case 'G':
			stack = append(stack, math.Float64frombits(binary.BigEndian.Uint64(next(8))))
		case 0x88:
			stack = append(stack, true)
		case 0x89:
			stack = append(stack, false)
		case 'N':
			stack = append(stack, nil)
		case 0x8c:
			stack = append(stack, string(next(int(next(1)[0]))))
		case 'X':
			stack = append(stack, string(next(int(binary.LittleEndian.Uint32(next(4))))))
		case 'C':
			stack = append(stack, append([]byte(nil), next(int(next(1)[0]))...))
		case 'B':
			stack = append(stack, append([]byte(nil), next(int(binary.LittleEndian.Uint32(next(4))))...))
		case 0x94: // MEMOIZE
			if put || len(stack) == 0 {
				return nil, errFallback
			}
			memoized = true
			setMemo(memoN, stack[len(stack)-1])
		case 'q', 'r': // BINPUT, LONG_BINPUT
			if memoized || len(stack) == 0 {
				return nil, errFallback
			}
			put = true
			var i int
			if op == 'q' {
				i = int(next(1)[0])
			} else {
				i = int(binary.LittleEndian.Uint32(next(4)))
			}
			setMemo(i, stack[len(stack)-1])
		case 'h':
			stack = append(stack, getMemo(int(next(1)[0])))
		case 'j':
			stack = append(stack, getMemo(int(binary.LittleEndian.Uint32(next(4)))))
		case 0x93: // STACK_GLOBAL
			name, ok1 := pop().(string)
			module, ok2 := pop().(string)
			if !ok1 || !ok2 {
				return nil, errFallback
			}
			c, err := findClass(module, name)
			if err != nil {
				return nil, errFallback
			}
			stack = append(stack, c)
		case 'R': // REDUCE
			var args []any
			switch a := pop().(type) {
			case *types.Tuple:
				args = *a
			case pair:
				args = []any{a[0], a[1]}
			default:
				return nil, errFallback
			}
			c, ok := pop().(types.Callable)
			if !ok {
				return nil, errFallback
			}
			v, err := c.Call(args...)
			if err != nil {
				return nil, errFallback
			}
			stack = append(stack, v)
		case 'b': // BUILD
			state := pop()
			if len(stack) == 0 {
				return nil, errFallback
			}
			s, ok := stack[len(stack)-1].(types.PyStateSettable)
			if !ok {
				return nil, errFallback
			}
			if p, isPair := state.(pair); isPair {
				state = types.NewTupleFromSlice([]any{p[0], p[1]})
			}
			if err := s.PySetState(state); err != nil {
				return nil, errFallback
			}
		default:
			return nil, errFallback
		}
		if frameEnd >= 0 && pos > frameEnd {
			return nil, errFallback // an opcode straddles its frame's end
		}
	}
	return nil, errFallback
}

// pair is an (int, int) tuple: an igraph edge.
type pair [2]int

var errFallback = errors.New("igraphpickle: not the common igraph pickle shape")
