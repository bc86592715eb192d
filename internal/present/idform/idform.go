// Package idform resolves the id forms memscope shows: a full id, a unique
// prefix, a unique tail, and the inspector's short form "head…tail" (in
// plain mode "head..tail" or "head~tail"). The CLI and the inspector's
// command bar both use it, so any id printed anywhere can be pasted back.
package idform

import (
	"fmt"
	"iter"
	"strings"

	"github.com/memscope/memscope/internal/present/sanitize"
)

// MinLen is the shortest prefix or tail accepted: shorter forms match too
// much to be a deliberate choice.
const MinLen = 4

// raw is the text a printed form stands for; a form that is not
// printed output (a lone backslash) stands for itself.
func raw(form string) string {
	if r, ok := sanitize.Unescape(form); ok {
		return r
	}
	return form
}

// split returns the head and tail of a short form, ok false when form has
// no elision mark.
func split(form string) (head, tail string, ok bool) {
	for _, mark := range []string{"…", "..", "~"} {
		if h, t, found := strings.Cut(form, mark); found {
			return h, t, true
		}
	}
	return "", "", false
}

// Matches reports whether form names id: equal, or a prefix or tail of at
// least MinLen characters, or head…tail with id starting with head and
// ending with tail. Case-insensitive (ids are hex and ASCII words).
//
// form is read as memscope prints ids: the sanitiser's escapes stand for
// what they escape (sanitize.Unescape), so a printed id pasted back names
// the record that was shown. An id holding a zero-width space prints as
// "name<U+200B>" and an id literally spelling that prints as
// "name\<U+200B>": each printed form names its own record, never the
// other (the decoy).
func Matches(id, form string) bool {
	if form == "" {
		return false
	}
	form = raw(form)
	lid, lf := strings.ToLower(id), strings.ToLower(form)
	if lid == lf {
		return true
	}
	if h, t, ok := split(lf); ok {
		return len(h)+len(t) > 0 && len(lid) >= len(h)+len(t) && strings.HasPrefix(lid, h) && strings.HasSuffix(lid, t)
	}
	if len(lf) < MinLen {
		return false
	}
	return strings.HasPrefix(lid, lf) || strings.HasSuffix(lid, lf)
}

// AmbiguousError lists some of the ids a form matched.
type AmbiguousError struct {
	Form  string
	Count int
	Some  []string
}

func (e *AmbiguousError) Error() string {
	return fmt.Sprintf("%q matches %d ids (%s...): give more of it", e.Form, e.Count, strings.Join(e.Some, ", "))
}

// NotFoundError says no id matched.
type NotFoundError struct{ Form string }

func (e *NotFoundError) Error() string {
	return fmt.Sprintf("no id matches %q (give the full id, a unique prefix or tail of %d+ characters, or head…tail)", e.Form, MinLen)
}

// Resolve returns the one id in ids that form names. An exact match wins
// over prefixes and tails.
func Resolve(ids iter.Seq[string], form string) (string, error) {
	var found []string
	count := 0
	exact := raw(form)
	for id := range ids {
		if id == exact {
			return id, nil
		}
		if Matches(id, form) {
			count++
			if len(found) < 3 {
				found = append(found, id)
			}
		}
	}
	switch count {
	case 0:
		return "", &NotFoundError{form}
	case 1:
		return found[0], nil
	}
	return "", &AmbiguousError{Form: form, Count: count, Some: found}
}

// Ellipsis marks an elision in a short form; plain output writes PlainMark.
const (
	Ellipsis  = "…"
	PlainMark = "~"
)

// Short is the short form of id every output shows: its first 8 and last 5
// characters around an ellipsis (UUIDv7s written close together share
// their leading timestamp digits, so the tail tells them apart). Ids of 14
// characters or fewer are shown whole. Matches and Resolve accept it back.
func Short(id string) string { return Shorten(id, 8, 5, Ellipsis) }

// ShortPlain is Short for plain (ASCII) output: "head~tail".
func ShortPlain(id string) string { return Shorten(id, 8, 5, PlainMark) }

// Shorten keeps head and tail characters of id around mark (one of the
// marks Matches splits on), or id whole when that would not shorten it.
func Shorten(id string, head, tail int, mark string) string {
	r := []rune(id)
	if len(r) <= head+tail+1 {
		return id
	}
	return string(r[:head]) + mark + string(r[len(r)-tail:])
}

// Head is the prefix form of a long hash or key: its first n characters
// and an ellipsis (Matches accepts "head…" as a prefix).
func Head(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + Ellipsis
}
