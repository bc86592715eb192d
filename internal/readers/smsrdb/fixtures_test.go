package smsrdb

// fixtures holds the smsrdb stores that several packages' tests share
// (testdata/smsrdb at the repository root), with the scripts that made them.
const fixtures = "../../../testdata/smsrdb"
