// Command payserver is a sensitive payment MCP server for memscope
// record's tests: transfer_funds is what MemLineage's default policy
// governs (recipient, amount).
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type transferIn struct {
	Recipient string `json:"recipient"`
	Amount    string `json:"amount"`
}

func main() {
	s := mcp.NewServer(&mcp.Implementation{Name: "bank", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "transfer_funds", Description: "pay a recipient"}, func(ctx context.Context, _ *mcp.CallToolRequest, in transferIn) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("transferred %s to %s", in.Amount, in.Recipient)}}}, nil, nil
	})
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "payserver:", err)
	}
}
