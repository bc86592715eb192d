package storemodel

// SetMem0Field lifts one string-valued payload key that Mem0 writes
// (mem0/memory/main.py: data, hash, created_at, updated_at, user_id) into
// its field; other keys stay in Payload only. Both vector stores Mem0
// persists locally (Qdrant local, Chroma) carry the same keys.
func (v *VectorPoint) SetMem0Field(key, value string) {
	switch key {
	case "data":
		v.Text, v.HasText = value, true
	case "hash":
		v.Hash, v.HasHash = value, true
	case "created_at":
		v.CreatedAt = value
	case "updated_at":
		v.UpdatedAt = value
	case "user_id":
		v.UserID = value
	}
}
