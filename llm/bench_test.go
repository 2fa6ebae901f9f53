package llm_test

import (
	"context"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/driftkit/driftkit/internal/cpu"
	"github.com/driftkit/driftkit/internal/testkit/fakeopenai"
	"github.com/driftkit/driftkit/llm"
)

func TestMain(m *testing.M) {
	fakeopenai.ServeIfChild()
	os.Exit(m.Run())
}

// BenchmarkChatThroughput sends chat requests through the client to a fake
// server in another process that answers after 200 ms, with concurrency 64:
// the ideal is 320 requests/s. It reports the achieved rate, its share of
// the ideal and the client's CPU time per request (getrusage, this process
// only).
func BenchmarkChatThroughput(b *testing.B) {
	const latency, conc, perIter = 200 * time.Millisecond, 64, 64 * 20
	url, stop, err := fakeopenai.StartProcess(latency)
	if err != nil {
		b.Fatal(err)
	}
	defer stop()
	c, err := llm.New(llm.Config{BaseURLs: []string{url}, APIKey: "k", Model: "m", Concurrency: conc})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	// Warm up connections.
	var wg sync.WaitGroup
	for i := 0; i < conc; i++ {
		wg.Add(1)
		go func() { defer wg.Done(); c.Chat(context.Background(), ask("warm")) }()
	}
	wg.Wait()
	total := perIter * b.N
	jobs := make(chan int)
	b.ResetTimer()
	cpu0, t0 := cpu.Time(), time.Now()
	for w := 0; w < conc; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range jobs {
				if _, err := c.Chat(context.Background(), ask("Nat.Prime.two_le")); err != nil {
					b.Error(err)
				}
			}
		}()
	}
	for i := 0; i < total; i++ {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	el, used := time.Since(t0), cpu.Time()-cpu0
	b.StopTimer()
	rate := float64(total) / el.Seconds()
	ideal := float64(conc) / latency.Seconds()
	b.ReportMetric(rate, "req/s")
	b.ReportMetric(100*rate/ideal, "%ideal")
	b.ReportMetric(float64(used.Microseconds())/1000/float64(total), "cpu-ms/req")
}
