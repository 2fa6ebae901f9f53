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
	ServeChild(serveEnv, func(lat time.Duration) Options { return Options{Latency: lat} })
}

// StartProcess runs a fake server with the given latency in a child copy of
// the current test binary (whose TestMain calls ServeIfChild), so that
// benchmarks can measure the client's CPU time alone. stop ends it.
func StartProcess(latency time.Duration) (baseURL string, stop func(), err error) {
	return StartChild(serveEnv, latency)
}

// ServeChild is ServeIfChild for a server of one's own: when the variable
// env is set (by StartChild), the process serves New(options(latency)),
// prints its base URL, serves until stdin closes and exits; otherwise it
// returns at once. Packages with their own scripted answers (serve/drift's
// drifttest) use it with their own variable.
func ServeChild(env string, options func(latency time.Duration) Options) {
	v := os.Getenv(env)
	if v == "" {
		return
	}
	lat, err := time.ParseDuration(v)
	if err != nil {
		fmt.Fprintf(os.Stderr, "fake server (%s): %v\n", env, err)
		os.Exit(2)
	}
	s := New(options(lat))
	fmt.Println(s.BaseURL())
	io.Copy(io.Discard, os.Stdin)
	os.Exit(0)
}

// StartChild runs a child copy of the current test binary with env set to
// latency, whose TestMain serves through ServeChild(env, …), and returns
// the base URL it prints. stop ends it.
func StartChild(env string, latency time.Duration) (baseURL string, stop func(), err error) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), env+"="+latency.String())
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
		return "", nil, fmt.Errorf("fake server process (%s): %w", env, err)
	}
	return strings.TrimSpace(line), stop, nil
}
