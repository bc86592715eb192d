package idform

import (
	"errors"
	"slices"
	"testing"

	"github.com/memscope/memscope/internal/present/sanitize"
)

func TestMatches(t *testing.T) {
	id := "019cadc9-06bf-7e82-9553-fb5c123d6642"
	for _, tc := range []struct {
		form string
		want bool
	}{
		{id, true},
		{"019cadc9", true},       // prefix
		{"3d6642", true},         // tail
		{"019cadc9…d6642", true}, // inspector short form
		{"019cadc9..d6642", true},
		{"019cadc9~d6642", true},
		{"019CADC9", true},
		{"019cadc9…d6643", false},
		{"019", false}, // too short to mean anything
		{"06bf-7e82", false},
		{"", false},
	} {
		if got := Matches(id, tc.form); got != tc.want {
			t.Errorf("Matches(%q) = %v, want %v", tc.form, got, tc.want)
		}
	}
}

func TestResolve(t *testing.T) {
	ids := []string{"019cadc9-06bf-7e82-9553-fb5c123d6642", "019cadc9-0ad1-7cc9-a340-39287471f63e", "abcd"}
	got, err := Resolve(slices.Values(ids), "0ad1-7cc9-a340-39287471f63e")
	if err != nil || got != ids[1] {
		t.Errorf("tail: %q %v", got, err)
	}
	got, err = Resolve(slices.Values(ids), "019cadc9…1f63e")
	if err != nil || got != ids[1] {
		t.Errorf("short form: %q %v", got, err)
	}
	if got, err = Resolve(slices.Values(ids), "abcd"); err != nil || got != "abcd" {
		t.Errorf("exact: %q %v", got, err)
	}
	_, err = Resolve(slices.Values(ids), "019cadc9")
	var amb *AmbiguousError
	if !errors.As(err, &amb) || amb.Count != 2 {
		t.Errorf("ambiguous prefix: %v", err)
	}
	_, err = Resolve(slices.Values(ids), "ffff")
	var nf *NotFoundError
	if !errors.As(err, &nf) {
		t.Errorf("not found: %v", err)
	}
}

// Every short form idform prints is accepted back by Matches, and only for
// the id it came from.
func TestShortFormsMatchBack(t *testing.T) {
	ids := []string{"019cadc9-0b34-72df-865c-36fef7e5ab41", "019cadc9-10f1-7822-8616-8522f9424785", "entity-Bruce Chatwin", "ab", "0123456789abcd"}
	for _, id := range ids {
		for _, form := range []string{Short(id), ShortPlain(id), Shorten(id, 14, 6, Ellipsis), Head(id, 16)} {
			if !Matches(id, form) {
				t.Errorf("%q does not match its own short form %q", id, form)
			}
			if len([]rune(form)) > len([]rune(id)) {
				t.Errorf("short form %q is longer than %q", form, id)
			}
		}
	}
	if got := Short(ids[0]); got != "019cadc9…5ab41" {
		t.Errorf("Short = %q", got)
	}
	if got := ShortPlain(ids[0]); got != "019cadc9~5ab41" {
		t.Errorf("ShortPlain = %q", got)
	}
	if Matches(ids[1], Short(ids[0])) {
		t.Errorf("%q matches %q's short form", ids[1], ids[0])
	}
	if got := Head("abcdef0123456789ffff", 16); got != "abcdef0123456789…" {
		t.Errorf("Head = %q", got)
	}
}

// The printed id names the record that was shown, never a decoy that
// prints alike: "Acme Holdings" with a zero-width space prints as
// "Acme Holdings<U+200B>", and an entity literally named that prints as
// "Acme Holdings\\<U+200B>" (issue 23, item 11).
func TestPrintedIDResolvesToItsRecord(t *testing.T) {
	real, decoy := "Acme Holdings\u200b", "Acme Holdings<U+200B>"
	ids := []string{decoy, real, "Acme Holdings"}
	for _, id := range ids {
		printed := sanitize.Line(id)
		got, err := Resolve(slices.Values(ids), printed)
		if err != nil || got != id {
			t.Errorf("printed %q resolves to %q (%v), want %q", printed, got, err, id)
		}
	}
	if sanitize.Line(real) == sanitize.Line(decoy) {
		t.Fatalf("both print %q", sanitize.Line(real))
	}
}

// Ids that differ only by invisible or confusable characters are one
// display key: a zero-width space, and a Cyrillic "а" (U+0430) for the
// Latin "a", both collide with "Acme Holdings"; ids that look different
// do not (issue 23, item 11).
func TestCollisions(t *testing.T) {
	// Repeats (ASCII after its look-alike, and not) are listed once.
	ids := []string{"Acme Holdings", "Acme Holdings\u200b", "\u0410cme Holdings", "Acme Holding", "019cadc9-06bf", "Zeta\u202e", "\u0410cme Holdings", "Acme Holdings"}
	got := Collisions(slices.Values(ids))
	if len(got) != 1 || !slices.Equal(got[0], []string{"Acme Holdings", "Acme Holdings\u200b", "\u0410cme Holdings"}) {
		t.Errorf("collisions %q", got)
	}
	if c := Collisions(slices.Values([]string{"019cadc9-06bf", "019cadc9-0abc", "O19cadc9-06bf"})); len(c) != 0 {
		t.Errorf("plain ASCII ids collide: %q", c)
	}
}
