package report

import (
	"bytes"
	"fmt"
	"os"
)

// Files renders the case to an HTML file and, when jsonPath is set, a
// JSON case file. Both are rendered in memory first and then created
// exclusively (O_EXCL): an existing file, evidence included, is never
// overwritten, and when either path exists neither file is written.
func Files(c *Case, htmlPath, jsonPath string) error {
	outs := []struct {
		path string
		data bytes.Buffer
	}{{path: htmlPath}}
	if err := WriteHTML(&outs[0].data, c); err != nil {
		return err
	}
	if jsonPath != "" {
		outs = append(outs, struct {
			path string
			data bytes.Buffer
		}{path: jsonPath})
		if err := WriteJSON(&outs[1].data, c); err != nil {
			return err
		}
	}
	var files []*os.File
	cleanup := func() {
		for _, f := range files {
			f.Close()
			os.Remove(f.Name()) // only files this call created
		}
	}
	for _, o := range outs {
		f, err := os.OpenFile(o.path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			cleanup()
			return fmt.Errorf("report: %w (the report never overwrites a file)", err)
		}
		files = append(files, f)
	}
	for i, f := range files {
		if _, err := f.Write(outs[i].data.Bytes()); err != nil {
			cleanup()
			return fmt.Errorf("report: %s: %w", f.Name(), err)
		}
	}
	for _, f := range files {
		if err := f.Close(); err != nil {
			cleanup()
			return fmt.Errorf("report: %s: %w", f.Name(), err)
		}
	}
	return nil
}
