package snapshot

// ImportNoteTable is the optional table of import notes: per-write data an
// import keeps (the id the input gave the write, the provenance label it
// declared), one row per write that has any, each with its signed
// record.ImportNote and the note's log leaf. Only imports create it (with
// their first note); a snapshot without it reads as "no notes", and an
// import written before the table kept the same data in the meta keys
// MetaImportIDs and MetaDeclaredLabels, which readers still accept
// (loader.Snapshot.ImportNotesOrMeta).
const ImportNoteTable = "import_notes"

// ImportNoteSchema creates the import notes table. input_id and declared
// are NULL when the input gave none.
const ImportNoteSchema = `
CREATE TABLE import_notes (
  seq        INTEGER PRIMARY KEY,
  wid        TEXT NOT NULL UNIQUE,
  input_id   TEXT,
  declared   TEXT,
  leaf_index INTEGER,
  record     BLOB NOT NULL
);
`
