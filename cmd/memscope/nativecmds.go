package main

import (
	"context"
	"fmt"
	"io"

	"github.com/memscope/memscope/internal/analyses/storetimeline"
	"github.com/memscope/memscope/internal/present/sanitize"
	"github.com/memscope/memscope/internal/readers"
	"github.com/memscope/memscope/internal/readers/storemodel"
)

// refuseNative answers a command a native store's format does not support
// with the registry's one-line reason (exit 2).
func refuseNative(path string, c storemodel.Command) (bool, error) {
	found, err := stores.Resolve(path)
	if err != nil {
		return false, nil
	}
	r, _ := stores.Lookup(found.Format)
	if ok, why := r.Supports(c); !ok {
		return true, usagef("%s: %s", c, why)
	}
	return false, nil
}

type jsonNativeTimeline struct {
	Store jsonStore `json:"store"`
	storetimeline.Timeline
}

// runNativeTimeline prints a native store's own events in its own order
// and times (storetimeline), or says it records no time.
func runNativeTimeline(ctx context.Context, stdout io.Writer, path string, ef evidenceFlags, asJSON bool) (int, error) {
	st, err := openStore(ctx, path, "", ef)
	if err != nil {
		return exitUsage, err
	}
	tl := storetimeline.Build(st)
	out := jsonNativeTimeline{Store: describeStore(st), Timeline: tl}
	if out.Events == nil {
		out.Events = []storetimeline.Event{}
	}
	if asJSON {
		return exitOK, writeJSON(stdout, out)
	}
	writeStoreHeader(stdout, out.Store)
	fmt.Fprintf(stdout, "timeline: %s (times are the store's claims, unsigned)\n\n", tl.Order)
	for _, e := range tl.Events {
		when := e.UTC
		if when == "" {
			when = "-"
		}
		who := ""
		if e.Actor != "" {
			who = " by " + sanitize.Line(e.Actor)
		}
		fmt.Fprintf(stdout, "%6d  %-32s %-18s %s%s  %s\n", e.Order, when, sanitize.Line(e.Kind), sanitize.Line(previewOf(e.Subject)), who, previewOf(e.Text))
	}
	return exitOK, nil
}
