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
	u := &fastUnpickler{b: b, frameEnd: -1}
	for u.pos < len(b) {
		if u.frameEnd >= 0 && u.pos >= u.frameEnd {
			u.frameEnd = -1
		}
		op := b[u.pos]
		u.pos++
		switch op {
		case '.': // STOP
			return u.stop(), nil
		case 0x95: // FRAME
			u.frame()
			continue
		}
		if !u.container(op) && !u.scalar(op) && !u.memoOp(op) && !u.object(op) {
			return nil, errFallback
		}
		if u.frameEnd >= 0 && u.pos > u.frameEnd {
			return nil, errFallback // an opcode straddles its frame's end
		}
	}
	return nil, errFallback
}

// fastUnpickler is decodeFast's machine state. Every failure panics with
// errFallback, which decodeFast recovers into its result.
type fastUnpickler struct {
	b        []byte
	pos      int
	stack    []any
	marks    []int
	memo     []any
	memoSet  []bool
	memoN    int  // distinct memo keys set (MEMOIZE's index)
	put      bool // BINPUT/LONG_BINPUT seen: then MEMOIZE is not handled here
	memoized bool
	frameEnd int
}

func (u *fastUnpickler) fail() { panic(errFallback) }

func (u *fastUnpickler) next(n int) []byte {
	if n < 0 || n > len(u.b)-u.pos {
		u.fail()
	}
	s := u.b[u.pos : u.pos+n]
	u.pos += n
	return s
}

func (u *fastUnpickler) push(v any) { u.stack = append(u.stack, v) }

func (u *fastUnpickler) pop() any {
	if len(u.stack) == 0 || (len(u.marks) > 0 && len(u.stack) <= u.marks[len(u.marks)-1]) {
		u.fail()
	}
	v := u.stack[len(u.stack)-1]
	u.stack = u.stack[:len(u.stack)-1]
	return v
}

func (u *fastUnpickler) popMark() []any {
	if len(u.marks) == 0 {
		u.fail()
	}
	m := u.marks[len(u.marks)-1]
	u.marks = u.marks[:len(u.marks)-1]
	items := append([]any(nil), u.stack[m:]...)
	u.stack = u.stack[:m]
	return items
}

func (u *fastUnpickler) setMemo(i int, v any) {
	if i < 0 || i > len(u.b) { // a memo index cannot exceed the opcodes that fill it
		u.fail()
	}
	for len(u.memo) <= i {
		u.memo, u.memoSet = append(u.memo, nil), append(u.memoSet, false)
	}
	if !u.memoSet[i] {
		u.memoN++
	}
	u.memo[i], u.memoSet[i] = v, true
}

func (u *fastUnpickler) getMemo(i int) any {
	if i < 0 || i >= len(u.memo) || !u.memoSet[i] {
		u.fail()
	}
	return u.memo[i]
}

// stop ends the machine: exactly one built igraph Graph on the stack.
func (u *fastUnpickler) stop() *Graph {
	if len(u.stack) != 1 || len(u.marks) != 0 {
		u.fail()
	}
	gr, ok := u.stack[0].(*pickled)
	if !ok || !gr.built {
		u.fail()
	}
	return &gr.Graph
}

func (u *fastUnpickler) frame() {
	if u.frameEnd >= 0 {
		u.fail()
	}
	size := binary.LittleEndian.Uint64(u.next(8))
	if size > uint64(len(u.b)-u.pos) {
		u.fail()
	}
	u.frameEnd = u.pos + int(size)
}

// container runs the opcodes that build lists, dicts and tuples.
func (u *fastUnpickler) container(op byte) bool {
	switch op {
	case '(':
		u.marks = append(u.marks, len(u.stack))
	case ']':
		u.push(types.NewList())
	case '}':
		u.push(types.NewDict())
	case ')':
		u.push(types.NewTupleFromSlice([]any{}))
	case 'a':
		v := u.pop()
		l, ok := u.pop().(*types.List)
		if !ok {
			u.fail()
		}
		l.Append(v)
		u.push(l)
	case 'e':
		items := u.popMark()
		l, ok := u.pop().(*types.List)
		if !ok {
			u.fail()
		}
		*l = append(*l, items...)
		u.push(l)
	case 's':
		v, k := u.pop(), u.pop()
		d, ok := u.pop().(*types.Dict)
		if !ok {
			u.fail()
		}
		d.Set(k, v)
		u.push(d)
	case 'u':
		items := u.popMark()
		d, ok := u.pop().(*types.Dict)
		if !ok || len(items)%2 != 0 {
			u.fail()
		}
		for i := 0; i < len(items); i += 2 {
			d.Set(items[i], items[i+1])
		}
		u.push(d)
	case 't':
		u.push(types.NewTupleFromSlice(u.popMark()))
	case 0x85:
		u.push(types.NewTupleFromSlice([]any{u.pop()}))
	case 0x86:
		y, x := u.pop(), u.pop()
		xi, ok1 := x.(int)
		yi, ok2 := y.(int)
		if ok1 && ok2 {
			u.push(pair{xi, yi})
		} else {
			u.push(types.NewTupleFromSlice([]any{x, y}))
		}
	case 0x87:
		z, y, x := u.pop(), u.pop(), u.pop()
		u.push(types.NewTupleFromSlice([]any{x, y, z}))
	default:
		return false
	}
	return true
}

