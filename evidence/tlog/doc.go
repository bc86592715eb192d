// Package tlog is memscope's Merkle log reader: it reads a C2SP tlog-tiles
// log from a directory or over HTTP with Tessera's client package, parses
// signed C2SP checkpoints, builds and verifies RFC 6962 proofs and runs an
// fsck-style consistency check. Writing a log is package tlog/appender's
// job, so the read path never links Tessera's storage drivers.
//
// Leaves are opaque byte strings here; the record format lives elsewhere.
package tlog
