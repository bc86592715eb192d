package lineage_test

import (
	"fmt"

	"github.com/memscope/memscope/lineage"
)

func Example() {
	g := lineage.Build([]lineage.Entry{
		{ID: "web", Writer: "external:web", Recorded: lineage.External},
		{ID: "sum", Writer: "agent:1", Recorded: lineage.Trusted, Parents: []string{"web"}, Weights: []float64{0.6}},
	})
	labels, _ := g.Propagate(lineage.Options{Tau: 0})
	for _, l := range g.Laundering(labels) {
		fmt.Printf("%s recorded %s, recomputed %s\n", l.Entry, l.Recorded, l.Recomputed)
	}
	res, _ := g.AuditGate([]lineage.Action{{ID: "a1", Tool: "send_email", Justification: []string{"sum"}, Dispatched: true}}, labels, nil)
	fmt.Println(res[0].Verdict, res[0].ShouldHaveRefused)
	// Output:
	// sum recorded Trusted, recomputed Derived-Untrusted
	// deny true
}

func ExampleRenderSweep() {
	rows, _ := lineage.PaperSweep()
	fmt.Print(lineage.RenderSweep(rows))
	// Output:
	// schedule coarse (1 = External reaches the chain tip)
	// tau    K=1  K=2  K=3  K=5
	// 0.00     1    1    1    1
	// 0.10     1    1    1    1
	// 0.30     1    1    1    1
	// 0.50     1    1    1    1
	// 0.90     1    1    1    1
	// 0.99     1    1    1    1
	// 1.00     0    0    0    0
	//
	// schedule judge (1 = External reaches the chain tip)
	// tau    K=1  K=2  K=3  K=5
	// 0.00     1    1    1    1
	// 0.10     1    1    1    1
	// 0.30     1    1    1    0
	// 0.50     1    1    0    0
	// 0.90     0    0    0    0
	// 0.99     0    0    0    0
	// 1.00     0    0    0    0
}
