package lineage

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"unicode/utf8"
)

// Verdict is a gate decision (MemLineage, arXiv:2605.14421, section 3.7).
type Verdict uint8

const (
	Allow Verdict = iota
	Deny
	RequireUser
	StripAndRetry
	RepairAndRetry
)

var verdictNames = [...]string{"allow", "deny", "require-user", "strip-and-retry", "repair-and-retry"}

func (v Verdict) String() string {
	if int(v) < len(verdictNames) {
		return verdictNames[v]
	}
	return fmt.Sprintf("Verdict(%d)", uint8(v))
}

// ParseVerdict reads a verdict name as used in policy files.
func ParseVerdict(s string) (Verdict, error) {
	for i, n := range verdictNames {
		if s == n {
			return Verdict(i), nil
		}
	}
	return 0, fmt.Errorf("unknown verdict %q (want one of %s)", s, strings.Join(verdictNames[:], ", "))
}

// ToolRule is the gate rule for one sensitive tool.
type ToolRule struct {
	// Verdict is given when the action's justification holds an untrusted
	// entry. Never Allow.
	Verdict Verdict `json:"verdict"`
	// Governed names the security-critical parameters. They are reported
	// and are what Repair-and-Retry would rewrite.
	Governed []string `json:"governed"`
}

// Policy decides which tools are sensitive and what the gate says when one
// is justified by untrusted memory.
type Policy struct {
	Tools map[string]ToolRule `json:"tools"`
	// UnknownTools gives the rule for tools not listed; nil means unlisted
	// tools are not sensitive.
	UnknownTools *ToolRule `json:"unknown_tools"`
}

// DefaultPolicy is the built-in policy: outbound messages, money, code
// execution, file writes and outbound HTTP are sensitive and denied.
func DefaultPolicy() *Policy {
	return &Policy{Tools: map[string]ToolRule{
		"send_email":     {Verdict: Deny, Governed: []string{"to", "subject", "body"}},
		"send_money":     {Verdict: Deny, Governed: []string{"recipient", "amount"}},
		"transfer_funds": {Verdict: Deny, Governed: []string{"recipient", "amount"}},
		"execute_shell":  {Verdict: Deny, Governed: []string{"command"}},
		"run_code":       {Verdict: Deny, Governed: []string{"code"}},
		"write_file":     {Verdict: Deny, Governed: []string{"path", "content"}},
		"delete_file":    {Verdict: Deny, Governed: []string{"path"}},
		"http_post":      {Verdict: Deny, Governed: []string{"url", "body"}},
	}}
}

// Rule returns the rule for a tool and whether the tool is sensitive.
func (p *Policy) Rule(tool string) (ToolRule, bool) {
	if r, ok := p.Tools[tool]; ok {
		return r, true
	}
	if p.UnknownTools != nil {
		return *p.UnknownTools, true
	}
	return ToolRule{}, false
}

// MaxPolicyBytes bounds a policy file; real ones are a few kilobytes.
const MaxPolicyBytes = 1 << 20

// Policy file format (JSON, version 1):
//
//	{
//	  "version": 1,
//	  "tools": {
//	    "send_email":     {"verdict": "deny", "governed": ["to", "body"]},
//	    "transfer_funds": {"verdict": "repair-and-retry", "governed": ["recipient", "amount"]}
//	  },
//	  "unknown_tools": {"verdict": "require-user"}
//	}
//
// Every listed tool is sensitive. "unknown_tools" is optional; without it,
// unlisted tools are not sensitive. Unknown fields, duplicate keys, trailing
// data, empty tool or parameter names, duplicate parameters and the verdict
// "allow" (a sensitive tool cannot be allowed on untrusted justification)
// are errors.
type policyFile struct {
	Version      *int                `json:"version"`
	Tools        map[string]toolFile `json:"tools"`
	UnknownTools *toolFile           `json:"unknown_tools"`
}

type toolFile struct {
	Verdict  *string  `json:"verdict"`
	Governed []string `json:"governed"`
}

