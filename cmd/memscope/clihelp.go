package main

import (
	"flag"
	"fmt"
	"io"
	"reflect"
	"strings"
	"sync"
)

// printFlags lists a command's flags as every doc writes them (--log, two
// dashes), each with its argument type, its usage and its default once: a
// usage text that already says "(default ...)" gets no second one.
func printFlags(w io.Writer, fs *flag.FlagSet) {
	fs.VisitAll(func(f *flag.Flag) {
		typ, usage := flag.UnquoteUsage(f)
		line := "  --" + f.Name
		if typ != "" {
			line += " " + typ
		}
		fmt.Fprintln(w, line)
		if !strings.Contains(usage, "(default") && !isZeroDefault(f) {
			if g, ok := f.Value.(flag.Getter); ok && isStringValue(g) {
				usage += fmt.Sprintf(" (default %q)", f.DefValue)
			} else {
				usage += fmt.Sprintf(" (default %s)", f.DefValue)
			}
		}
		fmt.Fprintf(w, "        %s\n", strings.ReplaceAll(usage, "\n", "\n        "))
	})
}

func isStringValue(g flag.Getter) bool {
	_, ok := g.Get().(string)
	return ok
}

// isZeroDefault says whether a flag's default is its type's zero value (the
// standard flag package's rule for leaving the default out).
func isZeroDefault(f *flag.Flag) bool {
	t := reflect.TypeOf(f.Value)
	var zero flag.Value
	if t.Kind() == reflect.Pointer {
		zero = reflect.New(t.Elem()).Interface().(flag.Value)
	} else {
		zero = reflect.Zero(t).Interface().(flag.Value)
	}
	return f.DefValue == zero.String()
}

// commandUsages are the usage lines the commands print. Several span two
// lines; a usage error quotes one whole, and run prints it with its line
// breaks (the rest of an error's text is sanitised to one line).
var commandUsages = []string{actionsUsage, certifyUsage, demoUsage, diffUsage, exposureUsage, importUsage,
	inspectUsage, lineageUsage, recordUsage, replayUsage, reportUsage, timelineUsage, verifyUsage}

// usageLines restores the line breaks of the usage lines a sanitised
// message quotes.
func usageLines(sanitised string) string {
	for _, u := range commandUsages {
		if strings.Contains(u, "\n") {
			sanitised = strings.ReplaceAll(sanitised, strings.ReplaceAll(u, "\n", `\n`), u)
		}
	}
	return sanitised
}

// flagSetWatch, while set, sees every flag set a command creates: the
// completion generator learns each command's flags by asking it for help.
var flagSetWatch struct {
	sync.Mutex
	seen func(*flag.FlagSet)
}

func watchFlagSet(fs *flag.FlagSet) {
	flagSetWatch.Lock()
	defer flagSetWatch.Unlock()
	if flagSetWatch.seen != nil {
		flagSetWatch.seen(fs)
	}
}
