//go:build linux

package realserver

import (
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestHelperFakeServer is not a test: TestStartOnFreePort runs this test
// binary with it selected, as a server process that fails like a server
// whose port was taken (Python's wording) as many times as asked, then
// serves GET /ready.
func TestHelperFakeServer(t *testing.T) {
	args := flag.Args()
	if len(args) != 4 || args[0] != "fake-server" {
		t.Skip("helper process for TestStartOnFreePort")
	}
	port, count, fails := args[1], args[2], args[3]
	b, _ := os.ReadFile(count)
	n := len(b)
	os.WriteFile(count, append(b, 'x'), 0o644)
	if strconv.Itoa(n) != fails && fails != "always" {
		fmt.Println("OSError: [Errno 98] error while attempting to bind on address ('127.0.0.1', " + port + "): address already in use")
		os.Exit(1)
	}
	if fails == "always" {
		fmt.Println("ModuleNotFoundError: No module named 'llama_cpp'")
		os.Exit(1)
	}
	http.HandleFunc("/ready", func(http.ResponseWriter, *http.Request) {})
	fmt.Println(http.ListenAndServe("127.0.0.1:"+port, nil))
	os.Exit(1)
}

// A server that could not bind its port (taken between FreePort and its
// bind) is started again on another port; one that failed otherwise is not.
func TestStartOnFreePort(t *testing.T) {
	fake := func(fails string) (*Server, error, int) {
		count := filepath.Join(t.TempDir(), "starts")
		s, err := startOnFreePort("fake", func(port int) []string {
			return []string{os.Args[0], "-test.run=^TestHelperFakeServer$", "-test.count=1", "--", "fake-server", strconv.Itoa(port), count, fails}
		}, "/ready", time.Minute)
		b, _ := os.ReadFile(count)
		return s, err, len(b)
	}
	s, err, starts := fake("2") // two taken ports, then a free one
	if err != nil || starts != 3 {
		t.Fatalf("after two taken ports: %v, %d starts; want a server on the third", err, starts)
	}
	s.Stop()
	if !strings.HasPrefix(s.BaseURL, "http://127.0.0.1:") {
		t.Errorf("base URL %q", s.BaseURL)
	}
	if _, err, starts := fake("5"); !errors.Is(err, errAddrInUse) || starts != 3 {
		t.Errorf("ports always taken: %v after %d starts; want errAddrInUse after 3", err, starts)
	}
	if _, err, starts := fake("always"); err == nil || errors.Is(err, errAddrInUse) || starts != 1 || !strings.Contains(err.Error(), "No module named") {
		t.Errorf("a server that fails otherwise: %v after %d starts; want its own error after 1", err, starts)
	}
}
