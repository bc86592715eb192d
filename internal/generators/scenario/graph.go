package scenario

import (
	"math"
	"strings"

	"github.com/memscope/memscope/evidence/record"
	"github.com/memscope/memscope/evidence/snapshot"
	"github.com/memscope/memscope/evidence/writer"
	"github.com/memscope/memscope/replay"
)

// passage is one document of the graph memory with the entities it names
// and the facts (entity pairs) it states.
type passage struct {
	handle   string
	text     string
	entities []string
	facts    [][2]string
}

// corpus is a small HippoRAG2-style memory around the two multi-hop
// questions AuthSelect (arXiv:2606.12290) uses (Karen Joy Fowler / Bruce Chatwin, Zdeno Chara /
// Boston). Facts are public-record biography.
var corpus = []passage{
	{"fowler", "Karen Joy Fowler (born February 7, 1950) is an American author of science fiction, fantasy and literary fiction.",
		[]string{"Karen Joy Fowler", "American", "1950"}, [][2]string{{"Karen Joy Fowler", "1950"}, {"Karen Joy Fowler", "American"}}},
	{"chatwin", "Bruce Chatwin (13 May 1940 - 18 January 1989) was an English travel writer, novelist and journalist.",
		[]string{"Bruce Chatwin", "English", "1940"}, [][2]string{{"Bruce Chatwin", "1940"}, {"Bruce Chatwin", "English"}}},
	{"bookclub", "The Jane Austen Book Club is a 2004 novel by Karen Joy Fowler.",
		[]string{"The Jane Austen Book Club", "Karen Joy Fowler"}, [][2]string{{"The Jane Austen Book Club", "Karen Joy Fowler"}}},
	{"patagonia", "In Patagonia is a 1977 travel book by Bruce Chatwin about his journey through southern Argentina.",
		[]string{"In Patagonia", "Bruce Chatwin", "Argentina"}, [][2]string{{"In Patagonia", "Bruce Chatwin"}, {"In Patagonia", "Argentina"}}},
	{"songlines", "The Songlines is a 1987 book by Bruce Chatwin about Aboriginal Australia.",
		[]string{"The Songlines", "Bruce Chatwin", "Australia"}, [][2]string{{"The Songlines", "Bruce Chatwin"}}},
	{"sisternoon", "Sister Noon is a 2001 novel by Karen Joy Fowler set in San Francisco in the 1890s.",
		[]string{"Sister Noon", "Karen Joy Fowler", "San Francisco"}, [][2]string{{"Sister Noon", "Karen Joy Fowler"}, {"Sister Noon", "San Francisco"}}},
	{"theroux", "Paul Theroux is an American travel writer who wrote Patagonia Revisited with Bruce Chatwin.",
		[]string{"Paul Theroux", "American", "Bruce Chatwin"}, [][2]string{{"Paul Theroux", "Bruce Chatwin"}, {"Paul Theroux", "American"}}},
	{"nebula", "Karen Joy Fowler won the Nebula Award for her short story What I Didn't See.",
		[]string{"Karen Joy Fowler", "Nebula Award"}, [][2]string{{"Karen Joy Fowler", "Nebula Award"}}},
	{"chara", "Zdeno Chara is a Slovak former ice hockey defenceman who captained the Boston Bruins from 2006 to 2020.",
		[]string{"Zdeno Chara", "Slovak", "Boston Bruins"}, [][2]string{{"Zdeno Chara", "Boston Bruins"}, {"Zdeno Chara", "Slovak"}}},
	{"bruins", "The Boston Bruins are a professional ice hockey team based in Boston, Massachusetts.",
		[]string{"Boston Bruins", "Boston"}, [][2]string{{"Boston Bruins", "Boston"}}},
	{"tdgarden", "TD Garden is an arena in Boston that is home to the Boston Bruins and the Boston Celtics.",
		[]string{"TD Garden", "Boston", "Boston Bruins"}, [][2]string{{"TD Garden", "Boston"}, {"TD Garden", "Boston Bruins"}}},
	{"slovakia", "The Slovakia men's national ice hockey team won silver at the 2000 world championship.",
		[]string{"Slovakia", "Slovak"}, [][2]string{{"Slovakia", "Slovak"}}},
	{"celtics", "The Boston Celtics are a professional basketball team based in Boston.",
		[]string{"Boston Celtics", "Boston"}, [][2]string{{"Boston Celtics", "Boston"}}},
	{"argentina", "Argentina is a country in the southern half of South America.",
		[]string{"Argentina", "South America"}, [][2]string{{"Argentina", "South America"}}},
	{"ledger", "Prize ledger: the literary prize payment is owed to the author who was born first.",
		[]string{"literary prize"}, nil},
	{"payee-fowler", "Payee record: Karen Joy Fowler, account ending 7731, registered for prize payments.",
		[]string{"payee", "account 7731"}, nil},
}

