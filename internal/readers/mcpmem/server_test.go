package mcpmem

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

// TestAgainstServer reads crafted files with the real server
// (@modelcontextprotocol/server-memory from npm: its read_graph answers
// from loadGraph) and with Parse, and asks that both see the same
// entities and relations, or both refuse the file. Set
// MEMSCOPE_SERVER_MEMORY to the package's dist/index.js (npm install
// @modelcontextprotocol/server-memory@2026.8.31).
func TestAgainstServer(t *testing.T) {
	server := os.Getenv("MEMSCOPE_SERVER_MEMORY")
	if server == "" {
		t.Skip("MEMSCOPE_SERVER_MEMORY unset: not compared with the real MCP memory server")
	}
	files := map[string]string{
		"duplicate keys, case": `{"type":"entity","name":"A","entityType":"t","observations":["x"],"name":"B"}
{"type":"entity","Name":"C","name":"D","entityType":"t","observations":["y","y"]}
{"type":"Entity","name":"E","entityType":"t","observations":[]}
{"type":"relation","from":"B","to":"Z","relationType":"r","extra":1}`,
		"blank lines, CRLF, arrays": "\u00a0\r\n{\"type\":\"entity\",\"name\":\"A\",\"entityType\":\"t\",\"observations\":[]}\r\n[1]\n\ufeff\n" +
			`{"observations":["o"],"entityType":"p","type":"entity","name":"Q"}` + "\n" + `{"type":"relation","relationType":"k","to":"A","from":"Q"}`,
		"bad line":  "{\"type\":\"entity\",\"name\":\"A\",\"entityType\":\"t\",\"observations\":[]}\nnot json",
		"null line": "null",
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
			if len(g.Issues) != 0 || !reflect.DeepEqual(got, want) {
				t.Fatalf("Parse %+v (issues %+v)\nserver %+v", got, g.Issues, want)
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

// readGraph runs the server on path over stdio and calls read_graph.
func readGraph(t *testing.T, server, path string) (serverGraph, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", server)
	cmd.Env = append(os.Environ(), "MEMORY_FILE_PATH="+path)
	var in bytes.Buffer
	for _, m := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"memscope-test","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"read_graph","arguments":{}}}`,
	} {
		in.WriteString(m + "\n")
	}
	cmd.Stdin = &in
	out, err := cmd.Output()
	if err != nil && len(out) == 0 {
		t.Fatalf("server: %v", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var resp struct {
			ID     int `json:"id"`
			Result struct {
				IsError    bool        `json:"isError"`
				Structured serverGraph `json:"structuredContent"`
			} `json:"result"`
			Error json.RawMessage `json:"error"`
		}
		if json.Unmarshal(sc.Bytes(), &resp) != nil || resp.ID != 2 {
			continue
		}
		return resp.Result.Structured, resp.Result.IsError || resp.Error != nil
	}
	t.Fatalf("no read_graph answer in %q", out)
	return serverGraph{}, false
}
