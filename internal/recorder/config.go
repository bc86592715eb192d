package recorder

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"time"

	"github.com/memscope/memscope/evidence/record"
)

// Server roles.
const (
	RoleMemory          = "memory"
	RoleSourceUntrusted = "source-untrusted"
	RoleSourceTrusted   = "source-trusted"
	RoleSensitive       = "sensitive"
	RoleOther           = "other" // forwarded, not recorded
)

// Config is the --config file (JSON).
type Config struct {
	Servers []ServerConfig `json:"servers"`
	// Agent is the principal the sessions record as (default: the store's
	// first agent).
	Agent   string        `json:"agent,omitempty"`
	Lineage LineageConfig `json:"lineage"`
	// CallTimeoutMS bounds how long a call waits for its upstream (default
	// 300000); an upstream that does not answer gets an error to the agent.
	CallTimeoutMS int `json:"call_timeout_ms,omitempty"`
}

// LineageConfig is lineage from context: the last Window items the agent
// saw in its session become the parents of each later write, each with
// Weight.
type LineageConfig struct {
	Window int     `json:"window,omitempty"` // default 64
	Weight float64 `json:"weight,omitempty"` // default 1.0
}

// ServerConfig is one upstream MCP server.
type ServerConfig struct {
	Name    string            `json:"name"`
	Command []string          `json:"command"`
	Env     map[string]string `json:"env,omitempty"`
	Role    string            `json:"role"`
	// Mapping says, for a memory server other than the reference one,
	// which tools write, delete and read (nil: the reference server's).
	Mapping *Mapping `json:"mapping,omitempty"`
}

// Mapping is how a memory server's tools map to records.
type Mapping struct {
	Writes  []WriteTool  `json:"writes"`
	Deletes []DeleteTool `json:"deletes"`
	Reads   []ReadTool   `json:"reads"`
}

// WriteTool: the tool writes one memory whose content is argument Content;
// the result's field ID (structuredContent, or the JSON text) is its id.
type WriteTool struct {
	Tool    string `json:"tool"`
	Content string `json:"content"`
	ID      string `json:"id,omitempty"`
}

// DeleteTool: the tool deletes the memory whose id is argument ID.
type DeleteTool struct {
	Tool string `json:"tool"`
	ID   string `json:"id"`
}

// ReadTool: the tool reads memories; argument Query is the query text and
// every field ID in the result names a memory it returned, in order.
type ReadTool struct {
	Tool  string `json:"tool"`
	Query string `json:"query,omitempty"`
	ID    string `json:"id"`
}

var serverName = regexp.MustCompile(`^[a-z0-9][a-z0-9_.-]{0,31}$`)

// LoadConfig reads a config file.
func LoadConfig(path string) (*Config, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var c Config
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &c, c.check()
}

func (c *Config) check() error {
	seen := map[string]bool{}
	for i, s := range c.Servers {
		if !serverName.MatchString(s.Name) {
			return fmt.Errorf("config: server %d: name %q: want lowercase letters, digits, '.', '_', '-' (at most 32)", i, s.Name)
		}
		if seen[s.Name] {
			return fmt.Errorf("config: server name %q twice", s.Name)
		}
		seen[s.Name] = true
		if len(s.Command) == 0 {
			return fmt.Errorf("config: server %s: no command", s.Name)
		}
		switch s.Role {
		case RoleMemory, RoleSourceUntrusted, RoleSourceTrusted, RoleSensitive, RoleOther:
		default:
			return fmt.Errorf("config: server %s: role %q: want memory, source-untrusted, source-trusted, sensitive or other", s.Name, s.Role)
		}
	}
	if c.Lineage.Window < 0 || c.Lineage.Window > maxParents {
		return fmt.Errorf("config: lineage window %d: want 0..%d", c.Lineage.Window, maxParents)
	}
	if c.Lineage.Weight < 0 || c.Lineage.Weight > 1 {
		return fmt.Errorf("config: lineage weight %v: want [0, 1]", c.Lineage.Weight)
	}
	return nil
}

func (c *Config) window() int {
	if c.Lineage.Window == 0 {
		return 64
	}
	return c.Lineage.Window
}

func (c *Config) weight() float64 {
	if c.Lineage.Weight == 0 {
		return 1.0
	}
	return c.Lineage.Weight
}

func (c *Config) callTimeout() time.Duration {
	if c.CallTimeoutMS <= 0 {
		return 5 * time.Minute
	}
	return time.Duration(c.CallTimeoutMS) * time.Millisecond
}

// Principals are the principals recording with c needs.
func (c *Config) Principals(agent string) []Principal {
	ps := []Principal{{agent, record.ChannelAuthenticated}}
	for _, s := range c.Servers {
		switch s.Role {
		case RoleSourceUntrusted:
			ps = append(ps, Principal{"external:" + s.Name, record.ChannelUnauthenticated})
		case RoleSourceTrusted:
			ps = append(ps, Principal{"tool:" + s.Name, record.ChannelAuthenticated})
		}
	}
	return ps
}