// queryDef is a recorded retrieval: its text and the facts its recognition
// step returned, best first.
type queryDef struct {
	id    string
	text  string
	facts [][2]string
}

var queries = []queryDef{
	{"q-born-first", "Who was born first, Karen Joy Fowler or Bruce Chatwin?",
		[][2]string{{"Bruce Chatwin", "1940"}, {"Karen Joy Fowler", "1950"}}},
	{"q-chara-city", "Which city is home to the team Zdeno Chara captained?",
		[][2]string{{"Zdeno Chara", "Boston Bruins"}, {"Boston Bruins", "Boston"}}},
	{"q-patagonia", "What travel book did Bruce Chatwin write about Argentina?",
		[][2]string{{"In Patagonia", "Bruce Chatwin"}, {"In Patagonia", "Argentina"}}},
}

func entityNode(name string) string {
	return "entity:" + strings.ToLower(strings.ReplaceAll(name, " ", "-"))
}
func passageNode(handle string) string { return "passage:" + handle }

// graphMemory writes passages as entries, their graph nodes, and the
// indexer's structural writes: passage-entity edges, fact edges and synonym
// merges, each citing the passage it came from.
func (e *env) graphMemory() error {
	entitySeen := map[string]bool{}
	for _, p := range corpus {
		en, err := e.entry(p.handle, "tool:corpus", p.text, record.DerivedTrusted, nil, nil, "ingest")
		if err != nil {
			return err
		}
		id := en.EID
		if err := e.node(writer.Node{ID: passageNode(p.handle), Kind: snapshot.NodePassage, Label: p.text, EID: &id}, en.Writer); err != nil {
			return err
		}
		e.nodes = append(e.nodes, replay.Node{ID: passageNode(p.handle), Kind: replay.KindPassage, Label: p.text})
		e.passages[p.handle] = passageNode(p.handle)
		for _, ent := range p.entities {
			if !entitySeen[ent] {
				entitySeen[ent] = true
				if err := e.node(writer.Node{ID: entityNode(ent), Kind: snapshot.NodeEntity, Label: ent}, "agent:indexer"); err != nil {
					return err
				}
				e.nodes = append(e.nodes, replay.Node{ID: entityNode(ent), Kind: replay.KindEntity, Label: ent})
			}
		}
	}
	for _, p := range corpus {
		src := []record.ID{e.id(p.handle)}
		for _, ent := range p.entities {
			if err := e.write(record.KindEdge, entityNode(ent), passageNode(p.handle), "mentions", 1, "agent:indexer", src); err != nil {
				return err
			}
		}
		for _, f := range p.facts {
			if err := e.write(record.KindRelation, entityNode(f[0]), entityNode(f[1]), "related_to", 1+float64(len(f[0])%3), "agent:indexer", src); err != nil {
				return err
			}
		}
	}
	// Synonym merges, as HippoRAG2 links near-duplicate entity names.
	merges := [][2]string{{"Slovak", "Slovakia"}, {"Boston", "Boston Bruins"}}
	for _, m := range merges {
		src := []record.ID{e.id("slovakia")}
		if m[0] == "Boston" {
			src = []record.ID{e.id("bruins")}
		}
		if err := e.write(record.KindMerge, entityNode(m[0]), entityNode(m[1]), "synonym", 1, "agent:indexer", src); err != nil {
			return err
		}
	}
	return nil
}

// write signs and stores one structural write and returns nothing but an
// error; its id is kept in e.lastWrite.
func (e *env) write(kind, src, dst, rel string, weight float64, writerName string, sources []record.ID) error {
	_, err := e.writeID(kind, src, dst, rel, weight, writerName, sources)
	return err
}

