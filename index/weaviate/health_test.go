package weaviate

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// A cluster that reports too few healthy nodes for a moment (a survivor
// seeing another unhealthy right after a node was lost) is asked again
// before an import gives up; one that stays short fails with the count.
func TestImportWaitsForHealthyNodes(t *testing.T) {
	defer SetSettleWait(time.Millisecond)()
	for _, tc := range []struct {
		name    string
		short   int // answers with one healthy node before two
		calls   int64
		wantErr string
	}{
		{"settles", 2, 3, ""},
		{"stays short", 1000, pushAttempts, "the cluster has 1 healthy nodes [node1] of 2, an import needs 2"},
	} {
		var calls atomic.Int64
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			n := calls.Add(1)
			status := "HEALTHY"
			if n <= int64(tc.short) {
				status = "UNHEALTHY"
			}
			fmt.Fprintf(w, `{"nodes":[{"name":"node0","status":%q},{"name":"node1","status":"HEALTHY"}]}`, status)
		}))
		cl := &client{nodes: []node{{http: srv.URL}}, http: srv.Client()}
		err := cl.waitHealthy(context.Background(), 2)
		srv.Close()
		if calls.Load() != tc.calls || (err == nil) != (tc.wantErr == "") || err != nil && !strings.Contains(err.Error(), tc.wantErr) {
			t.Errorf("%s: %d calls, err %v; want %d calls, err %q", tc.name, calls.Load(), err, tc.calls, tc.wantErr)
		}
		if err != nil && !errors.Is(err, ErrUnavailable) {
			t.Errorf("%s: %v is not ErrUnavailable", tc.name, err)
		}
	}
}
