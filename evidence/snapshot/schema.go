// Package snapshot holds the SQLite layout of a memscope store snapshot,
// shared by the writer that creates snapshots and the loader that reads them.
// The signed record BLOBs are the truth; every other column of the record
// tables is a decoded convenience that the verifier compares with the BLOB.
// The nodes, queries, actions and gate_events tables have a record only in
// stores written by a signing runtime: their record (and leaf_index) is NULL
// in older stores and imports, whose rows are then unsigned claims. The
// same holds for meta, checkpoints and vectors, whose records the store's
// operator signs (record.Config, record.CheckpointSeen, record.Vector);
// stores older than those records lack the two columns there.
package snapshot

// FormatName is stored in meta under "format".
const FormatName = "memscope-snapshot/1"

// Schema creates every table of a snapshot. Tables are WITHOUT ROWID where
// the key is the natural id, and "seq" keeps the writer's order so that a
// streamed read returns records in the order they were appended.
const Schema = `
CREATE TABLE meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL,
  leaf_index INTEGER,
  record BLOB
);
CREATE TABLE principals (
  seq        INTEGER PRIMARY KEY,
  rid        TEXT NOT NULL UNIQUE,
  op         TEXT NOT NULL,
  principal  TEXT NOT NULL,
  channel    TEXT NOT NULL,
  ts         INTEGER NOT NULL,
  leaf_index INTEGER,
  record     BLOB NOT NULL
);
CREATE TABLE entries (
  seq        INTEGER PRIMARY KEY,
  eid        TEXT NOT NULL UNIQUE,
  writer     TEXT NOT NULL,
  trust      INTEGER NOT NULL,
  ts         INTEGER NOT NULL,
  content    TEXT NOT NULL,
  session_id TEXT,
  hmac_tag   TEXT,
  leaf_index INTEGER,
  record     BLOB NOT NULL
);
CREATE TABLE nodes (
  seq   INTEGER PRIMARY KEY,
  id    TEXT NOT NULL UNIQUE,
  kind  TEXT NOT NULL,
  label TEXT NOT NULL,
  eid   TEXT,
  leaf_index INTEGER,
  record BLOB
);
CREATE TABLE writes (
  seq        INTEGER PRIMARY KEY,
  wid        TEXT NOT NULL UNIQUE,
  kind       TEXT NOT NULL,
  src        TEXT NOT NULL,
  dst        TEXT NOT NULL,
  rel        TEXT NOT NULL,
  weight     REAL NOT NULL,
  writer     TEXT NOT NULL,
  ts         INTEGER NOT NULL,
  leaf_index INTEGER,
  record     BLOB NOT NULL
);
CREATE TABLE tombstones (
  seq        INTEGER PRIMARY KEY,
  target     TEXT NOT NULL UNIQUE,
  leaf_index INTEGER,
  record     BLOB NOT NULL
);
CREATE TABLE queries (
  seq       INTEGER PRIMARY KEY,
  id        TEXT NOT NULL UNIQUE,
  text      TEXT NOT NULL,
  k         INTEGER NOT NULL,
  reset     TEXT NOT NULL,
  dense     TEXT,
  selected  TEXT,
  ts        INTEGER NOT NULL,
  leaf_index INTEGER,
  record    BLOB
);
CREATE TABLE actions (
  seq           INTEGER PRIMARY KEY,
  id            TEXT NOT NULL UNIQUE,
  tool          TEXT NOT NULL,
  params        TEXT NOT NULL,
  justification TEXT NOT NULL,
  dispatched    INTEGER NOT NULL,
  ts            INTEGER NOT NULL,
  query         TEXT,
  sources       TEXT,
  leaf_index    INTEGER,
  record        BLOB
);
CREATE TABLE gate_events (
  seq            INTEGER PRIMARY KEY,
  id             TEXT NOT NULL UNIQUE,
  candidate_eid  TEXT NOT NULL,
  candidate_hash TEXT NOT NULL,
  verdict        TEXT NOT NULL,
  reason         TEXT NOT NULL,
  version_before INTEGER NOT NULL,
  version_after  INTEGER NOT NULL,
  ts             INTEGER NOT NULL,
  leaf_index     INTEGER,
  record         BLOB
);
CREATE TABLE checkpoints (
  seq     INTEGER PRIMARY KEY,
  seen_at INTEGER NOT NULL,
  note    TEXT NOT NULL,
  leaf_index INTEGER,
  record  BLOB
);
`

// VectorTable is the optional vector index of a snapshot: one row per
// embedded memory, keyed by the entry id whose signed bytes were embedded,
// with the SHA-256 of those bytes (content_hash, hex) and the embedding as
// dim little-endian float32 values. A store without a vector index has no
// such table (the writer creates it with the first vector), so an old
// snapshot reads as "no vector table", never as an empty index. The MWP
// audit reads it for alpha_vec: a rejected candidate must leave no vector.
const VectorTable = "vectors"

// VectorSchema creates the vector table.
const VectorSchema = `
CREATE TABLE vectors (
  seq          INTEGER PRIMARY KEY,
  eid          TEXT NOT NULL,
  content_hash TEXT NOT NULL,
  dim          INTEGER NOT NULL,
  vec          BLOB NOT NULL,
  leaf_index   INTEGER,
  record       BLOB
);
`

// Meta keys.
const (
	MetaFormat       = "format"
	MetaOrigin       = "log_origin"    // checkpoint origin line of the store's log
	MetaLogKey       = "log_key"       // note verifier key as the store saw it (unanchored)
	MetaRootKeys     = "root_keys"     // registry root public keys, hex, comma-separated (unanchored)
	MetaStoreVersion = "store_version" // version counter after the last accepted write
	MetaDescription  = "description"
	// MetaGateMediatedSince declares a mediated write path (MWP): every
	// entry and structural write with ts >= this value (decimal ns) reached
	// the store through the commit gate, so it has an accept event. Absent:
	// the store does not say which writes its gate mediates.
	MetaGateMediatedSince = "gate_mediated_since"

	// Keys the importer writes (package importer); their values are JSON.
	// They live here so that readers name them without linking the importer.

	// MetaImport holds the importer's account: that it signed every record,
	// with keys derived from which seed, from which input files.
	MetaImport = "import"
	// MetaDeclaredLabels maps write id (UUID text, the writes.wid column) to
	// the provenance label the input declared for it: LabelAuthenticated or
	// LabelUnauthenticated. Writes without a declaration are absent. The
	// labels are claims of the input, never verified. Imports now keep
	// them in ImportNoteTable; this key is read for older imports only.
	MetaDeclaredLabels = "declared_labels"
	// MetaImportIDs maps write id to the edge id the input gave it (older
	// imports; now ImportNoteTable).
	MetaImportIDs = "import_ids"
	// MaxMetaValue is the largest meta value readers accept (a meta value
	// is read whole, so it is bounded); writers store no larger one.
	MaxMetaValue = 1 << 16

	// MaxK is the largest top-k a query record may hold, and so the
	// largest any command replays with: selection keeps k candidates,
	// so an unbounded k is unbounded memory.
	MaxK = 1000
)

// Declared provenance labels (values of MetaDeclaredLabels).
const (
	LabelAuthenticated   = "authenticated"
	LabelUnauthenticated = "unauthenticated"
)

// Node kinds in the graph memory.
const (
	NodePassage = "passage"
	NodeEntity  = "entity"
)

// Gate verdicts recorded by a commit gate.
const (
	GateAccept = "accept"
	GateReject = "reject"
)
