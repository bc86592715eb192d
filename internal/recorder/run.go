package recorder

import (
	"context"
	"fmt"
	"io"
	"net"
	"strings"
)

// RunOptions are memscope record's arguments.
type RunOptions struct {
	Store      string
	Config     *Config // may be nil
	Command    []string
	Agent      string
	LogStorage string
	Ack        Ack // AckSequenced when empty
	// Listen, when set, is a Unix socket path: agent sessions connect
	// there (any number, up to MaxListenSessions at once) instead of
	// the one session on stdin/stdout.
	Listen string
}

// Run records one agent session on stdin/stdout until stdin ends or ctx
// is done (or, with Listen, every session on the socket until ctx is
// done), then closes the store (signing its meta rows).
func Run(ctx context.Context, o RunOptions, stdin io.Reader, stdout io.Writer) error {
	cfg := o.Config
	if cfg == nil {
		cfg = &Config{}
	}
	if len(o.Command) > 0 {
		cfg.Servers = append([]ServerConfig{{Name: "memory", Command: o.Command, Role: RoleMemory}}, cfg.Servers...)
	}
	if err := cfg.check(); err != nil {
		return err
	}
	info, err := readInfo(o.Store)
	if err != nil {
		return err
	}
	agent := o.Agent
	if agent == "" {
		agent = cfg.Agent
	}
	if agent == "" {
		agent = info.Agents[0]
	}
	if !strings.HasPrefix(agent, "agent:") || !validPrincipal(agent) {
		return fmt.Errorf("record: the session's agent %q: want agent:NAME (printable ASCII, no spaces, at most 128 bytes)", agent)
	}
	// The socket first: Listen sets the process's umask for a moment, and
	// the recorder's goroutines, once open, create log files.
	var l net.Listener
	if o.Listen != "" {
		if l, err = Listen(o.Listen); err != nil {
			return err
		}
		defer l.Close()
	}
	rec, err := Open(ctx, Options{Dir: o.Store, Principals: cfg.Principals(agent), LogStorage: o.LogStorage, Ack: o.Ack})
	if err != nil {
		return err
	}
	g, err := NewGateway(ctx, rec, cfg, agent)
	if err != nil {
		rec.Close(context.WithoutCancel(ctx))
		return err
	}
	var serr error
	if l != nil {
		serr = g.ServeListener(ctx, l)
	} else {
		serr = g.Serve(ctx, stdin, stdout)
	}
	g.Close()
	if cerr := rec.Close(context.WithoutCancel(ctx)); cerr != nil && serr == nil {
		serr = fmt.Errorf("record: closing the store: %w", cerr)
	}
	return serr
}
