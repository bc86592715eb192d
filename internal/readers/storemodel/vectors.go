package storemodel

// VectorPoint is one record of the vector store Mem0 keeps beside its
// history (Qdrant local mode, Chroma): the memory as retrieval sees it.
// Mem0 writes the memory text in payload "data" and md5(text) in "hash"
// (mem0/memory/main.py _create_memory, _update_memory).
type VectorPoint struct {
	ID         string
	Collection string
	Text       string
	HasText    bool
	Hash       string
	HasHash    bool
	CreatedAt  string
	UpdatedAt  string
	UserID     string
	Dims       int // dense vector length (0: none stored)
	// Payload is every payload key with its value as JSON, in the
	// store's order.
	Payload []PayloadValue
	Row     int64 // storage order (rowid or queue sequence)
}

// PayloadValue is one payload key of a vector point, its value as JSON.
type PayloadValue struct {
	Key   string
	Value string
}

// VectorStore says which vector store a Mem0 store's points came from.
type VectorStore struct {
	Kind string // "qdrant-local" or "chroma"
	Path string
	// History is the Mem0 history database found beside it ("" none).
	History string
}
