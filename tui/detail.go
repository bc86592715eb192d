package tui

import (
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/memscope/memscope/internal/present/idform"
	"github.com/memscope/memscope/internal/present/sanitize"
)

type detailState struct {
	index   int
	gen     int
	loading bool
	err     error
	d       *EntryDetail
}

func shortHash(b []byte) string { return idform.Head(hex.EncodeToString(b), 16) }

// detailLines renders every line of the entry detail; the view scrolls them.
func (m *Model) detailLines(w int) []string {
	s, d := m.styles, m.det.d
	r := d.Row
	var lines []string
	sec := func(t string) { lines = append(lines, "", s.Title.Render(t)) }
	lines = append(lines, s.Title.Render("Entry ")+m.untrusted(r.ID, 1<<20))
	if r.Suspicious != 0 {
		lines = append(lines, s.Error.Render("! CONTAINS CONTROL CHARACTERS: ")+sanitize.Flags(r.Suspicious).String()+s.Dim.Render("  (shown escaped; an indicator in itself)"))
	}
	lines = append(lines, fmt.Sprintf("  trust recorded %s, recomputed %s", trustWord(r.Recorded), trustWord(r.Recomputed)))
	if r.Recomputed > r.Recorded {
		lines = append(lines, "  "+s.Error.Render("LAUNDERED: recorded trust is safer than recomputed"))
	}
	lines = append(lines, "  time "+m.entryTime(r, time.RFC3339Nano))
	if m.ov.Unsigned {
		sec("Fields (as the store holds them; unsigned)")
	} else {
		sec("Fields (decoded from the signed bytes)")
	}
	for _, f := range d.Fields {
		name := padRight(sanitize.Line(f.Name), 10)
		if f.Name == "content" {
			// Content is multi-line: Block keeps line breaks real but
			// escapes everything else, in one pass (a second would
			// escape the escapes).
			for j, l := range strings.Split(m.styleBlock(f.Value), "\n") {
				if j == 0 {
					lines = append(lines, "  "+name+" "+l)
				} else {
					lines = append(lines, "  "+strings.Repeat(" ", 10)+" "+l)
				}
			}
			continue
		}
		lines = append(lines, "  "+name+" "+m.untrusted(f.Value, 1<<20))
	}
	sec("Checks")
	lines = append(lines, "  signature "+s.status(d.Signature)+"  "+m.untrusted(d.SigNote, 1<<20))
	lines = append(lines, "  hmac      "+s.status(d.HMAC)+"  "+m.untrusted(d.HMACNote, 1<<20))
	sec("Log inclusion")
	if inc := d.Inclusion; inc == nil && m.ov.Unsigned {
		lines = append(lines, "  not checked: an unsigned store has no log")
	} else if inc == nil {
		lines = append(lines, "  "+s.Error.Render("no leaf in the log for this record"))
	} else {
		lines = append(lines, fmt.Sprintf("  leaf %d of tree size %d", inc.LeafIndex, inc.TreeSize))
		lines = append(lines, "  leaf hash "+shortHash(inc.LeafHash))
		pipe, tee, end := "│", "├─", "└─"
		if s.Plain {
			pipe, tee, end = "|", "+-", "`-"
		}
		for j, st := range inc.Steps {
			side := "right"
			if st.Left {
				side = "left "
			}
			lines = append(lines, fmt.Sprintf("  %s level %-2d sibling (%s) %s -> %s", tee, j, side, shortHash(st.Sibling), shortHash(st.Node)))
		}
		verdict := s.Error.Render("FAIL: path does not reach the root")
		if inc.Verified {
			verdict = s.Good.Render("VERIFIED")
		}
		lines = append(lines, "  "+pipe, fmt.Sprintf("  %s root %s  %s", end, shortHash(inc.Root), verdict))
		if inc.Err != "" {
			lines = append(lines, "  "+s.Error.Render("error: ")+m.untrusted(inc.Err, 1<<20))
		}
	}
	links := func(title string, ls []Link) {
		sec(fmt.Sprintf("%s (%d)", title, len(ls)))
		for _, l := range ls {
			strong := "weak  "
			if l.Strong {
				strong = "strong"
			}
			lines = append(lines, fmt.Sprintf("  %s w=%.3f %s %s", padRight(shortID(sanitize.Line(l.ID), m.styles.Plain), colID), l.Weight, strong, trustWord(l.Trust)))
		}
	}
	links("Parents", d.Parents)
	links("Children", d.Children)
	if !m.ov.Unsigned {
		sec(fmt.Sprintf("Signed bytes (%d)", len(d.SignedBytes)))
		lines = append(lines, hexDump(d.SignedBytes)...)
	}
	return lines
}

// styleBlock is sanitize.Block of raw evidence text with its escapes drawn
// in the escape style; line breaks stay real.
func (m *Model) styleBlock(raw string) string {
	var b strings.Builder
	for _, p := range sanitize.BlockPieces(raw, 4) {
		if p.Kind == sanitize.Escape {
			b.WriteString(m.styles.Escape.Render(p.Text))
		} else {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// hexDump renders bytes as offset, hex and printable ASCII columns.
func hexDump(b []byte) []string {
	var out []string
	for off := 0; off < len(b); off += 16 {
		chunk := b[off:min(off+16, len(b))]
		var hx, asc strings.Builder
		for i := 0; i < 16; i++ {
			if i < len(chunk) {
				fmt.Fprintf(&hx, "%02x ", chunk[i])
				if c := chunk[i]; c >= 0x20 && c < 0x7f {
					asc.WriteByte(c)
				} else {
					asc.WriteByte('.')
				}
			} else {
				hx.WriteString("   ")
			}
		}
		out = append(out, fmt.Sprintf("  %06x  %s %s", off, hx.String(), asc.String()))
	}
	return out
}

func (m *Model) renderDetail(w, h int) []string {
	s := m.styles
	switch {
	case m.det.loading:
		return []string{s.Spinner[m.spin%len(s.Spinner)] + " loading entry..."}
	case m.det.err != nil:
		return []string{s.Error.Render("could not load the entry: ") + m.untrusted(m.det.err.Error(), w-30),
			s.Dim.Render("press esc to go back to the entries")}
	case m.det.d == nil:
		return []string{s.Dim.Render("no entry selected: pick one in Entries (3) and press enter")}
	}
	// Every line wraps: a long id, note or error is read in full.
	var all []string
	for _, l := range m.detailLines(w) {
		all = append(all, wrapLine(l, w)...)
	}
	return append(all, m.relatedFindings("entry "+m.det.d.Row.ID, m.det.d.Row.ID, nil)...)
}
