//go:build !unix

package verify

import "time"

// processCPU is not measured here; the CPU ratio then reads 0.
func processCPU() time.Duration { return 0 }
