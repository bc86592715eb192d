package mcpmem

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/memscope/memscope/internal/present/finding"
	"github.com/memscope/memscope/internal/readers/storemodel"
	"github.com/memscope/memscope/internal/sharedtest"
)

// TestAgainstServer reads crafted files with the real server
// (@modelcontextprotocol/server-memory from npm: its read_graph answers
// from loadGraph) and with Parse, and asks that both see the same
// entities and relations, or both refuse the file.
func TestAgainstServer(t *testing.T) {
	server := sharedtest.ServerMemory(t).Script
	files := map[string]string{
		"duplicate keys, case": `{"type":"entity","name":"A","entityType":"t","observations":["x"],"name":"B"}
{"type":"entity","Name":"C","name":"D","entityType":"t","observations":["y","y"]}
{"type":"Entity","name":"E","entityType":"t","observations":[]}
{"type":"relation","from":"B","to":"Z","relationType":"r","extra":1}`,
		"blank lines, CRLF, arrays": "\u00a0\r\n{\"type\":\"entity\",\"name\":\"A\",\"entityType\":\"t\",\"observations\":[]}\r\n[1]\n\ufeff\n" +
			`{"observations":["o"],"entityType":"p","type":"entity","name":"Q"}` + "\n" + `{"type":"relation","relationType":"k","to":"A","from":"Q"}`,
		"bad line": "{\"type\":\"entity\",\"name\":\"A\",\"entityType\":\"t\",\"observations\":[]}\nnot json",
		// Node reads the file as UTF-8, each byte that does not decode as
		// U+FFFD, and JSON.parse refuses a byte order mark before a value.
		"not UTF-8":        "{\"type\":\"entity\",\"name\":\"A\xff\xed\xa0\x80\",\"entityType\":\"t\xc3\",\"observations\":[\"\xf0\x9f\"]}",
		"mark before JSON": "\ufeff{\"type\":\"entity\",\"name\":\"A\",\"entityType\":\"t\",\"observations\":[]}",
		"null line":        "null",
	}
	for name, body := range files {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "memory.jsonl")
			if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
				t.Fatal(err)
			}
			want, refused := readGraph(t, server, path)
			g := Parse([]byte(body), path)
			if refused {
				if len(g.Issues) == 0 {
					t.Fatal("the server cannot load the file, Parse found nothing wrong")
				}
				return
			}
			var got serverGraph
			for _, e := range g.Entities {
				obs := e.Observations
				if obs == nil {
					obs = []string{}
				}
				got.Entities = append(got.Entities, serverEntity{e.Name, e.EntityType, obs})
			}
			for _, r := range g.Relations {
				got.Relations = append(got.Relations, serverRelation{r.From, r.To, r.RelationType})
			}
			if len(got.Relations) == 0 && len(want.Relations) == 0 {
				got.Relations, want.Relations = nil, nil // none either way
			}
			if len(g.Issues) != 0 || !reflect.DeepEqual(got, want) {
				t.Fatalf("Parse %+q (issues %+v)\nserver %+q", got, g.Issues, want)
			}
		})
	}
}

type serverEntity struct {
	Name         string   `json:"name"`
	EntityType   string   `json:"entityType"`
	Observations []string `json:"observations"`
}

type serverRelation struct {
	From         string `json:"from"`
	To           string `json:"to"`
	RelationType string `json:"relationType"`
}

type serverGraph struct {
	Entities  []serverEntity   `json:"entities"`
	Relations []serverRelation `json:"relations"`
}

