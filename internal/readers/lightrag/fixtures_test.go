package lightrag

// fixtures holds the lightrag stores that several packages' tests share
// (testdata/lightrag at the repository root), with the scripts that made them.
const fixtures = "../../../testdata/lightrag"
