package ocsf

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/internal/present/jsonout"
)

// schema is the part of the published OCSF 1.8.0 schema in testdata
// (testdata/ocsf-1.8.0/SOURCE.txt): enough to validate a Detection
// Finding the way the schema defines one.
type schema struct {
	dir  string
	dict map[string]attr
	// primitive type name -> its base (timestamp_t -> long_t)
	types map[string]string
}

// attr is one attribute as the schema files describe it.
type attr struct {
	Type        string                     `json:"type"`
	IsArray     bool                       `json:"is_array"`
	Requirement string                     `json:"requirement"`
	Enum        map[string]json.RawMessage `json:"enum"`
	Caption     string                     `json:"caption"`
}

type enumValue struct {
	Caption string `json:"caption"`
}

func loadSchema(t *testing.T) *schema {
	t.Helper()
	s := &schema{dir: "testdata/ocsf-1.8.0", types: map[string]string{}}
	var d struct {
		Attributes map[string]attr `json:"attributes"`
		Types      struct {
			Attributes map[string]struct {
				Type string `json:"type"`
			} `json:"attributes"`
		} `json:"types"`
	}
	s.read(t, "dictionary.json", &d)
	s.dict = d.Attributes
	for name, ty := range d.Types.Attributes {
		s.types[name] = ty.Type
	}
	return s
}

func (s *schema) read(t *testing.T, name string, v any) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(s.dir, name))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

// attrs merges a class's or object's attributes along its extends chain,
// the base first, as the schema compiler does.
func (s *schema) attrs(t *testing.T, file string) map[string]attr {
	t.Helper()
	var d struct {
		Extends    string                     `json:"extends"`
		Attributes map[string]json.RawMessage `json:"attributes"`
	}
	s.read(t, file, &d)
	out := map[string]attr{}
	if d.Extends != "" {
		base := "objects/" + d.Extends + ".json"
		if strings.HasPrefix(file, "events/") {
			base = "events/" + d.Extends + ".json"
			if _, err := os.Stat(filepath.Join(s.dir, base)); err != nil {
				base = "events/findings/" + d.Extends + ".json"
			}
		}
		for k, v := range s.attrs(t, base) {
			out[k] = v
		}
	}
	for k, raw := range d.Attributes {
		if strings.HasPrefix(k, "$") {
			continue // profile includes: memscope sets none of their attributes
		}
		var a attr
		json.Unmarshal(raw, &a)
		prev := out[k]
		if a.Requirement == "" {
			a.Requirement = prev.Requirement
		}
		if a.Enum == nil {
			a.Enum = prev.Enum
		}
		out[k] = a
	}
	return out
}

// check validates obj against attrs and returns every violation.
func (s *schema) check(t *testing.T, obj map[string]any, attrs map[string]attr, path string) []string {
	var bad []string
	for name, a := range attrs {
		if a.Requirement == "required" {
			if _, ok := obj[name]; !ok {
				bad = append(bad, fmt.Sprintf("%s%s: required, missing", path, name))
			}
		}
	}
	for name, v := range obj {
		a, ok := attrs[name]
		if !ok {
			bad = append(bad, fmt.Sprintf("%s%s: not an attribute of this class or object", path, name))
			continue
		}
		d := s.dict[name]
		ty := d.Type
		if a.Type != "" {
			ty = a.Type
		}
		enum := a.Enum
		if enum == nil {
			enum = d.Enum
		}
		if name == "category_uid" || name == "class_uid" {
			// The schema compiler fills these enumerations from the
			// category and class definitions; the test checks them
			// against categories.json and the class's uid instead.
			enum = nil
		}
		if d.IsArray {
			list, ok := v.([]any)
			if !ok {
				bad = append(bad, fmt.Sprintf("%s%s: want an array", path, name))
				continue
			}
			for i, e := range list {
				bad = append(bad, s.value(t, e, ty, enum, fmt.Sprintf("%s%s[%d]", path, name, i))...)
			}
			continue
		}
		bad = append(bad, s.value(t, v, ty, enum, path+name)...)
	}
	return bad
}

