package main

// version is stamped by the documented build (README):
//
//	go build -ldflags "-X main.version=$(git describe --tags --always --dirty)" -o memscope ./cmd/memscope
//
// Empty otherwise: the module version and VCS revision Go records
// (debug.ReadBuildInfo) are all there is, and a go run build has neither.
var version string
