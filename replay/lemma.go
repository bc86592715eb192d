package replay

// Lemma1 is paper 000's Lemma 1 diagnostic for one target passage. The
// teleport floor (1-d)*r(target) is mass no edge write can take away; a sink
// fed by injected seed->sink edges captures at least (1-d)*d/k. A target whose
// floor is below that capture bound can be pushed out of (or joined in) the
// top-k by structure alone; one above it cannot, at any write budget. With
// d = 0.5 and k = 5: a uniformly seeded target has r = 0.2 and floor 0.10,
// above the capture bound 0.05; a multi-hop target with r = 0 has floor 0.
type Lemma1 struct {
	NodeID       string
	ResetMass    float64 // normalised reset mass r(target)
	Floor        float64 // (1-d) * r(target)
	CaptureBound float64 // (1-d) * d / k
	Evictable    bool    // Floor < CaptureBound
	ScoreG       float64
	ScoreGAuth   float64
}

// CaptureBound is the one-hop capture bound (1-d)*d/k of Lemma 1.
func CaptureBound(damping float64, k int) float64 {
	if k <= 0 {
		return 0
	}
	return (1 - damping) * damping / float64(k)
}

// TeleportFloor is the mass (1-d)*r a target keeps whatever edges are written.
func TeleportFloor(damping, reset float64) float64 { return (1 - damping) * reset }

func (r *Replayer) lemma1(q Query, reset []float64, k int, onG, onAuth []float64, row Row) []Lemma1 {
	d := r.cfg.Solve.Damping
	bound := CaptureBound(d, k)
	seen := map[string]bool{}
	var out []Lemma1
	add := func(id string) {
		i, ok := r.g.nodeIndex[id]
		if !ok || seen[id] || r.g.nodes[i].Kind != KindPassage {
			return
		}
		seen[id] = true
		floor := TeleportFloor(d, reset[i])
		out = append(out, Lemma1{
			NodeID: id, ResetMass: reset[i], Floor: floor, CaptureBound: bound,
			Evictable: floor < bound, ScoreG: onG[i], ScoreGAuth: onAuth[i],
		})
	}
	for _, it := range row.GAuth.Items {
		add(it.NodeID)
	}
	for _, it := range row.G.Items {
		add(it.NodeID)
	}
	for _, id := range q.Recorded {
		add(id)
	}
	return out
}
