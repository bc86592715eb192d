package idform

import (
	"errors"
	"slices"
	"testing"
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
