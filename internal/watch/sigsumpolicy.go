package watch

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// This file reads a witness policy exactly as sigsum-go reads one
// (sigsum.org/sigsum-go, pkg/policy/config.go and builder.go at commit
// 192b553, 2026-05-06, the v0.14.1 line). sigsum-go itself was the parser
// until the Go module proxy stopped serving it; the rules below are its,
// one by one, and TestPolicyAgainstSigsumGo compares the two on generated
// files wherever a sigsum-go checkout is at hand.
//
//   - Lines are split as bufio.Scanner splits them (a final "\r" dropped,
//     at most 64 KiB a line: a longer one fails the whole file).
//   - A line with a byte below 0x20 or 0x7f (other than a tab) fails the
//     file; bytes from 0x80 up, valid UTF-8 or not, are allowed.
//   - Fields are separated by spaces and tabs; a line with none, or whose
//     first field begins with "#", is skipped ("#" later in a line is an
//     ordinary field).
//   - log KEY [URL]; witness NAME KEY [URL]; group NAME K MEMBER...;
//     quorum NAME. KEY is 64 hex digits (either case); K is "any" (1),
//     "all" (the member count) or a decimal as strconv.Atoi reads it, from
//     1 to the member count.
//   - Names are one namespace: a witness or group name defined twice, or
//     the predefined "none" (an empty group, met by nothing at all)
//     redefined, fails. Two witnesses or two logs with one key fail.
//   - A group's members must be defined before it, and each witness or
//     group can be a member of one group only; "none" of none.
//   - quorum is given once, naming a defined witness or group (or none);
//     a file without it fails.

// policyNone is sigsum's predefined empty group: "quorum none" asks for
// no cosignature.
const policyNone = "none"

// quorumNode is one node of the quorum tree: a witness (key hash) or a
// group of k of its members.
type quorumNode struct {
	witness *[32]byte
	k       int
	members []*quorumNode
}

// met says whether the node is satisfied by the verified witnesses.
func (n *quorumNode) met(verified map[[32]byte]bool) bool {
	if n.witness != nil {
		return verified[*n.witness]
	}
	got := 0
	for _, m := range n.members {
		if m.met(verified) {
			got++
		}
	}
	return got >= n.k
}

// parsedPolicy is a policy file's content.
type parsedPolicy struct {
	logs      map[[32]byte][]byte
	witnesses map[[32]byte][]byte // key hash -> public key
	quorum    *quorumNode
}

// policyBuilder holds the names defined so far and which are members.
type policyBuilder struct {
	parsedPolicy
	names    map[string]*quorumNode
	memberOf map[string]string // name -> its group ("" for none: never a member)
}

func parseSigsumPolicy(r io.Reader) (*parsedPolicy, error) {
	b := &policyBuilder{
		parsedPolicy: parsedPolicy{logs: map[[32]byte][]byte{}, witnesses: map[[32]byte][]byte{}},
		names:        map[string]*quorumNode{policyNone: {}},
		memberOf:     map[string]string{policyNone: ""},
	}
	sc := bufio.NewScanner(r)
	for lineNo := 1; sc.Scan(); lineNo++ {
		line := sc.Text()
		if i := strings.IndexFunc(line, func(c rune) bool { return c < 0x80 && c != '\t' && (c < 0x20 || c == 0x7f) }); i >= 0 {
			return nil, fmt.Errorf("line %d: control character 0x%02x", lineNo, line[i])
		}
		fields := strings.FieldsFunc(line, func(c rune) bool { return c == ' ' || c == '\t' })
		if len(fields) == 0 || strings.HasPrefix(fields[0], "#") {
			continue
		}
		if err := b.line(fields[0], fields[1:]); err != nil {
			return nil, fmt.Errorf("line %d: %w", lineNo, err)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if b.quorum == nil {
		return nil, errors.New("no quorum line")
	}
	return &b.parsedPolicy, nil
}

func (b *policyBuilder) line(keyword string, args []string) error {
	switch keyword {
	case "log":
		if len(args) < 1 || len(args) > 2 {
			return errors.New("log: want a key and at most a URL")
		}
		key, err := policyKey(args[0])
		if err != nil {
			return err
		}
		h := sha256.Sum256(key)
		if _, dup := b.logs[h]; dup {
			return fmt.Errorf("log %x given twice", key)
		}
		b.logs[h] = key
	case "witness":
		if len(args) < 2 || len(args) > 3 {
			return errors.New("witness: want a name, a key and at most a URL")
		}
		return b.witness(args[0], args[1])
	case "group":
		if len(args) < 3 {
			return errors.New("group: want a name, a threshold and at least one member")
		}
		return b.group(args[0], args[1], args[2:])
	case "quorum":
		if len(args) != 1 {
			return errors.New("quorum: want one group or witness name")
		}
		if b.quorum != nil {
			return errors.New("quorum given twice")
		}
		n, ok := b.names[args[0]]
		if !ok {
			return fmt.Errorf("quorum: %q is not defined", args[0])
		}
		b.quorum = n
	default:
		return fmt.Errorf("unknown keyword %q", keyword)
	}
	return nil
}

func (b *policyBuilder) witness(name, hexKey string) error {
	key, err := policyKey(hexKey)
	if err != nil {
		return err
	}
	if _, dup := b.names[name]; dup {
		return fmt.Errorf("witness: the name %q is already defined", name)
	}
	h := sha256.Sum256(key)
	if _, dup := b.witnesses[h]; dup {
		return fmt.Errorf("witness %q: key %x given twice", name, key)
	}
	b.witnesses[h] = key
	b.names[name] = &quorumNode{witness: &h}
	return nil
}

func (b *policyBuilder) group(name, threshold string, members []string) error {
	k := len(members)
	switch threshold {
	case "any":
		k = 1
	case "all":
	default:
		var err error
		if k, err = strconv.Atoi(threshold); err != nil {
			return fmt.Errorf("group %q: threshold %q: %w", name, threshold, err)
		}
	}
	if k < 1 || k > len(members) {
		return fmt.Errorf("group %q: threshold %d for %d members", name, k, len(members))
	}
	if _, dup := b.names[name]; dup {
		return fmt.Errorf("group: the name %q is already defined", name)
	}
	g := &quorumNode{k: k}
	for _, m := range members {
		if parent, used := b.memberOf[m]; used {
			if parent == "" {
				return fmt.Errorf("group %q: %q cannot be a member", name, m)
			}
			return fmt.Errorf("group %q: %q is already a member of %q", name, m, parent)
		}
		n, ok := b.names[m]
		if !ok {
			return fmt.Errorf("group %q: member %q is not defined", name, m)
		}
		b.memberOf[m] = name
		g.members = append(g.members, n)
	}
	b.names[name] = g
	return nil
}

// policyKey decodes a policy's hex Ed25519 public key.
func policyKey(s string) ([]byte, error) {
	key, err := hex.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("key %q: %w", s, err)
	}
	if len(key) != 32 {
		return nil, fmt.Errorf("key %q: %d bytes, want 32", s, len(key))
	}
	return key, nil
}
