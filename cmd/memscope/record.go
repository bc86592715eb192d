package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime/debug"

	"github.com/memscope/memscope/internal/recorder"
)

const recordUsage = `memscope record init DIR [agent:NAME...] [--log-storage mysql://...]
       memscope record --store DIR [--config FILE] [--agent agent:NAME] [--log-storage mysql://...] [--ack sequenced|integrated] [--listen SOCKET] [-- CMD [ARGS...]]
       memscope record --connect SOCKET`

// runRecord is memscope record: the MCP gateway that writes evidence
// (internal/recorder; docs/RECORD.md).
func runRecord(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	if len(args) > 0 && args[0] == "init" {
		var pos []string
		logStorage := ""
		for i := 1; i < len(args); i++ {
			if args[i] == "--log-storage" && i+1 < len(args) {
				logStorage = args[i+1]
				i++
				continue
			}
			pos = append(pos, args[i])
		}
		if len(pos) < 1 {
			return exitUsage, usagef("usage: memscope record init DIR [agent:NAME...] [--log-storage mysql://...]")
		}
		res, err := recorder.Init(ctx, pos[0], pos[1:], logStorage)
		if err != nil {
			return exitUsage, err
		}
		fmt.Fprintf(stdout, "recorder store %s ready; agents: %v\nthe registry root key is %s/%s: move it offline once every principal is registered\ncheck the store with:\n  %s\n",
			res.Dir, res.Agents, res.Dir, recorder.RootKeyFile, res.VerifyCmd)
		return exitOK, nil
	}
	fs := newFlagSet("record", recordUsage, stderr)
	store := fs.String("store", "", "the recorder store (memscope record init DIR makes one)")
	cfgPath := fs.String("config", "", "JSON config: upstream servers, roles, lineage window (docs/RECORD.md)")
	agent := fs.String("agent", "", "the agent principal the session records as (default: the store's first)")
	logStorage := fs.String("log-storage", "", "where the log lives: the store's POSIX directory (default) or mysql://...")
	ack := fs.String("ack", string(recorder.AckSequenced), "release a result once its records are committed to the snapshot with log indices assigned (sequenced), or only once the log has integrated them (integrated); docs/RECORD.md")
	listen := fs.String("listen", "", "serve agent sessions on this Unix socket (created owner-only; must not exist) instead of stdin/stdout, until interrupted")
	connect := fs.String("connect", "", "relay stdin/stdout to a gateway started with --listen on this socket (for agents that can only start a command)")
	if err := fs.Parse(args); err != nil {
		return exitUsage, nil
	}
	if *connect != "" {
		if *store != "" || *cfgPath != "" || *listen != "" || fs.NArg() > 0 {
			return exitUsage, usagef("--connect takes no other argument: the gateway listening on the socket has the store and the servers")
		}
		if err := recorder.Connect(ctx, *connect, os.Stdin, stdout); err != nil {
			return exitUsage, err
		}
		return exitOK, nil
	}
	if *ack != string(recorder.AckSequenced) && *ack != string(recorder.AckIntegrated) {
		return exitUsage, usagef("--ack %q: want sequenced or integrated", *ack)
	}
	if *store == "" {
		return exitUsage, usagef("--store is required; usage: memscope record --store DIR [--config FILE] [-- CMD [ARGS...]] (memscope help record)")
	}
	o := recorder.RunOptions{Store: *store, Command: fs.Args(), Agent: *agent, LogStorage: *logStorage, Ack: recorder.Ack(*ack), Listen: *listen}
	if *cfgPath != "" {
		c, err := recorder.LoadConfig(*cfgPath)
		if err != nil {
			return exitUsage, err
		}
		o.Config = c
	}
	gatewayGC()
	if err := recorder.Run(ctx, o, os.Stdin, stdout); err != nil {
		return exitUsage, err
	}
	return exitOK, nil
}

// The gateway's collector. Its live heap is small (about 10-15 MiB), so at
// Go's default GOGC of 100 it collected every few MiB of allocation, on
// the calls waiting to be recorded; the soft memory limit keeps a large
// message (up to recorder.MaxMessage) from letting the heap grow to five
// times its size. The measurements are in docs/RECORD.md and
// docs/performance-history.md.
const (
	gatewayGCPercent   = 400
	gatewayMemoryLimit = 256 << 20
)

// gatewayGC sets the gateway's collector, unless the user set GOGC or
// GOMEMLIMIT.
func gatewayGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gatewayGCPercent)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(gatewayMemoryLimit)
	}
}
