package sanitize

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Unescape maps the output of Line back to the input it was made from; ok
// is false when s is not something Line prints (a lone backslash, an
// unknown escape). Line escapes its own escape characters, so the mapping
// is exact: Unescape(Line(x)) == x for every x, and two different inputs
// never print the same. A printed id pasted back is resolved through it
// (package idform), so it names the record that was shown and no other.
func Unescape(s string) (string, bool) {
	if !strings.ContainsAny(s, `\<`) {
		return s, true
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\\':
			if i+1 >= len(s) {
				return "", false
			}
			switch s[i+1] {
			case '\\':
				b.WriteByte('\\')
			case '<':
				b.WriteByte('<')
			case 'e':
				b.WriteByte(0x1B)
			case 't':
				b.WriteByte('\t')
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 'x':
				if i+4 > len(s) {
					return "", false
				}
				v, err := strconv.ParseUint(s[i+2:i+4], 16, 8)
				if err != nil {
					return "", false
				}
				b.WriteByte(byte(v))
				i += 4
				continue
			default:
				return "", false
			}
			i += 2
		case c == '<' && strings.HasPrefix(s[i:], "<U+"):
			end := strings.IndexByte(s[i:], '>')
			if end < 0 || end > 9 {
				return "", false
			}
			v, err := strconv.ParseUint(s[i+3:i+end], 16, 32)
			if err != nil || !utf8.ValidRune(rune(v)) {
				return "", false
			}
			b.WriteRune(rune(v))
			i += end + 1
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String(), true
}
