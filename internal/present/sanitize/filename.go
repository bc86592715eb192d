package sanitize

import "strings"

// MaxFilenameLen bounds the result of Filename, well under the 255-byte
// component limit of common file systems, leaving room for a suffix.
const MaxFilenameLen = 120

// Filename turns s into one safe path component for an exported file on
// Linux, macOS and Windows. ASCII letters, digits, '-', '_' and '.' are kept;
// every other rune or invalid byte becomes '_' (so no separator, control or
// escape survives). A leading '.' or '-' becomes '_' (no hidden file, no name
// that reads as a command-line option), a trailing '.' becomes '_' (Windows
// drops it), Windows device names such as CON or com1.txt get a '_' prefix,
// the result is cut to MaxFilenameLen bytes, and "" becomes "_".
//
// Different inputs can map to the same name; callers that need uniqueness add
// an identifier (such as the record's eid) themselves.
func Filename(s string) string {
	var b strings.Builder
	b.Grow(min(len(s), MaxFilenameLen))
	for _, r := range s { // invalid bytes arrive as U+FFFD and become '_'
		if b.Len() == MaxFilenameLen {
			break
		}
		if isFilenameByte(r) {
			b.WriteByte(byte(r))
		} else {
			b.WriteByte('_')
		}
	}
	name := []byte(b.String())
	if len(name) == 0 {
		return "_"
	}
	if name[0] == '.' || name[0] == '-' {
		name[0] = '_'
	}
	if name[len(name)-1] == '.' {
		name[len(name)-1] = '_'
	}
	if isWindowsDeviceName(string(name)) {
		if len(name) == MaxFilenameLen {
			name = name[:len(name)-1]
		}
		return "_" + string(name)
	}
	return string(name)
}

func isFilenameByte(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' ||
		r == '-' || r == '_' || r == '.'
}

// isWindowsDeviceName reports names Windows maps to devices whatever the
// extension: CON, PRN, AUX, NUL, COM0-9 and LPT0-9, in any case.
func isWindowsDeviceName(name string) bool {
	base, _, _ := strings.Cut(name, ".")
	switch strings.ToUpper(base) {
	case "CON", "PRN", "AUX", "NUL":
		return true
	}
	if len(base) == 4 {
		prefix := strings.ToUpper(base[:3])
		if (prefix == "COM" || prefix == "LPT") && base[3] >= '0' && base[3] <= '9' {
			return true
		}
	}
	return false
}
