package tuisource

// A Mem0 store opened with its vector store (package mem0vec): each
// history row's detail shows the memory's vector-store state, and memories
// the vector store holds that history never wrote get rows of their own
// after the messages.

import (
	"fmt"
	"strconv"

	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/internal/readers/mem0vec"
	"github.com/memscope/memscope/tui"
)

const vectorNote = "then the memories only the vector store holds (writer: vector store <collection>); each detail shows the memory's vector-store state beside its chain"

// reconcile pairs history and vector store; the findings are the CLI's.
func (n *Native) reconcile() []finding.Finding {
	states, fs := mem0vec.Reconcile(n.st)
	n.vec = map[string]*mem0vec.State{}
	for i := range states {
		n.vec[states[i].MemoryID] = &states[i]
		if states[i].Chain == nil {
			n.vecOnly = append(n.vecOnly, states[i])
		}
	}
	return fs
}

// reconcileProblem is the row flag of a reconciliation finding.
func reconcileProblem(c finding.Code) string {
	switch c {
	case finding.Mem0VectorNotInHistory:
		return "NOT IN HIST"
	case finding.Mem0DeletedRetrievable:
		return "DEL LIVE"
	case finding.Mem0VectorTextDiffers:
		return "TEXT DIFF"
	case finding.Mem0VectorHashMismatch:
		return "HASH"
	case finding.Mem0MemoryNotInVector:
		return "NO VECTOR"
	}
	return ""
}

// vectorRows: one row per memory only the vector store holds.
func (n *Native) vectorRows() {
	for _, s := range n.vecOnly {
		r := n.row(s.MemoryID, "vector store "+s.Vector.Collection, 0, "VECTOR memory "+s.MemoryID+": "+s.Vector.Text)
		for _, f := range s.Findings {
			if p := reconcileProblem(f.Code); p != "" && f.Severity != finding.SevInfo {
				r.Status, r.Problem = tui.Failed, p
				break
			}
		}
		n.rows = append(n.rows, r)
	}
}

// vectorFields adds the memory's vector-store state to a detail.
func (n *Native) vectorFields(memoryID string, f func(name, value string)) {
	if n.st.VectorStore == nil {
		return
	}
	s := n.vec[memoryID]
	if s == nil || s.Vector == nil {
		f("vector store", "no point of this id in "+n.st.VectorStore.Kind+" "+n.st.VectorStore.Path)
	} else {
		v := s.Vector
		f("vector store", fmt.Sprintf("%s collection %s, row %d, %d dimensions", n.st.VectorStore.Kind, v.Collection, v.Row, v.Dims))
		hash := "stored " + v.Hash + ", md5 of the text " + mem0vec.Hash(v.Text)
		if !v.HasHash {
			hash = "none stored"
		}
		f("vector text", v.Text)
		f("vector hash", hash)
		for _, p := range v.Payload {
			f("payload "+p.Key, p.Value)
		}
	}
	if s != nil {
		for _, fd := range s.Findings {
			f(string(fd.Code), fd.Message)
		}
	}
}

// vectorDetail is the detail of a vector-only row (index j among them).
func (n *Native) vectorDetail(j int, f func(name, value string)) {
	s := n.vecOnly[j]
	f("memory id", s.MemoryID)
	f("history", "none: no history row names this memory")
	f("created_at (payload)", s.Vector.CreatedAt)
	f("updated_at (payload)", s.Vector.UpdatedAt)
	f("user_id (payload)", s.Vector.UserID)
	f("row", strconv.FormatInt(s.Vector.Row, 10))
	n.vectorFields(s.MemoryID, f)
}
