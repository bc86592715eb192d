package main

import (
	"context"
	"fmt"
	"io"

	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/internal/present/sanitize"
	stores "github.com/memscope/memscope/internal/readers"
	"github.com/memscope/memscope/internal/readers/mem0db"
	"github.com/memscope/memscope/internal/readers/storemodel"
)

type jsonVersion struct {
	HistoryID string `json:"history_id"`
	Event     string `json:"event"`
	Time      string `json:"time"`
	Old       string `json:"old"`
	New       string `json:"new"`
	Actor     string `json:"actor_claimed"`
	Role      string `json:"role_claimed"`
	Deleted   bool   `json:"is_deleted"`
}

type jsonChain struct {
	Memory   string        `json:"memory"`
	Deleted  bool          `json:"deleted"`
	Versions []jsonVersion `json:"versions"`
}

type jsonNativeLineage struct {
	Store    jsonStore         `json:"store"`
	Findings []finding.Finding `json:"findings"`
	Chains   []jsonChain       `json:"chains"`
	Messages []jsonMessage     `json:"messages"`
}

// jsonMessage is a row of Mem0's messages table: the context the next add()
// of its scope reads (get_last_messages).
type jsonMessage struct {
	ID      string `json:"id"`
	Scope   string `json:"session_scope"`
	Role    string `json:"role_claimed"`
	Name    string `json:"name"`
	Content string `json:"content"`
	Time    string `json:"created_at"`
}

// runNativeLineage shows the lineage a native store records: for Mem0, each
// memory's version chain (ADD, UPDATE, DELETE) with who the store says made
// each change; for a graph store, the passages each write declares as its
// sources (runGraphLineage). SMSR records no derivation.
func runNativeLineage(ctx context.Context, stdout io.Writer, path, format, memory string, asJSON bool) (int, error) {
	st, err := openStore(ctx, path, format, evidenceFlags{})
	if err != nil {
		return exitUsage, err
	}
	if ok, why := stores.Supports(st, storemodel.CmdLineage); !ok {
		return exitUsage, usagef("%s", why)
	}
	if stores.ReaderOf(st).Holds&storemodel.HoldsHistory == 0 {
		return runGraphLineage(stdout, st, memory, asJSON)
	}
	fs := stores.Findings(st)
	chains, _ := mem0db.Chains(st)
	out := jsonNativeLineage{Store: describeStore(st), Findings: fs, Chains: []jsonChain{}, Messages: []jsonMessage{}}
	if memory == "" {
		for _, m := range st.Messages {
			out.Messages = append(out.Messages, jsonMessage{ID: m.ID, Scope: m.Scope, Role: m.Role, Name: m.Name, Content: m.Content, Time: m.CreatedAt})
		}
	}
	found := memory == ""
	for _, c := range chains {
		if memory != "" && c.MemoryID != memory {
			continue
		}
		found = true
		jc := jsonChain{Memory: c.MemoryID, Deleted: c.Deleted}
		for _, v := range c.Versions {
			t := v.UpdatedAt
			if t == "" {
				t = v.CreatedAt
			}
			jc.Versions = append(jc.Versions, jsonVersion{HistoryID: v.ID, Event: v.Event, Time: t, Old: v.Old, New: v.New, Actor: v.Actor, Role: v.Role, Deleted: v.Deleted})
		}
		out.Chains = append(out.Chains, jc)
	}
	if !found {
		return exitUsage, usagef("no memory %q in %s", memory, path)
	}
	errs, _, _ := finding.Count(fs)
	status := exitOK
	if errs > 0 {
		status = exitFindings
	}
	if asJSON {
		return status, writeJSON(stdout, out)
	}
	writeStoreHeader(stdout, out.Store)
	fmt.Fprintln(stdout, "version chains (actor and role are the store's claims, unsigned):")
	for _, c := range out.Chains {
		state := "live"
		if c.Deleted {
			state = "DELETED"
		}
		fmt.Fprintf(stdout, "\nmemory %s (%s)\n", sanitize.Line(c.Memory), state)
		for _, v := range c.Versions {
			text := previewOf(v.New)
			if v.Event == "DELETE" {
				text = "(deleted: " + previewOf(v.Old) + ")"
			}
			fmt.Fprintf(stdout, "  %-6s %-32s by %s/%s  %s\n", sanitize.Line(v.Event), sanitize.Line(v.Time), sanitize.Line(orDash(v.Actor)), sanitize.Line(orDash(v.Role)), text)
		}
	}
	if len(out.Messages) > 0 {
		fmt.Fprintf(stdout, "\nrecent messages (the context the next add() of each scope reads; role is the store's claim):\n")
		for _, m := range out.Messages {
			fmt.Fprintf(stdout, "  %-24s %-32s %-9s %s\n", sanitize.Line(previewOf(m.Scope)), sanitize.Line(m.Time), sanitize.Line(orDash(m.Role)), previewOf(m.Content))
		}
	}
	fmt.Fprintln(stdout)
	writeFindingList(stdout, fs)
	return status, nil
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func previewOf(s string) string {
	s = sanitize.Line(s)
	r := []rune(s)
	if len(r) > 60 {
		return string(r[:59]) + "~"
	}
	return s
}
