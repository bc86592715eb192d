// Command notesserver is a small memory MCP server that is not the
// reference one, for memscope record's tests of the config mapping and
// its measurements: remember {text} returns {id}, forget {id}, recall
// {query} returns {notes: [{id, text}]}. It keeps notes in memory only.
package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type note struct {
	ID   string `json:"id"`
	Text string `json:"text"`
}

type rememberIn struct {
	Text string `json:"text"`
}

type rememberOut struct {
	ID string `json:"id"`
}

type forgetIn struct {
	ID string `json:"id"`
}

type recallIn struct {
	Query string `json:"query"`
}

type recallOut struct {
	Notes []note `json:"notes"`
}

func main() {
	var mu sync.Mutex
	var notes []note
	next := 0
	s := mcp.NewServer(&mcp.Implementation{Name: "notes", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "remember"}, func(ctx context.Context, _ *mcp.CallToolRequest, in rememberIn) (*mcp.CallToolResult, rememberOut, error) {
		mu.Lock()
		defer mu.Unlock()
		next++
		id := "n" + strconv.Itoa(next)
		notes = append(notes, note{id, in.Text})
		return nil, rememberOut{ID: id}, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "forget"}, func(ctx context.Context, _ *mcp.CallToolRequest, in forgetIn) (*mcp.CallToolResult, rememberOut, error) {
		mu.Lock()
		defer mu.Unlock()
		for i, n := range notes {
			if n.ID == in.ID {
				notes = append(notes[:i], notes[i+1:]...)
				break
			}
		}
		return nil, rememberOut{ID: in.ID}, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "recall"}, func(ctx context.Context, _ *mcp.CallToolRequest, in recallIn) (*mcp.CallToolResult, recallOut, error) {
		mu.Lock()
		defer mu.Unlock()
		out := recallOut{Notes: []note{}}
		for _, n := range notes {
			if strings.Contains(n.Text, in.Query) && len(out.Notes) < 10 {
				out.Notes = append(out.Notes, n)
			}
		}
		return nil, out, nil
	})
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "notesserver:", err)
	}
}
