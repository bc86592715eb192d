package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/memscope/memscope/internal/present/finding"
)

// runArgs runs memscope with args and answers exit code, stdout, stderr.
func runArgs(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

// Every command's help lists its flags with two dashes, and no flag's
// default twice.
func TestHelpFlagsTwoDashesOneDefault(t *testing.T) {
	singleDash := regexp.MustCompile(`(?m)^  -[a-z]`)
	for _, c := range commands {
		if c.name == "help" {
			continue
		}
		code, out, _ := runArgs("help", c.name)
		if code != exitOK {
			t.Fatalf("help %s: exit %d", c.name, code)
		}
		if m := singleDash.FindString(out); m != "" {
			t.Errorf("help %s lists a flag with one dash: %q", c.name, m)
		}
		for _, line := range strings.Split(out, "\n") {
			if strings.Count(line, "(default") > 1 {
				t.Errorf("help %s: default twice: %q", c.name, line)
			}
		}
	}
	_, out, _ := runArgs("help", "verify")
	for _, want := range []string{"  --log string\n", "  --smsr-k value\n        SMSR certificate: memories each run keeps (default 5)\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("help verify lacks %q:\n%s", want, out)
		}
	}
}

// A usage error prints the usage on its own lines: no literal \n.
func TestUsageErrorsHaveNoLiteralNewline(t *testing.T) {
	for _, c := range commands {
		for _, args := range [][]string{{c.name}, {c.name, "a", "b", "c"}} {
			code, _, errs := runArgs(args...)
			if strings.Contains(errs, `\n`) {
				t.Errorf("%v: exit %d, stderr has a literal \\n: %q", args, code, errs)
			}
		}
	}
	_, _, errs := runArgs("lineage")
	if !strings.Contains(errs, "\n       memscope lineage sweep SNAPSHOT") {
		t.Errorf("lineage's two-line usage not printed on two lines: %q", errs)
	}
}

// usageFlags are the flags a command's usage line names (written by hand,
// so an independent list of what completion must offer).
func usageFlags(t *testing.T, name string) []string {
	if name == "help" {
		return nil
	}
	_, out, _ := runArgs("help", name)
	usage, _, _ := strings.Cut(out, "\nflags:")
	return regexp.MustCompile(`--[a-z][a-z0-9-]*`).FindAllString(usage, -1)
}

// completionCases are command lines (the last word being completed) and
// what completing them must and must not offer, for every shell.
type completionCase struct {
	words        []string
	want, reject []string
}

func completionCases(t *testing.T, dir string) []completionCase {
	cases := []completionCase{
		{words: []string{"ver"}, want: []string{"verify", "version"}, reject: []string{"replay"}},
		{words: []string{""}, want: []string{"completion", "inspect", "report", "diff"}},
		{words: []string{"verify", "--lo"}, want: []string{"--log", "--log-key"}, reject: []string{"--json"}},
		{words: []string{"help", "SIG_I"}, want: []string{"SIG_INVALID"}},
		{words: []string{"help", "struct"}, want: []string{"structural write"}},
		{words: []string{"help", "BREAK"}, want: []string{"BREAK<=tau"}},
		{words: []string{"help", "rep"}, want: []string{"replay", "report"}},
		{words: []string{"completion", ""}, want: []string{"bash", "fish", "zsh"}},
		{words: []string{"verify", "--log", filepath.Join(dir, "lo")}, want: []string{filepath.Join(dir, "logdir")}},
	}
	// Every finding code of the catalogue is a help topic.
	for _, s := range finding.Catalogue {
		cases = append(cases, completionCase{words: []string{"help", string(s.Code)}, want: []string{string(s.Code)}})
	}
	for _, c := range commands {
		if flags := usageFlags(t, c.name); len(flags) > 0 {
			cases = append(cases, completionCase{words: []string{c.name, "--"}, want: flags})
		}
	}
	return cases
}

