package recorder

import (
	"reflect"
	"testing"
)

// TestFieldValuesInDocumentOrder: a mapped read's selection is the ids in
// the order the server returned them, at any depth, scalars only.
func TestFieldValuesInDocumentOrder(t *testing.T) {
	doc := `{"notes":[{"text":"a","id":"n2"},{"id":"n1","meta":{"id":7}},{"id":["x"]}],"id":true}`
	got := fieldValues([]byte(doc), "id")
	want := []string{"n2", "n1", "7", "true"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v want %v", got, want)
	}
}
