package smsrdb

import (
	"context"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"

	"github.com/memscope/memscope/internal/present/finding"
)

func TestCheckTags(t *testing.T) {
	t.Parallel()
	path := filepath.Join(fixtures, "memories.db")
	before, _ := os.ReadFile(path)
	st, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Memories) != 5 || len(st.Issues) != 0 {
		t.Fatalf("%d memories, issues %+v", len(st.Memories), st.Issues)
	}
	key, _ := hex.DecodeString("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f")
	res, fs, err := CheckTags(context.Background(), st, key, CheckOptions{Window: 60_000})
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		outcome string
		offset  int64
		code    finding.Code
	}{
		{TagEarlierTime, 12300, finding.SMSRTagAtOtherTime},
		{TagEarlierTime, 45000, finding.SMSRTagAtOtherTime},
		{TagMatches, 0, ""},
		{TagMissing, 0, finding.HMACMissing},
		{TagNoMatch, 0, finding.HMACWrong},
	}
	codes := map[string]finding.Code{}
	for _, f := range fs {
		codes[f.Subject] = f.Code
	}
	for i, w := range want {
		if res[i].Outcome != w.outcome || res[i].Offset != w.offset {
			t.Errorf("row %d: %+v, want %s at %d us", i+1, res[i], w.outcome, w.offset)
		}
		if got := codes["memories id "+string(rune('1'+i))]; got != w.code {
			t.Errorf("row %d: finding %q, want %q", i+1, got, w.code)
		}
	}
	// A budget too small to reach row 2's offset leaves it undecided.
	res, _, _ = CheckTags(context.Background(), st, key, CheckOptions{Window: 60_000, Budget: 20_000})
	if res[1].Outcome != TagNotSearched {
		t.Errorf("row 2 with an exhausted budget: %+v", res[1])
	}
	after, _ := os.ReadFile(path)
	if string(before) != string(after) {
		t.Error("the database changed")
	}
	if _, err := os.Stat(path + "-journal"); err == nil {
		t.Error("a journal was written next to the evidence")
	}
}
