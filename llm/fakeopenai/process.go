package fakeopenai

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"
)

const serveEnv = "FAKEOPENAI_SERVE_LATENCY"

// ServeIfChild turns the current process into a fake server when it was
// started by StartProcess: call it first thing in a package's TestMain.
// It prints the base URL on stdout and serves until stdin closes, then
// exits. In any other process it returns at once.
func ServeIfChild() {
	v := os.Getenv(serveEnv)
	if v == "" {
		return
	}
	lat, err := time.ParseDuration(v)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fakeopenai:", err)
		os.Exit(2)
	}
	s := New(Options{Latency: lat})
	fmt.Println(s.BaseURL())
	io.Copy(io.Discard, os.Stdin)
	os.Exit(0)
}

// StartProcess runs a fake server with the given latency in a child copy of
// the current test binary (whose TestMain calls ServeIfChild), so that
// benchmarks can measure the client's CPU time alone. stop ends it.
func StartProcess(latency time.Duration) (baseURL string, stop func(), err error) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), serveEnv+"="+latency.String())
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return "", nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return "", nil, err
	}
	if err := cmd.Start(); err != nil {
		return "", nil, err
	}
	stop = func() {
		stdin.Close()
		cmd.Wait()
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		stop()
		return "", nil, fmt.Errorf("fake server process: %w", err)
	}
	return strings.TrimSpace(line), stop, nil
}