func completionScript(t *testing.T, shell string) string {
	code, out, errs := runArgs("completion", shell)
	if code != exitOK {
		t.Fatalf("completion %s: exit %d: %s", shell, code, errs)
	}
	p := filepath.Join(t.TempDir(), "memscope."+shell)
	if err := os.WriteFile(p, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func completionDir(t *testing.T) string {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "logdir"), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

func checkCompletion(t *testing.T, shell string, c completionCase, got []string) {
	t.Helper()
	for _, w := range c.want {
		if !slices.Contains(got, w) {
			t.Errorf("%s: memscope %q offers %q, not %q", shell, strings.Join(c.words, " "), got, w)
		}
	}
	for _, r := range c.reject {
		if slices.Contains(got, r) {
			t.Errorf("%s: memscope %q offers %q", shell, strings.Join(c.words, " "), r)
		}
	}
}

// The bash script, sourced into a real bash, completes through the same
// variables bash's programmable completion sets.
func TestCompletionBash(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash is not on PATH")
	}
	script, dir := completionScript(t, "bash"), completionDir(t)
	for _, c := range completionCases(t, dir) {
		words := append([]string{"memscope"}, c.words...)
		prog := `source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _memscope; printf '%s\n' "${COMPREPLY[@]}"`
		out, err := exec.Command(bash, append([]string{"-c", prog, "bash", script}, words...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("bash: %v: %s", err, out)
		}
		checkCompletion(t, "bash", c, strings.Split(strings.TrimRight(string(out), "\n"), "\n"))
	}
}

// The zsh script runs in a real zsh with the completion system's builtins
// (compadd, _describe, _files) replaced by functions that print what they
// are given.
func TestCompletionZsh(t *testing.T) {
	zsh, err := exec.LookPath("zsh")
	if err != nil {
		t.Skip("zsh is not on PATH")
	}
	script, dir := completionScript(t, "zsh"), completionDir(t)
	if out, err := exec.Command(zsh, "-n", script).CombinedOutput(); err != nil {
		t.Fatalf("zsh -n: %v: %s", err, out)
	}
	stubs := `compdef() {}
_describe() { local x; for x in ${(P)2}; do print -r -- ${${x%%:*}//\\:/:}; done }
compadd() { if [[ $1 == -a ]]; then print -rl -- ${(P)2}; else print -rl -- "$@"; fi }
_files() { print -rl -- $PREFIX*(N) }
`
	for _, c := range completionCases(t, dir) {
		prog := stubs + `source "$1"; shift; words=(memscope "$@"); CURRENT=${#words}; PREFIX=${words[-1]}; _memscope`
		out, err := exec.Command(zsh, append([]string{"-f", "-c", prog, "zsh", script}, c.words...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("zsh: %v: %s", err, out)
		}
		var got []string
		for _, l := range strings.Split(strings.TrimRight(string(out), "\n"), "\n") {
			if strings.HasPrefix(l, c.words[len(c.words)-1]) {
				got = append(got, l)
			}
		}
		checkCompletion(t, "zsh", c, got)
	}
}

// fish completes the command line itself (complete -C).
func TestCompletionFish(t *testing.T) {
	fish, err := exec.LookPath("fish")
	if err != nil {
		t.Skip("fish is not on PATH")
	}
	script, dir := completionScript(t, "fish"), completionDir(t)
	for _, c := range completionCases(t, dir) {
		line := "memscope"
		for _, w := range c.words {
			line += " " + strings.ReplaceAll(w, " ", `\ `)
		}
		out, err := exec.Command(fish, "--no-config", "-c", `source $argv[1]; complete -C $argv[2]`, script, line).CombinedOutput()
		if err != nil {
			t.Fatalf("fish: %v: %s", err, out)
		}
		var got []string
		for _, l := range strings.Split(strings.TrimRight(string(out), "\n"), "\n") {
			name, _, _ := strings.Cut(l, "\t")
			got = append(got, strings.TrimSuffix(name, "/"))
		}
		checkCompletion(t, "fish", c, got)
	}
}
