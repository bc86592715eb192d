package mem0db

// fixtures holds the mem0db stores that several packages' tests share
// (testdata/mem0db at the repository root), with the scripts that made them.
const fixtures = "../../../testdata/mem0db"
