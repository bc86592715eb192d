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