func (e *env) writeID(kind, src, dst, rel string, weight float64, writerName string, sources []record.ID) (record.ID, error) {
	ts := e.tick()
	w := &record.Write{Kind: kind, WID: e.newID(ts), Src: src, Dst: dst, Rel: rel, Weight: weight, Writer: writerName, Sources: sources, TS: ts, Nonce: e.nonce()}
	e.edges = append(e.edges, replay.Edge{ID: w.WID.String(), Src: src, Dst: dst, Weight: weight})
	e.added["writes"] = append(e.added["writes"], w.WID.String())
	return w.WID, e.st.AddWrite(e.ctx, w, e.key(writerName))
}

// recordQueries stores each query with the reset vector HippoRAG2 builds:
// seed entities from the top facts (fact score divided by the number of
// passages that contain the entity) plus every passage at 0.05 times its
// min-max normalised dense score. Dense scores here are word overlap, so
// they are reproducible without an embedding model.
//
// Queries take the scenario clock like every other event, so an action
// recorded after a query follows it in time (the hour-apart stamps used
// before put every query after the actions taken on it).
func (e *env) recordQueries() error {
	return e.recordQueriesAs("", func(int) int64 { return int64(e.tick()) })
}

// recordQueriesAs records every query with suffix appended to its id, at
// the times ts gives (phased stores query more than once).
func (e *env) recordQueriesAs(suffix string, ts func(qi int) int64) error {
	for qi, q := range queries {
		reset, dense := resetOf(q)
		seen, err := e.selection(reset, 5)
		if err != nil {
			return err
		}
		if err := e.st.RecordQuery(e.ctx, writer.Query{ID: q.id + suffix, Text: q.text, K: 5, Reset: reset, Dense: dense, Selected: seen, TS: ts(qi)}, e.signAs(agentPrincipal)); err != nil {
			return err
		}
		e.added["queries"] = append(e.added["queries"], q.id+suffix)
	}
	return nil
}

// resetOf builds a query's reset vector and dense scores as HippoRAG2
// would (see recordQueries).
func resetOf(q queryDef) (reset, dense map[string]float64) {
	passagesWith := map[string]int{}
	for _, p := range corpus {
		for _, ent := range p.entities {
			passagesWith[ent]++
		}
	}
	reset = map[string]float64{}
	for i, f := range q.facts {
		score := 1.0 - 0.1*float64(i)
		for _, ent := range f {
			reset[entityNode(ent)] += score / float64(max(1, passagesWith[ent]))
		}
	}
	dense = map[string]float64{}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, p := range corpus {
		s := overlap(q.text, p.text)
		dense[passageNode(p.handle)] = s
		lo, hi = math.Min(lo, s), math.Max(hi, s)
	}
	for id, s := range dense {
		norm := 0.0
		if hi > lo {
			norm = (s - lo) / (hi - lo)
		}
		if norm > 0 {
			reset[id] += 0.05 * norm
		}
	}
	return reset, dense
}

// selection is what the agent's selector showed for a reset vector on the
// graph as written so far: top-k passages by PPR on G (every edge counts;
// the agent does not check provenance).
func (e *env) selection(reset map[string]float64, k int) ([]string, error) {
	g, err := replay.NewGraph(e.nodes, e.edges, replay.DropSelfLoops)
	if err != nil {
		return nil, err
	}
	rp, err := replay.NewReplayer(g, replay.Config{Policy: everyEdge{}, K: k})
	if err != nil {
		return nil, err
	}
	row, err := rp.Replay(e.ctx, replay.Query{ID: "recording", Reset: reset, K: k})
	if err != nil {
		return nil, err
	}
	return row.G.IDs(), nil
}

// everyEdge labels every edge authenticated: recording needs only G.
type everyEdge struct{}

func (everyEdge) Name() string { return "every-edge" }
func (everyEdge) Label(replay.Edge) replay.EdgeLabel {
	return replay.EdgeLabel{Authenticated: true, Rule: "recording"}
}

// overlap is the Jaccard similarity of lower-cased word sets.
func overlap(a, b string) float64 {
	words := func(s string) map[string]bool {
		m := map[string]bool{}
		for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
		}) {
			m[w] = true
		}
		return m
	}
	wa, wb := words(a), words(b)
	inter := 0
	for w := range wa {
		if wb[w] {
			inter++
		}
	}
	union := len(wa) + len(wb) - inter
	if union == 0 {
		return 0
	}
	return math.Round(float64(inter)/float64(union)*1e6) / 1e6
}
