package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/tui"
)

const completionUsage = "memscope completion bash|zsh|fish"

// completionHelp says how to load each script.
const completionHelp = `Load it in the running shell, or install it where the shell looks:
  bash: source <(memscope completion bash)
        memscope completion bash > ~/.local/share/bash-completion/completions/memscope
  zsh:  source <(memscope completion zsh)
        memscope completion zsh > "${fpath[1]}/_memscope"
  fish: memscope completion fish | source
        memscope completion fish > ~/.config/fish/completions/memscope.fish`

// runCompletion prints a shell completion script: commands, each command's
// flags (files after a flag that takes a value), and for help the
// commands, finding codes and glossary words.
func runCompletion(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	if len(args) == 1 && (args[0] == "-h" || args[0] == "--help" || args[0] == "-help") {
		fmt.Fprintf(stdout, "usage: %s\n\n%s\n", completionUsage, completionHelp)
		return exitOK, nil
	}
	if len(args) != 1 {
		return exitUsage, usagef("want one shell; usage: %s", completionUsage)
	}
	spec := completionSpecOf(ctx)
	switch args[0] {
	case "bash":
		writeBashCompletion(stdout, spec)
	case "zsh":
		writeZshCompletion(stdout, spec)
	case "fish":
		writeFishCompletion(stdout, spec)
	default:
		return exitUsage, usagef("no completion for shell %q; usage: %s", args[0], completionUsage)
	}
	return exitOK, nil
}

// completionSpec is what the scripts complete.
type completionSpec struct {
	commands []completionCommand
	// topics are what 'memscope help' explains: commands, finding codes
	// and glossary words (some hold spaces).
	topics []string
}

type completionCommand struct {
	name, summary string
	flags         []completionFlag
}

type completionFlag struct {
	name, usage string
	takesValue  bool
}

// completionSpecOf asks every command for its help (as 'memscope help
// COMMAND' does) and keeps the flag sets it creates, so the scripts list
// exactly the flags each command parses.
func completionSpecOf(ctx context.Context) completionSpec {
	var spec completionSpec
	for _, c := range commands {
		sets := map[string]*flag.FlagSet{}
		flagSetWatch.Lock()
		flagSetWatch.seen = func(fs *flag.FlagSet) { sets[fs.Name()] = fs }
		flagSetWatch.Unlock()
		if c.name != "completion" {
			c.run(ctx, []string{"-h"}, io.Discard, io.Discard)
		}
		flagSetWatch.Lock()
		flagSetWatch.seen = nil
		flagSetWatch.Unlock()
		cc := completionCommand{name: c.name, summary: c.summary}
		if fs := sets[c.name]; fs != nil {
			fs.VisitAll(func(f *flag.Flag) {
				bf, isBool := f.Value.(interface{ IsBoolFlag() bool })
				cc.flags = append(cc.flags, completionFlag{name: f.Name, usage: f.Usage, takesValue: !(isBool && bf.IsBoolFlag())})
			})
		}
		spec.commands = append(spec.commands, cc)
		spec.topics = append(spec.topics, c.name)
	}
	for _, s := range finding.Catalogue {
		spec.topics = append(spec.topics, string(s.Code))
	}
	seen := map[string]bool{}
	for _, t := range spec.topics {
		seen[t] = true
	}
	var terms []string
	for _, t := range tui.Glossary() {
		if !seen[t.Term] {
			seen[t.Term] = true
			terms = append(terms, t.Term)
		}
	}
	sort.Strings(terms)
	spec.topics = append(spec.topics, terms...)
	return spec
}

// shellWords are the words a command completes before any flag: the shells
// a completion is for, and lineage's sweep.
var shellWords = map[string][]string{"completion": {"bash", "zsh", "fish"}, "lineage": {"sweep"}}

func flagNames(c completionCommand, valueOnly bool) []string {
	var out []string
	for _, f := range c.flags {
		if !valueOnly || f.takesValue {
			out = append(out, "--"+f.name)
		}
	}
	return out
}

// bashQuote quotes s for bash as $'...'.
func bashQuote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `'`, `\'`, "\n", `\n`)
	return "$'" + r.Replace(s) + "'"
}

