package finding

import "strings"

// Quote puts evidence text into a finding's message between plain double
// quotes, raw: the output that shows the finding sanitises it once
// (docs/SANITIZE.md). Go's %q would escape it first, and the output would
// then escape Go's escapes again (an ESC shown as \\x1b, which reads as a
// backslash and "x1b").
func Quote(s string) string { return `"` + s + `"` }

// QuoteAll quotes each of xs with Quote, separated by ", ".
func QuoteAll(xs []string) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = Quote(x)
	}
	return strings.Join(q, ", ")
}

// Clip shortens evidence text to at most n code points, marking the cut
// with "...", and never cuts a UTF-8 sequence in two (a cut one would show
// as raw bytes that the text never held).
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	count := 0
	for i := range s {
		if count == n {
			return s[:i] + "..."
		}
		count++
	}
	return s
}
