package report

import (
	"bytes"
	"strings"
	"testing"
)

// A report whose Exposure section has no estimate says why, in place of a
// lead full of blanks ("heavy weight , clean weight at most"), and the
// rest of the page is still written (issue 24, item 5).
func TestExposureSectionWithoutDataSaysWhy(t *testing.T) {
	t.Parallel()
	c, _, _ := buildCase(t, "structural-write", true)
	c.Exposure = &ExposureSection{Note: "The exposure could not be estimated: table actions: record act-broken: field params: bad JSON"}
	var page bytes.Buffer
	if err := WriteHTML(&page, c); err != nil {
		t.Fatal(err)
	}
	html := page.String()
	if !strings.Contains(html, "No exposure estimate for this store. The exposure could not be estimated: table actions") {
		t.Error("the Exposure section does not say why it has no data")
	}
	if strings.Contains(html, "heavy weight ,") || strings.Contains(html, "clean weight at most )") {
		t.Error("the Exposure section prints blanks for the estimate it does not have")
	}
	if !strings.Contains(html, `id="exposure"`) || !strings.Contains(html, "Replay") {
		t.Error("the page lost its sections")
	}
}
