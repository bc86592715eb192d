package graphrag

// fixtures holds the graphrag stores that several packages' tests share
// (testdata/graphrag at the repository root), with the scripts that made them.
const fixtures = "../../../testdata/graphrag"
