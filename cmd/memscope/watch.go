package main

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"os"
	"sync"
	"time"

	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/internal/present/jsonout"
	"github.com/memscope/memscope/internal/present/ocsf"
	"github.com/memscope/memscope/internal/present/sanitize"
	"github.com/memscope/memscope/internal/watch"
)

const watchUsage = "memscope watch (--log DIR|URL --log-key KEY --state FILE [--snapshot DB] [--trust KEYS] | --fleet FILE [--shard I/N]) [--witness-policy FILE] [--once | --interval D] [--webhook URL]"

// watchOptions are the parsed flags of memscope watch.
type watchOptions struct {
	anchors            anchorFlags
	log, state, snap   string
	policy, fleet      string
	shard, webhook     string
	output             string
	once               bool
	interval, deadline time.Duration
}

// runWatch monitors one log or a fleet: JSON lines on stdout (one event
// each), a human line per event on stderr.
func runWatch(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlagSet("watch", watchUsage, stderr)
	var o watchOptions
	o.anchors.register(fs)
	fs.StringVar(&o.log, "log", "", "the log: a tlog-tiles directory or http(s) URL")
	fs.StringVar(&o.state, "state", "", "the state file (created on the first round, replaced atomically after each)")
	fs.StringVar(&o.snap, "snapshot", "", "the store's snapshot, read live (a consistent copy per round with new leaves) to verify records and replay stored queries")
	fs.StringVar(&o.policy, "witness-policy", "", "witness quorum policy in sigsum's format (log, witness, group, quorum lines)")
	fs.StringVar(&o.fleet, "fleet", "", "a fleet file: JSON array or JSON lines of {name, log, log_key, trust, snapshot, state, witness_policy}")
	fs.StringVar(&o.shard, "shard", "", "I/N: watch this process's share of the fleet (default: Kubernetes' JOB_COMPLETION_INDEX/JOB_COMPLETIONS, else 0/1)")
	fs.StringVar(&o.webhook, "webhook", "", "POST each error event (JSON) to this URL; bounded retries, never blocks a round")
	fs.StringVar(&o.output, "output-format", "", "ocsf: each event as an OCSF Detection Finding (class 2004) instead of memscope's event JSON")
	fs.BoolVar(&o.once, "once", false, "run one round and exit: 0 nothing new of error severity, 1 an error event, 2 could not run")
	fs.DurationVar(&o.interval, "interval", time.Minute, "time between rounds when not --once")
	fs.DurationVar(&o.deadline, "round-deadline", 5*time.Minute, "the most one round (every tenant of this shard) may take")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return exitUsage, nil
	}
	if len(pos) != 0 {
		return exitUsage, usagef("watch takes no positional arguments; usage: %s", watchUsage)
	}
	targets, err := o.targets()
	if err != nil {
		return exitUsage, err
	}
	if o.interval <= 0 || o.deadline <= 0 {
		return exitUsage, usagef("--interval and --round-deadline must be positive")
	}
	if o.output != outputText && o.output != outputOCSF {
		return exitUsage, usagef("--output-format %q: want ocsf", o.output)
	}
	if o.webhook != "" {
		// Checked before the first round: a webhook that can never be
		// posted to would drop every alert, and the rounds would say
		// nothing of it.
		if u, err := url.Parse(o.webhook); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return exitUsage, usagef("--webhook %q: want an http:// or https:// URL with a host", o.webhook)
		}
	}
	out := &eventWriter{stdout: stdout, stderr: stderr, ocsf: o.output == outputOCSF}
	if o.webhook != "" {
		out.hook = watch.NewWebhook(o.webhook, func(e watch.Event) ([]byte, error) { return jsonout.MarshalLine(e) })
		defer out.closeHook()
	}
	worst := exitOK
	for {
		code := watchRound(ctx, targets, o.deadline, out)
		worst = max(worst, code)
		if o.once || ctx.Err() != nil {
			if ctx.Err() != nil {
				return worst, ctx.Err()
			}
			return code, nil
		}
		select {
		case <-ctx.Done():
			return worst, ctx.Err()
		case <-time.After(o.interval):
		}
	}
}

