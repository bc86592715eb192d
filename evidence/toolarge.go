package evidence

import "fmt"

// TooLargeError says an input is over its size limit; nothing past the
// limit was used. It is the one error every bounded read returns, whatever
// the input (a file the user named, a log tile or checkpoint, an HTTP
// body, a native store's file): callers tell it apart with errors.As.
type TooLargeError struct {
	Name string // the file, path or URL
	What string // what the input is, when its name does not say (optional)
	Size int64  // its size in bytes, as stated or read; 0 when only known to exceed Max
	Max  int64
}

func (e *TooLargeError) Error() string {
	what := ""
	if e.What != "" {
		what = e.What + " of "
	}
	if e.Size > e.Max {
		return fmt.Sprintf("%s: %s%s is over the %s limit; not read", e.Name, what, humanBytes(e.Size), humanBytes(e.Max))
	}
	return fmt.Sprintf("%s: %smore than %s, over the limit; not read", e.Name, what, humanBytes(e.Max))
}

// humanBytes writes a size in the largest binary unit it reaches.
func humanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}