// ParsePolicy parses a policy file strictly. Errors name the offending tool
// or field.
func ParsePolicy(data []byte) (*Policy, error) {
	if len(data) > MaxPolicyBytes {
		return nil, fmt.Errorf("policy: file is %d bytes, limit %d", len(data), MaxPolicyBytes)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, errors.New("policy: file is empty")
	}
	if !utf8.Valid(data) {
		return nil, errors.New("policy: file is not valid UTF-8")
	}
	if err := checkDuplicateKeys(data); err != nil {
		return nil, fmt.Errorf("policy: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var f policyFile
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("policy: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("policy: trailing data after the JSON object")
	}
	if f.Version == nil {
		return nil, errors.New(`policy: missing "version" (want 1)`)
	}
	if *f.Version != 1 {
		return nil, fmt.Errorf(`policy: "version" is %d, only 1 is supported`, *f.Version)
	}
	if f.Tools == nil {
		return nil, errors.New(`policy: missing "tools" object`)
	}
	p := &Policy{Tools: make(map[string]ToolRule, len(f.Tools))}
	names := make([]string, 0, len(f.Tools))
	for name := range f.Tools {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if strings.TrimSpace(name) == "" {
			return nil, errors.New("policy: tools: empty tool name")
		}
		r, err := f.Tools[name].rule()
		if err != nil {
			return nil, fmt.Errorf("policy: tools.%s: %w", name, err)
		}
		p.Tools[name] = r
	}
	if f.UnknownTools != nil {
		r, err := f.UnknownTools.rule()
		if err != nil {
			return nil, fmt.Errorf("policy: unknown_tools: %w", err)
		}
		p.UnknownTools = &r
	}
	return p, nil
}

func (t toolFile) rule() (ToolRule, error) {
	if t.Verdict == nil {
		return ToolRule{}, errors.New(`missing "verdict"`)
	}
	v, err := ParseVerdict(*t.Verdict)
	if err != nil {
		return ToolRule{}, fmt.Errorf("verdict: %w", err)
	}
	if v == Allow {
		return ToolRule{}, errors.New(`verdict "allow" is not permitted for a sensitive tool; leave the tool out of the policy instead`)
	}
	seen := map[string]bool{}
	for i, g := range t.Governed {
		if strings.TrimSpace(g) == "" {
			return ToolRule{}, fmt.Errorf("governed[%d]: empty parameter name", i)
		}
		if seen[g] {
			return ToolRule{}, fmt.Errorf("governed[%d]: parameter %q listed twice", i, g)
		}
		seen[g] = true
	}
	return ToolRule{Verdict: v, Governed: append([]string(nil), t.Governed...)}, nil
}

// jsonScope is an open object or array while checking for duplicate keys.
type jsonScope struct {
	keys      map[string]bool // nil for an array
	expectKey bool
	path      string
}

// checkDuplicateKeys walks the JSON tokens and rejects an object with a
// repeated key, which encoding/json would otherwise resolve silently (last
// one wins) and so hide a conflicting rule.
func checkDuplicateKeys(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	var stack []*jsonScope
	// valueDone tells the enclosing object that its current value is
	// complete, so the next token is a key.
	valueDone := func() {
		if len(stack) > 0 && stack[len(stack)-1].keys != nil {
			stack[len(stack)-1].expectKey = true
		}
	}
	path := "$"
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if len(stack) > 0 && stack[len(stack)-1].expectKey {
			top := stack[len(stack)-1]
			if d, ok := tok.(json.Delim); ok && d == '}' {
				stack = stack[:len(stack)-1]
				valueDone()
				continue
			}
			key, _ := tok.(string)
			if top.keys[key] {
				return fmt.Errorf("duplicate key %q in %s", key, top.path)
			}
			top.keys[key] = true
			top.expectKey = false
			path = top.path + "." + key
			continue
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &jsonScope{keys: map[string]bool{}, expectKey: true, path: path})
		case json.Delim('['):
			stack = append(stack, &jsonScope{path: path + "[]"})
			path += "[]"
		case json.Delim(']'), json.Delim('}'):
			stack = stack[:len(stack)-1]
			valueDone()
		default:
			valueDone()
		}
		if len(stack) > 32 {
			return errors.New("nesting deeper than 32 levels")
		}
	}
}
