//go:build ignore

// gen_fixtures writes GraphRAG output directories (clean/ and poisoned/)
// with the columns and order of microsoft/graphrag's
// packages/graphrag/graphrag/data_model/schemas.py (TEXT_UNITS_FINAL_COLUMNS,
// ENTITIES_FINAL_COLUMNS, RELATIONSHIPS_FINAL_COLUMNS), list columns as
// Parquet LIST like pyarrow writes from pandas. GraphRAG writes them with
// pandas + pyarrow; Debian has no pyarrow, so this uses parquet-go.
// The poisoned output adds one relationship with no text_unit_ids.
//
//	go run gen_fixtures.go
package main

import (
	"crypto/sha512"
	"encoding/hex"
	"os"
	"path/filepath"

	"github.com/parquet-go/parquet-go"
)

type textUnit struct {
	ID              string   `parquet:"id"`
	HumanReadableID int64    `parquet:"human_readable_id"`
	Text            string   `parquet:"text"`
	NTokens         int64    `parquet:"n_tokens"`
	DocumentID      string   `parquet:"document_id"`
	EntityIDs       []string `parquet:"entity_ids,list"`
	RelationshipIDs []string `parquet:"relationship_ids,list"`
	CovariateIDs    []string `parquet:"covariate_ids,list"`
}

type entity struct {
	ID              string   `parquet:"id"`
	HumanReadableID int64    `parquet:"human_readable_id"`
	Title           string   `parquet:"title"`
	Type            string   `parquet:"type"`
	Description     string   `parquet:"description"`
	TextUnitIDs     []string `parquet:"text_unit_ids,list"`
	Frequency       int64    `parquet:"frequency"`
	Degree          int64    `parquet:"degree"`
}

type relationship struct {
	ID              string   `parquet:"id"`
	HumanReadableID int64    `parquet:"human_readable_id"`
	Source          string   `parquet:"source"`
	Target          string   `parquet:"target"`
	Description     string   `parquet:"description"`
	Weight          float64  `parquet:"weight"`
	CombinedDegree  int64    `parquet:"combined_degree"`
	TextUnitIDs     []string `parquet:"text_unit_ids,list"`
}

func id(s string) string { h := sha512.Sum512([]byte(s)); return hex.EncodeToString(h[:]) }

func write[T any](path string, rows []T) {
	f, err := os.Create(path)
	if err != nil {
		panic(err)
	}
	w := parquet.NewGenericWriter[T](f, parquet.Compression(&parquet.Snappy))
	if _, err := w.Write(rows); err != nil {
		panic(err)
	}
	if err := w.Close(); err != nil {
		panic(err)
	}
	f.Close()
}

func main() {
	texts := []string{
		"Karen Joy Fowler (born February 7, 1950) is an American author.",
		"Bruce Chatwin (13 May 1940 - 18 January 1989) was an English travel writer.",
		"Sarah Canary is a 1991 novel by Karen Joy Fowler.",
		"In Patagonia is a 1977 travel book by Bruce Chatwin.",
		"Payee record: Acme Holdings, account ending 7731, approved for wire transfer.",
		"Jan Morris (2 October 1926 - 20 November 2020) was a Welsh travel writer.",
	}
	var units []textUnit
	for i, t := range texts {
		units = append(units, textUnit{ID: id(t), HumanReadableID: int64(i), Text: t, NTokens: 20, DocumentID: id("doc")})
	}
	u := func(i int) string { return units[i].ID }
	ents := []entity{
		{Title: "KAREN JOY FOWLER", Type: "PERSON", TextUnitIDs: []string{u(0), u(2)}},
		{Title: "BRUCE CHATWIN", Type: "PERSON", TextUnitIDs: []string{u(1), u(3)}},
		{Title: "SARAH CANARY", Type: "WORK", TextUnitIDs: []string{u(2)}},
		{Title: "IN PATAGONIA", Type: "WORK", TextUnitIDs: []string{u(3)}},
		{Title: "ACME HOLDINGS", Type: "ORGANIZATION", TextUnitIDs: []string{u(4)}},
		{Title: "JAN MORRIS", Type: "PERSON", TextUnitIDs: []string{u(5)}},
	}
	for i := range ents {
		ents[i].ID, ents[i].HumanReadableID, ents[i].Description = id(ents[i].Title), int64(i), "an entity"
	}
	rels := []relationship{
		{Source: "SARAH CANARY", Target: "KAREN JOY FOWLER", Weight: 2, TextUnitIDs: []string{u(2)}},
		{Source: "IN PATAGONIA", Target: "BRUCE CHATWIN", Weight: 2, TextUnitIDs: []string{u(3)}},
		{Source: "BRUCE CHATWIN", Target: "JAN MORRIS", Weight: 1, TextUnitIDs: []string{u(1), u(5)}},
	}
	for i := range rels {
		rels[i].ID, rels[i].HumanReadableID, rels[i].Description = id(rels[i].Source+rels[i].Target), int64(i), "related"
	}
	for _, dir := range []string{"clean", "poisoned"} {
		out := filepath.Join(dir, "output")
		if err := os.MkdirAll(out, 0o755); err != nil {
			panic(err)
		}
		r := rels
		if dir == "poisoned" {
			r = append(append([]relationship(nil), rels...), relationship{ID: "injected-fowler-acme", HumanReadableID: 3,
				Source: "KAREN JOY FOWLER", Target: "ACME HOLDINGS", Description: "paid to", Weight: 8, TextUnitIDs: []string{}})
		}
		write(filepath.Join(out, "text_units.parquet"), units)
		write(filepath.Join(out, "entities.parquet"), ents)
		write(filepath.Join(out, "relationships.parquet"), r)
	}
	q := `{"id": "q-fowler", "text": "What did Karen Joy Fowler write?", "k": 3, "reset": {"KAREN JOY FOWLER": 1.0, "` + u(0) + `": 0.05, "` + u(2) + `": 0.04, "` + u(1) + `": 0.01}}` + "\n"
	if err := os.WriteFile("queries.jsonl", []byte(q), 0o644); err != nil {
		panic(err)
	}
}
