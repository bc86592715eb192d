package report

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/memscope/memscope/evidence"
)

// Input names one input the report should hash: a file, or a directory
// (every regular file under it is hashed, in lexical order).
type Input struct {
	Role string
	Path string
}

// maxInputFiles bounds how many files one input directory may hold: a
// hostile log directory must not make the report walk without end.
const maxInputFiles = 1 << 20

// hashInputs opens every input read-only and records its size and
// SHA-256. A log given as an http(s) URL is listed without a hash.
func hashInputs(ctx context.Context, inputs []Input) ([]InputFile, error) {
	var out []InputFile
	for _, in := range inputs {
		if in.Path == "" {
			continue
		}
		if strings.HasPrefix(in.Path, "http://") || strings.HasPrefix(in.Path, "https://") {
			out = append(out, InputFile{Role: in.Role, Path: Text(in.Path), Note: "served over HTTP: files not hashed here; the checkpoint root hash identifies the log's content"})
			continue
		}
		st, err := os.Lstat(in.Path)
		if err != nil {
			return nil, fmt.Errorf("input %s: %w", in.Path, err)
		}
		if !st.IsDir() {
			f, err := hashFile(ctx, in.Role, in.Path, st)
			if err != nil {
				return nil, err
			}
			out = append(out, f)
			continue
		}
		n := 0
		err = filepath.WalkDir(in.Path, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			if d.IsDir() {
				return nil
			}
			if n++; n > maxInputFiles {
				return fmt.Errorf("input %s holds more than %d files", in.Path, maxInputFiles)
			}
			info, err := d.Info()
			if err != nil {
				return err
			}
			f, err := hashFile(ctx, in.Role, p, info)
			if err != nil {
				return err
			}
			f.Under = Text(filepath.ToSlash(in.Path))
			out = append(out, f)
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("input %s: %w", in.Path, err)
		}
	}
	return out, nil
}

func hashFile(ctx context.Context, role, path string, info fs.FileInfo) (InputFile, error) {
	out := InputFile{Role: role, Path: Text(filepath.ToSlash(path)), Size: info.Size()}
	if !info.Mode().IsRegular() {
		out.Note = "not a regular file (" + evidence.FileKind(info.Mode()) + "): not hashed"
		return out, nil
	}
	n, sum, err := evidence.HashFile(ctx, path) // read-only: evidence is never modified
	if err != nil {
		return out, err
	}
	out.Size = n
	out.SHA256 = sum
	return out, nil
}