// scalar runs the opcodes that push a number, a bool, None, a string or
// bytes, and PROTO.
func (u *fastUnpickler) scalar(op byte) bool {
	switch op {
	case 0x80: // PROTO
		if u.next(1)[0] > 5 {
			u.fail()
		}
	case 'J':
		u.push(int(int32(binary.LittleEndian.Uint32(u.next(4)))))
	case 'K':
		u.push(int(u.next(1)[0]))
	case 'M':
		u.push(int(binary.LittleEndian.Uint16(u.next(2))))
	case 'G':
		u.push(math.Float64frombits(binary.BigEndian.Uint64(u.next(8))))
	case 0x88:
		u.push(true)
	case 0x89:
		u.push(false)
	case 'N':
		u.push(nil)
	case 0x8c:
		u.push(string(u.next(int(u.next(1)[0]))))
	case 'X':
		u.push(string(u.next(int(binary.LittleEndian.Uint32(u.next(4))))))
	case 'C':
		u.push(append([]byte(nil), u.next(int(u.next(1)[0]))...))
	case 'B':
		u.push(append([]byte(nil), u.next(int(binary.LittleEndian.Uint32(u.next(4))))...))
	default:
		return false
	}
	return true
}

// memoOp runs MEMOIZE, BINPUT, LONG_BINPUT, BINGET and LONG_BINGET.
func (u *fastUnpickler) memoOp(op byte) bool {
	switch op {
	case 0x94: // MEMOIZE
		if u.put || len(u.stack) == 0 {
			u.fail()
		}
		u.memoized = true
		u.setMemo(u.memoN, u.stack[len(u.stack)-1])
	case 'q', 'r': // BINPUT, LONG_BINPUT
		if u.memoized || len(u.stack) == 0 {
			u.fail()
		}
		u.put = true
		var i int
		if op == 'q' {
			i = int(u.next(1)[0])
		} else {
			i = int(binary.LittleEndian.Uint32(u.next(4)))
		}
		u.setMemo(i, u.stack[len(u.stack)-1])
	case 'h':
		u.push(u.getMemo(int(u.next(1)[0])))
	case 'j':
		u.push(u.getMemo(int(binary.LittleEndian.Uint32(u.next(4)))))
	default:
		return false
	}
	return true
}

// object runs STACK_GLOBAL, REDUCE and BUILD through the same
// constructors the general decoder uses.
func (u *fastUnpickler) object(op byte) bool {
	switch op {
	case 0x93: // STACK_GLOBAL
		name, ok1 := u.pop().(string)
		module, ok2 := u.pop().(string)
		if !ok1 || !ok2 {
			u.fail()
		}
		c, err := findClass(module, name)
		if err != nil {
			u.fail()
		}
		u.push(c)
	case 'R': // REDUCE
		var args []any
		switch a := u.pop().(type) {
		case *types.Tuple:
			args = *a
		case pair:
			args = []any{a[0], a[1]}
		default:
			u.fail()
		}
		c, ok := u.pop().(types.Callable)
		if !ok {
			u.fail()
		}
		v, err := c.Call(args...)
		if err != nil {
			u.fail()
		}
		u.push(v)
	case 'b': // BUILD
		state := u.pop()
		if len(u.stack) == 0 {
			u.fail()
		}
		s, ok := u.stack[len(u.stack)-1].(types.PyStateSettable)
		if !ok {
			u.fail()
		}
		if p, isPair := state.(pair); isPair {
			state = types.NewTupleFromSlice([]any{p[0], p[1]})
		}
		if err := s.PySetState(state); err != nil {
			u.fail()
		}
	default:
		return false
	}
	return true
}

// pair is an (int, int) tuple: an igraph edge.
type pair [2]int

var errFallback = errors.New("igraphpickle: not the common igraph pickle shape")