// targets builds the logs this process watches from the flags.
func (o *watchOptions) targets() ([]watch.Job, error) {
	var policy *watch.Policy
	if o.policy != "" {
		p, err := watch.ReadPolicy(o.policy)
		if err != nil {
			return nil, usagef("--witness-policy: %v", err)
		}
		policy = p
	}
	if o.fleet == "" {
		if o.log == "" || o.state == "" {
			return nil, usagef("give --log and --state (or --fleet); usage: %s", watchUsage)
		}
		a, err := o.anchors.resolve()
		if err != nil {
			return nil, err
		}
		if a.LogKey == "" {
			return nil, usagef("--log-key (or --anchors) is required: a monitor that cannot check the checkpoint's signature proves nothing")
		}
		return []watch.Job{{Target: watch.Target{Log: o.log, LogKey: a.LogKey, Policy: policy, Snapshot: o.snap, TrustRoots: a.Roots, LogOptions: a.Log}, State: o.state}}, nil
	}
	if o.log != "" || o.state != "" || o.snap != "" {
		return nil, usagef("--fleet names each tenant's log, state and snapshot: drop --log, --state and --snapshot")
	}
	tenants, err := watch.ReadFleet(o.fleet)
	if err != nil {
		return nil, usagef("--fleet: %v", err)
	}
	i, n, err := watch.ParseShard(o.shard, os.Getenv)
	if err != nil {
		return nil, usagef("--shard: %v", err)
	}
	var out []watch.Job
	for _, tn := range watch.Shard(tenants, i, n) {
		af := anchorFlags{logKey: tn.LogKey, trust: tn.Trust, allowRedirects: o.anchors.allowRedirects}
		a, err := af.resolve()
		if err != nil {
			return nil, usagef("fleet tenant %q: %v", tn.Name, err)
		}
		p := policy
		if tn.WitnessPolicy != "" {
			if p, err = watch.ReadPolicy(tn.WitnessPolicy); err != nil {
				return nil, usagef("fleet tenant %q: %v", tn.Name, err)
			}
		}
		out = append(out, watch.Job{Target: watch.Target{Tenant: tn.Name, Log: tn.Log, LogKey: a.LogKey, Policy: p, Snapshot: tn.Snapshot, TrustRoots: a.Roots, LogOptions: a.Log}, State: tn.State})
	}
	return out, nil
}

// watchWorkers bounds the tenants checked at once: rounds mostly wait on
// reads, so a few more than the cores keep them busy.
const watchWorkers = 8

// watchRound runs one round over every target and returns its exit code:
// a round that could not run is exit 2 and a line on stderr naming the
// tenant.
func watchRound(ctx context.Context, jobs []watch.Job, deadline time.Duration, out *eventWriter) int {
	ctx, cancel := context.WithTimeout(ctx, deadline)
	defer cancel()
	code := exitOK
	for _, r := range watch.RunJobs(ctx, jobs, watchWorkers, time.Now(), out.write) {
		if watch.MaxSeverity(r.Events) == finding.SevError {
			code = max(code, exitFindings)
		}
		if r.Err != nil {
			who := r.Job.Target.Log
			if r.Job.Target.Tenant != "" {
				who = r.Job.Target.Tenant + " (" + who + ")"
			}
			out.errorf("memscope watch: %s: round could not run: %v", who, r.Err)
			code = exitUsage
		}
	}
	return code
}

// eventWriter prints events: a JSON line on stdout, a human line on
// stderr, and error events to the webhook. Writes are serialised across
// tenants.
type eventWriter struct {
	mu             sync.Mutex
	stdout, stderr io.Writer
	ocsf           bool
	hook           *watch.Webhook
}

func (w *eventWriter) write(e watch.Event) error {
	var line []byte
	var err error
	if w.ocsf {
		line, err = jsonout.MarshalLine(ocsf.From(e.Finding, ocsf.Context{Source: e.Log, Tenant: e.Tenant, Version: toolVersion(), Time: e.Time,
			Extra: map[string]any{"event_id": e.ID, "seq": e.Seq, "size": e.Size, "prev_size": e.PrevSize}}))
	} else {
		line, err = jsonout.MarshalLine(e)
	}
	if err != nil {
		return err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, err := w.stdout.Write(append(line, '\n')); err != nil {
		return err
	}
	who := e.Log
	if e.Tenant != "" {
		who = e.Tenant
	}
	fmt.Fprintf(w.stderr, "%s %-7s %s %s: %s\n", sanitize.Line(who), e.Severity, e.Code, sanitize.Line(e.Subject), sanitize.Line(e.Message))
	if w.hook != nil && e.Severity == finding.SevError {
		w.hook.Send(e)
	}
	return nil
}

func (w *eventWriter) errorf(format string, a ...any) {
	w.mu.Lock()
	defer w.mu.Unlock()
	fmt.Fprint(w.stderr, sanitize.Line(fmt.Sprintf(format, a...))+"\n")
}

func (w *eventWriter) closeHook() {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	failed, dropped := w.hook.Close(ctx)
	for _, f := range failed {
		w.errorf("memscope watch: webhook: %s", f)
	}
	if dropped > 0 {
		w.errorf("memscope watch: webhook: %d events dropped (queue full); they are in the JSON lines", dropped)
	}
}
