package serve

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpSession connects the Go SDK's client to ts's MCP server over HTTP
// (/mcp, through the server's guards) or in memory.
func mcpSession(t *testing.T, ts *testServer, overHTTP bool) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil)
	var tr mcp.Transport
	if overHTTP {
		tr = &mcp.StreamableClientTransport{Endpoint: ts.ts.URL + "/mcp", HTTPClient: ts.ts.Client()}
	} else {
		st, ct := mcp.NewInMemoryTransports()
		go ts.RunMCP(ctx, st)
		tr = ct
	}
	cs, err := c.Connect(ctx, tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func callTool(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (*mcp.CallToolResult, map[string]any) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: protocol error %v", name, err)
	}
	var out map[string]any
	if res.StructuredContent != nil {
		b, _ := json.Marshal(res.StructuredContent)
		json.Unmarshal(b, &out)
	}
	return res, out
}

func toolText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func TestMCPTools(t *testing.T) {
	for _, overHTTP := range []bool{false, true} {
		ts := newTestServer(t, Options{})
		cs := mcpSession(t, ts, overHTTP)
		tools, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]bool{"search": true, "get_declaration": true, "dependencies": true, "used_by": true, "premises_for_goal": true, "drift_context": true, "workspaces": true}
		for _, tool := range tools.Tools {
			delete(want, tool.Name)
			a := tool.Annotations
			if a == nil || !a.ReadOnlyHint || !a.IdempotentHint || a.DestructiveHint == nil || *a.DestructiveHint {
				t.Errorf("%s: annotations %+v: want read-only, idempotent, not destructive", tool.Name, a)
			}
			if tool.InputSchema == nil {
				t.Errorf("%s: no input schema", tool.Name)
			}
		}
		if len(want) > 0 {
			t.Errorf("tools missing: %v", want)
		}
		res, out := callTool(t, cs, "search", map[string]any{"query": "prime divides a product", "limit": 2})
		hits, _ := out["hits"].([]any)
		if res.IsError || len(hits) == 0 || hits[0].(map[string]any)["name"] != "Nat.Prime.dvd_mul" {
			t.Errorf("search: %v %s", out, toolText(res))
		}
		if h := hits[0].(map[string]any); h["informal_statement"] != nil || h["signature"] == nil {
			t.Errorf("compact search hit %v", h)
		}
		_, out = callTool(t, cs, "search", map[string]any{"query": "prime divides a product", "limit": 2, "full": true})
		if h := out["hits"].([]any)[0].(map[string]any); h["informal_statement"] == nil {
			t.Errorf("full search hit %v", h)
		}
		res, out = callTool(t, cs, "get_declaration", map[string]any{"name": "Nat.Prime", "workspace": "main"})
		if res.IsError || out["module"] != "Mathlib.Data.Nat.Prime.Defs" || out["informal_provider"] != "LLM gpt-4o" || !strings.HasPrefix(out["code"].(string), "def Nat.Prime") {
			t.Errorf("get_declaration: %v", out)
		}
		_, out = callTool(t, cs, "dependencies", map[string]any{"name": "Nat.Prime.dvd_mul"})
		if b, _ := json.Marshal(out["proof_deps"]); string(b) != `["Nat.Prime","Nat.Coprime.dvd_of_dvd_mul_left"]` {
			t.Errorf("dependencies: %v", out)
		}
		_, out = callTool(t, cs, "used_by", map[string]any{"name": "Nat.Prime", "limit": 1})
		if out["total"] != 2.0 || len(out["used_by"].([]any)) != 1 {
			t.Errorf("used_by: %v", out)
		}
		// The caller's new premise, which states the goal, comes before the
		// unrelated Nat.Prime.dvd_mul.
		res, out = callTool(t, cs, "premises_for_goal", map[string]any{"goal": "p : ℕ\nhp : Nat.Prime p\n⊢ 2 ≤ p", "k": 4,
			"new_premises": []map[string]string{{"name": "mine", "decl": "theorem mine (p : ℕ) (hp : Nat.Prime p) : 2 ≤ p"}}})
		var names []string
		ps, _ := out["premises"].([]any)
		for _, p := range ps {
			names = append(names, p.(map[string]any)["name"].(string))
		}
		if res.IsError || !slices.Contains(names, "mine") || slices.Index(names, "mine") > slices.Index(names, "Nat.Prime.dvd_mul") {
			t.Errorf("premises_for_goal: %v %s", names, toolText(res))
		}
		_, out = callTool(t, cs, "workspaces", nil)
		if ws, _ := out["workspaces"].([]any); len(ws) != 2 {
			t.Errorf("workspaces: %v", out)
		}
		// Tool errors, not protocol errors, and the session goes on.
		for _, c := range []struct {
			tool string
			args map[string]any
			want string
		}{
			{"search", map[string]any{"query": "x", "limit": 500}, "argument limit"},
			{"search", map[string]any{"query": "x", "limit": "ten"}, "limit"},
			{"search", map[string]any{"limit": 3}, "query"},
			{"search", map[string]any{"query": "x", "workspace": "nope"}, "unknown workspace"},
			{"get_declaration", map[string]any{"name": "No.Such"}, "no declaration"},
			{"premises_for_goal", map[string]any{"goal": " "}, "argument goal"},
			{"drift_context", map[string]any{"statement": "every prime is at least two"}, "not configured"},
		} {
			res, _ := callTool(t, cs, c.tool, c.args)
			if !res.IsError || !strings.Contains(toolText(res), c.want) {
				t.Errorf("%s %v: error %v %q, want a tool error with %q", c.tool, c.args, res.IsError, toolText(res), c.want)
			}
		}
		if _, out := callTool(t, cs, "workspaces", nil); out["workspaces"] == nil {
			t.Error("the session did not survive the tool errors")
		}
	}
}

