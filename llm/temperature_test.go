package llm_test

import (
	"context"
	"sync"
	"testing"

	"github.com/driftkit/driftkit/internal/testkit/fakeopenai"
	"github.com/driftkit/driftkit/llm"
)

// TestZeroTemperatureIsSent: go-openai omits a zero temperature, so the
// endpoint would sample at its default; the client must send a value.
func TestZeroTemperatureIsSent(t *testing.T) {
	var mu sync.Mutex
	var got []float32
	srv := fakeopenai.New(fakeopenai.Options{Answer: func(r fakeopenai.Request) string {
		mu.Lock()
		got = append(got, r.Chat.Temperature)
		mu.Unlock()
		return `{"ok": true}`
	}})
	defer srv.Close()
	c, err := llm.New(llm.Config{BaseURLs: []string{srv.BaseURL()}, APIKey: "k", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, temp := range []float32{0, 0.7} {
		if _, err := c.Chat(context.Background(), llm.ChatRequest{Messages: []llm.Message{{Role: "user", Content: "x"}}, Temperature: &temp}); err != nil {
			t.Fatal(err)
		}
	}
	if len(got) != 2 || !(got[0] > 0 && got[0] < 1e-30) || got[1] != 0.7 {
		t.Errorf("temperatures on the wire: %v", got)
	}
}
