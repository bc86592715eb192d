package evidence

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
)

// HashFile returns the size and hex SHA-256 of the file at path, opened
// read-only. The read stops when ctx ends (Ctrl-C on a large input). An
// error opening the file is os.Open's (it names the path); an error while
// reading is prefixed with the path.
func HashFile(ctx context.Context, path string) (size int64, sum string, err error) {
	f, err := OpenRegular(path)
	if err != nil {
		return 0, "", err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, ctxReader{ctx, f})
	if err != nil {
		return n, "", fmt.Errorf("%s: %w", path, err)
	}
	return n, hex.EncodeToString(h.Sum(nil)), nil
}

type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