// The streamable HTTP transport's session lives across its three methods:
// POST opens it, GET streams it, DELETE ends it (then it is gone).
func TestMCPHTTPSession(t *testing.T) {
	ts := newTestServer(t, Options{})
	post := func(body, sid string) *http.Response {
		req, _ := http.NewRequest("POST", ts.ts.URL+"/mcp", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if sid != "" {
			req.Header.Set("Mcp-Session-Id", sid)
		}
		resp, err := ts.ts.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp
	}
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`
	// The server's guards hold on /mcp: a browser page of another origin,
	// a form's content type, a rebinding Host.
	for _, h := range []map[string]string{{"Origin": "https://evil.example"}, {"Content-Type": "text/plain"}, {"Host": "evil.example"}} {
		req, _ := http.NewRequest("POST", ts.ts.URL+"/mcp", strings.NewReader(initialize))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		for k, v := range h {
			req.Header.Set(k, v)
			if k == "Host" {
				req.Host = v
			}
		}
		resp, err := ts.ts.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden && resp.StatusCode != http.StatusUnsupportedMediaType && resp.StatusCode != http.StatusMisdirectedRequest ||
			resp.Header.Get("Mcp-Session-Id") != "" {
			t.Errorf("POST /mcp with %v: %d, session %q", h, resp.StatusCode, resp.Header.Get("Mcp-Session-Id"))
		}
	}
	resp := post(initialize, "")
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || sid == "" {
		t.Fatalf("initialize: %d, session %q", resp.StatusCode, sid)
	}
	if resp := post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, sid); resp.StatusCode != http.StatusAccepted {
		t.Errorf("initialized: %d", resp.StatusCode)
	}
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "GET", ts.ts.URL+"/mcp", nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", sid)
	gresp, err := ts.ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if gresp.StatusCode != http.StatusOK {
		t.Errorf("GET stream: %d", gresp.StatusCode)
	}
	cancel()
	gresp.Body.Close()
	del := func() int {
		req, _ := http.NewRequest("DELETE", ts.ts.URL+"/mcp", nil)
		req.Header.Set("Mcp-Session-Id", sid)
		resp, err := ts.ts.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := del(); code != http.StatusNoContent {
		t.Errorf("DELETE: %d, want 204", code)
	}
	if code := del(); code != http.StatusNotFound {
		t.Errorf("DELETE again: %d, want 404", code)
	}
}
