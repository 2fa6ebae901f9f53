package tomap_test

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/driftkit/driftkit/internal/testkit/fakeopenai"
	"github.com/driftkit/driftkit/internal/testkit/tomapfake"
)

const fakeServeEnv = "TOMAP_FAKE_SERVE_LATENCY"

// serveFakeIfChild turns this test binary into a fake model server (the
// rule-based tomapfake.Model) when started by startFakeProcess: benchmarks
// then measure the runner's CPU without the server's.
func serveFakeIfChild() {
	v := os.Getenv(fakeServeEnv)
	if v == "" {
		return
	}
	lat, err := time.ParseDuration(v)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	m := tomapfake.NewModel()
	s := fakeopenai.New(fakeopenai.Options{Latency: lat, Answer: m.Answer, Key: tomapfake.RequestKey})
	fmt.Println(s.BaseURL())
	io.Copy(io.Discard, os.Stdin)
	os.Exit(0)
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }
