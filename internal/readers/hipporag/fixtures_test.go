package hipporag

// fixtures holds the hipporag stores that several packages' tests share
// (testdata/hipporag at the repository root), with the scripts that made them.
const fixtures = "../../../testdata/hipporag"