// readGraph runs the server on path over stdio, makes the given tool
// calls (name, JSON arguments) one after the other (the server does not
// serialise its writes: pipelined calls race on the file), then calls
// read_graph.
func readGraph(t *testing.T, server, path string, calls ...[2]string) (serverGraph, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", server)
	cmd.Env = append(os.Environ(), "MEMORY_FILE_PATH="+path)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("server: %v", err)
	}
	defer func() { stdin.Close(); cmd.Wait() }()
	sc := bufio.NewScanner(stdout)
	sc.Buffer(nil, 1<<24)
	type response struct {
		ID     int `json:"id"`
		Result struct {
			IsError    bool        `json:"isError"`
			Structured serverGraph `json:"structuredContent"`
		} `json:"result"`
		Error json.RawMessage `json:"error"`
	}
	call := func(id int, msg string) response {
		if _, err := io.WriteString(stdin, msg+"\n"); err != nil {
			t.Fatal(err)
		}
		for sc.Scan() {
			var r response
			if json.Unmarshal(sc.Bytes(), &r) == nil && r.ID == id {
				return r
			}
		}
		t.Fatalf("no answer to request %d", id)
		return response{}
	}
	call(1, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"memscope-test","version":"1"}}}`)
	io.WriteString(stdin, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	for i, c := range calls {
		if r := call(100+i, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, 100+i, c[0], c[1])); r.Result.IsError || r.Error != nil {
			t.Fatalf("%s failed: %+v", c[0], r)
		}
	}
	r := call(2, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"read_graph","arguments":{}}}`)
	return r.Result.Structured, r.Result.IsError || r.Error != nil
}

// TestServerWrites drives the real server's write tools (create_entities
// with a client key order and an extra key, create_relations with a
// duplicate and a dangling end, add_observations, delete_observations)
// and reads the file it wrote: Parse sees exactly the graph read_graph
// returns. The server itself writes a duplicate entity and relation when
// one call carries the same item twice (it checks only against the file)
// and a relation to an entity it does not hold: all three are info.
func TestServerWrites(t *testing.T) {
	server := sharedtest.ServerMemory(t).Script
	path := filepath.Join(t.TempDir(), "memory.jsonl")
	want, refused := readGraph(t, server, path,
		[2]string{"create_entities", `{"entities":[{"observations":["likes tea","lives in Lyon"],"entityType":"person","name":"Ana"},{"name":"Lyon","entityType":"city","observations":[]},{"name":"Lyon","entityType":"town","observations":["old"]}]}`},
		[2]string{"create_relations", `{"relations":[{"from":"Ana","to":"Lyon","relationType":"lives_in"},{"from":"Ana","to":"Lyon","relationType":"lives_in"},{"from":"Ana","to":"Bob","relationType":"knows"}]}`},
		[2]string{"add_observations", `{"observations":[{"entityName":"Lyon","contents":["in France","in France"]}]}`},
		[2]string{"delete_observations", `{"deletions":[{"entityName":"Ana","observations":["lives in Lyon"]}]}`},
	)
	if refused {
		t.Fatal("the server refused its own file")
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	g := Parse(b, path)
	var got serverGraph
	for _, e := range g.Entities {
		got.Entities = append(got.Entities, serverEntity{e.Name, e.EntityType, append([]string{}, e.Observations...)})
	}
	for _, r := range g.Relations {
		got.Relations = append(got.Relations, serverRelation{r.From, r.To, r.RelationType})
	}
	if len(g.Issues) != 0 || g.Extra != 0 || !reflect.DeepEqual(got, want) {
		t.Fatalf("Parse %+v (issues %+v, extra %d)\nserver %+v", got, g.Issues, g.Extra, want)
	}
	st := &storemodel.Store{}
	Build(g, path, st)
	codes := map[finding.Code]int{}
	for _, is := range st.Issues {
		codes[is.Code]++
		if sp, _ := finding.Lookup(is.Code); sp.Severity != finding.SevInfo {
			t.Errorf("%s is %s on a file the server wrote itself", is.Code, sp.Severity)
		}
	}
	if codes[finding.MCPMemDuplicate] != 2 || codes[finding.MCPMemRelationDangling] != 1 {
		t.Fatalf("issues %+v", st.Issues)
	}
}