func writeBashCompletion(w io.Writer, spec completionSpec) {
	var names []string
	for _, c := range spec.commands {
		names = append(names, c.name)
	}
	fmt.Fprintf(w, `# bash completion for memscope (memscope completion bash).
_memscope() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
    local cmd="" i
    for ((i = 1; i < COMP_CWORD; i++)); do
        case ${COMP_WORDS[i]} in
        -*) ;;
        *) cmd=${COMP_WORDS[i]}; break ;;
        esac
    done
    local IFS=$'\n' words="" flags="" valueflags=""
    if [[ -z $cmd ]]; then
        mapfile -t COMPREPLY < <(compgen -W %s -- "$cur")
        return
    fi
    case $cmd in
`, bashQuote(strings.Join(names, "\n")))
	fmt.Fprintf(w, "    help)\n        mapfile -t COMPREPLY < <(compgen -W %s -- \"$cur\")\n        return ;;\n", bashQuote(strings.Join(spec.topics, "\n")))
	for _, c := range spec.commands {
		if c.name == "help" {
			continue
		}
		fmt.Fprintf(w, "    %s)\n        words=%s\n        flags=%s\n        valueflags=%s ;;\n", c.name,
			bashQuote(strings.Join(shellWords[c.name], "\n")), bashQuote(strings.Join(flagNames(c, false), "\n")), bashQuote(strings.Join(flagNames(c, true), "\n")))
	}
	fmt.Fprint(w, `    *) return ;;
    esac
    if [[ -n $valueflags && $'\n'$valueflags$'\n' == *$'\n'$prev$'\n'* ]]; then
        compopt -o filenames 2>/dev/null
        mapfile -t COMPREPLY < <(compgen -f -- "$cur")
        return
    fi
    if [[ $cur == -* ]]; then
        mapfile -t COMPREPLY < <(compgen -W "$flags" -- "$cur")
        return
    fi
    if [[ -n $words ]]; then
        mapfile -t COMPREPLY < <(compgen -W "$words" -- "$cur")
        [[ ${#COMPREPLY[@]} -gt 0 ]] && return
    fi
    compopt -o filenames 2>/dev/null
    mapfile -t COMPREPLY < <(compgen -f -- "$cur")
}
complete -F _memscope memscope
`)
}

// zshQuote quotes s for zsh in single quotes.
func zshQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// zshDescribed is a _describe item: the name with its colons escaped, a
// colon, and the description.
func zshDescribed(name, desc string) string {
	desc = strings.ReplaceAll(strings.ReplaceAll(desc, "\n", " "), "[", "(")
	return zshQuote(strings.ReplaceAll(name, ":", `\:`) + ":" + desc)
}

func writeZshCompletion(w io.Writer, spec completionSpec) {
	fmt.Fprint(w, "#compdef memscope\n# zsh completion for memscope (memscope completion zsh).\n_memscope() {\n    local -a memscope_commands topics flags valueflags subwords\n    memscope_commands=(\n")
	for _, c := range spec.commands {
		fmt.Fprintf(w, "        %s\n", zshDescribed(c.name, c.summary))
	}
	fmt.Fprint(w, "    )\n    if (( CURRENT == 2 )); then\n        _describe command memscope_commands\n        return\n    fi\n    case ${words[2]} in\n    help)\n        topics=(\n")
	for _, t := range spec.topics {
		fmt.Fprintf(w, "            %s\n", zshQuote(t))
	}
	fmt.Fprint(w, "        )\n        compadd -a topics\n        return ;;\n")
	for _, c := range spec.commands {
		if c.name == "help" {
			continue
		}
		fmt.Fprintf(w, "    %s)\n        flags=(", c.name)
		for _, f := range c.flags {
			fmt.Fprintf(w, "\n            %s", zshDescribed("--"+f.name, f.usage))
		}
		fmt.Fprint(w, "\n        )\n        valueflags=(")
		for _, n := range flagNames(c, true) {
			fmt.Fprintf(w, " %s", zshQuote(n))
		}
		fmt.Fprint(w, " )\n        subwords=(")
		for _, n := range shellWords[c.name] {
			fmt.Fprintf(w, " %s", zshQuote(n))
		}
		fmt.Fprint(w, " ) ;;\n")
	}
	fmt.Fprint(w, `    *) return 1 ;;
    esac
    if (( ${valueflags[(Ie)${words[CURRENT-1]}]} )); then
        _files
        return
    fi
    if [[ $PREFIX == -* ]]; then
        _describe flag flags
        return
    fi
    if (( ${#subwords} )); then
        compadd -a subwords
    fi
    _files
}
if [[ ${funcstack[1]} == _memscope ]]; then
    _memscope "$@"
else
    compdef _memscope memscope
fi
`)
}

// fishQuote quotes s for fish in single quotes.
func fishQuote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`, "\n", " ").Replace(s) + "'"
}

// fishArg escapes s as one word of a -a list, which fish tokenises and
// expands (a space, <, ? or $ would otherwise split or redirect).
func fishArg(s string) string {
	var b strings.Builder
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_-.=:,/+@%^", r)) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

func writeFishCompletion(w io.Writer, spec completionSpec) {
	fmt.Fprint(w, "# fish completion for memscope (memscope completion fish).\ncomplete -c memscope -e\n")
	for _, c := range spec.commands {
		fmt.Fprintf(w, "complete -c memscope -f -n '__fish_use_subcommand' -a %s -d %s\n", fishQuote(fishArg(c.name)), fishQuote(c.summary))
	}
	for _, t := range spec.topics {
		fmt.Fprintf(w, "complete -c memscope -f -n '__fish_seen_subcommand_from help' -a %s\n", fishQuote(fishArg(t)))
	}
	for _, c := range spec.commands {
		cond := fishQuote("__fish_seen_subcommand_from " + c.name)
		for _, f := range c.flags {
			opt := ""
			if f.takesValue {
				opt = " -r -F"
			}
			fmt.Fprintf(w, "complete -c memscope -n %s -l %s%s -d %s\n", cond, fishQuote(f.name), opt, fishQuote(f.usage))
		}
		for _, n := range shellWords[c.name] {
			fmt.Fprintf(w, "complete -c memscope -n %s -a %s\n", cond, fishQuote(fishArg(n)))
		}
	}
}