func (s *schema) value(t *testing.T, v any, ty string, enum map[string]json.RawMessage, where string) []string {
	for base, ok := s.types[ty]; ok && base != ""; base, ok = s.types[ty] {
		ty = base
	}
	bad := func(want string) []string { return []string{fmt.Sprintf("%s: %v is not %s", where, v, want)} }
	switch ty {
	case "string_t":
		if _, ok := v.(string); !ok {
			return bad("a string")
		}
	case "boolean_t":
		if _, ok := v.(bool); !ok {
			return bad("a boolean")
		}
	case "integer_t", "long_t":
		f, ok := v.(float64)
		if !ok || f != math.Trunc(f) || (ty == "integer_t" && math.Abs(f) > math.MaxInt32) {
			return bad("an " + ty)
		}
		if enum != nil {
			if _, ok := enum[fmt.Sprint(int64(f))]; !ok {
				return []string{fmt.Sprintf("%s: %v is not in the enumeration", where, v)}
			}
		}
	case "object":
		if _, ok := v.(map[string]any); !ok {
			return bad("an object")
		}
	default:
		m, ok := v.(map[string]any)
		if !ok {
			return bad("a " + ty + " object")
		}
		return s.check(t, m, s.attrs(t, "objects/"+ty+".json"), where+".")
	}
	return nil
}

// caption is the schema's caption of an enum value.
func caption(enum map[string]json.RawMessage, v any) string {
	var e enumValue
	json.Unmarshal(enum[fmt.Sprint(int64(v.(float64)))], &e)
	return e.Caption
}

// TestDetectionFindingsValidate encodes findings of every severity, with
// hostile text, through memscope's JSON writer and validates each event
// against the published schema: every required attribute, no attribute the
// class lacks, every type and enumeration, the uids the category and class
// define, and the captions that go with the ids.
func TestDetectionFindingsValidate(t *testing.T) {
	s := loadSchema(t)
	class := s.attrs(t, "events/findings/detection_finding.json")
	var cats struct {
		Attributes map[string]struct {
			UID int `json:"uid"`
		} `json:"attributes"`
	}
	s.read(t, "categories.json", &cats)
	var det struct {
		UID int `json:"uid"`
	}
	s.read(t, "events/findings/detection_finding.json", &det)
	wantClass := cats.Attributes["findings"].UID*1000 + det.UID
	fs := []finding.Finding{
		finding.New(finding.CheckpointFork, "checkpoint", "two roots for size 10"),
		finding.New(finding.TableUnsigned, "table queries", "rows no signature covers"),
		finding.New(finding.WatchStateNew, "checkpoint", "first use \x1b[31mred\u202e"),
	}
	for _, f := range fs {
		ev := From(f, Context{Source: "snap.db", Tenant: "acme", Version: "test", Time: time.Unix(1764230000, 0), Extra: map[string]any{"size": 10}})
		line, err := jsonout.MarshalLine(ev)
		if err != nil {
			t.Fatal(err)
		}
		var obj map[string]any
		if err := json.Unmarshal(line, &obj); err != nil {
			t.Fatal(err)
		}
		for _, p := range s.check(t, obj, class, "") {
			t.Errorf("%s: %s", f.Code, p)
		}
		if int(obj["class_uid"].(float64)) != wantClass || int64(obj["type_uid"].(float64)) != int64(wantClass)*100+int64(obj["activity_id"].(float64)) {
			t.Errorf("%s: class_uid %v type_uid %v, want %d and %d*100+activity", f.Code, obj["class_uid"], obj["type_uid"], wantClass, wantClass)
		}
		for id, name := range map[string]string{"activity_id": "activity_name", "severity_id": "severity", "status_id": "status", "confidence_id": "confidence"} {
			enum := class[id].Enum
			if enum == nil {
				enum = s.dict[id].Enum
			}
			if got, want := obj[name], caption(enum, obj[id]); got != want {
				t.Errorf("%s: %s is %q, the schema's caption of %s %v is %q", f.Code, name, got, id, obj[id], want)
			}
		}
		if strings.ContainsAny(string(line), "\x1b\u202e") {
			t.Errorf("%s: an unsanitised control reached the output: %q", f.Code, line)
		}
	}
}

// TestValidatorCatchesViolations: the validator is not vacuous.
func TestValidatorCatchesViolations(t *testing.T) {
	s := loadSchema(t)
	class := s.attrs(t, "events/findings/detection_finding.json")
	ev := From(finding.New(finding.CheckpointFork, "checkpoint", "x"), Context{Time: time.Unix(1, 0)})
	line, _ := json.Marshal(ev)
	for name, mutate := range map[string]func(m map[string]any){
		"missing finding_info.uid": func(m map[string]any) { delete(m["finding_info"].(map[string]any), "uid") },
		"bad severity_id":          func(m map[string]any) { m["severity_id"] = 7.0 },
		"unknown attribute":        func(m map[string]any) { m["memscope_code"] = "x" },
		"time as string":           func(m map[string]any) { m["time"] = "yesterday" },
		"missing metadata.version": func(m map[string]any) { delete(m["metadata"].(map[string]any), "version") },
	} {
		var m map[string]any
		json.Unmarshal(line, &m)
		mutate(m)
		if len(s.check(t, m, class, "")) == 0 {
			t.Errorf("%s: not caught", name)
		}
	}
}
