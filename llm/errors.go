package llm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// ErrRetriesExhausted is matched (errors.Is) by an *Error whose last attempt
// failed in a retryable way: the endpoint kept failing until MaxRetries.
var ErrRetriesExhausted = errors.New("retries exhausted")

// ErrBadResponse is wrapped when an endpoint answered 200 with a body that
// is not a usable completion (no choices, wrong number of embeddings).
var ErrBadResponse = errors.New("unusable response")

// Error is what Chat and Embed return when a request finally fails: which
// operation, at which endpoint, after how many attempts, with the last HTTP
// status (0 if no response arrived) and the last underlying error.
type Error struct {
	Op        string // "chat" or "embeddings"
	Endpoint  string
	Attempts  int
	Status    int
	Retryable bool // the last failure was retryable: retries ran out
	Err       error
}

func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "llm %s at %s", e.Op, e.Endpoint)
	if e.Retryable {
		fmt.Fprintf(&b, ": gave up after %d attempts", e.Attempts)
	} else if e.Attempts > 1 {
		fmt.Fprintf(&b, " (attempt %d)", e.Attempts)
	}
	if e.Status != 0 {
		fmt.Fprintf(&b, ": HTTP %d", e.Status)
	}
	fmt.Fprintf(&b, ": %v", e.Err)
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrRetriesExhausted) true for retryable failures.
func (e *Error) Is(target error) bool { return target == ErrRetriesExhausted && e.Retryable }

// statusOf returns the HTTP status an endpoint answered with (0: none).
func statusOf(err error) int {
	st, _ := isHTTPError(err)
	return st
}

// retryableStatus: rate limits, timeouts and server errors.
func retryableStatus(code int) bool {
	return code == http.StatusTooManyRequests || code == http.StatusRequestTimeout ||
		code == http.StatusConflict || code == 425 || code >= 500
}

// retryableTransport reports transport failures worth retrying: timeouts,
// refused or reset connections, a body cut short, a body that does not
// decode (a proxy's HTML page, a truncated JSON).
func retryableTransport(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.EPIPE) ||
		errors.Is(err, ErrBadResponse) {
		return true
	}
	var ne net.Error
	if errors.As(err, &ne) {
		return true
	}
	msg := err.Error()
	for _, s := range []string{"connection reset", "broken pipe", "EOF", "server closed", "invalid character", "unexpected end of JSON", "cannot unmarshal"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// maxRetryAfter bounds what a server may ask us to wait.
const maxRetryAfter = time.Hour

func clampDelay(x float64, unit time.Duration) time.Duration {
	if !(x > 0) { // also NaN
		return 0
	}
	if x >= float64(maxRetryAfter)/float64(unit) {
		return maxRetryAfter
	}
	return time.Duration(x * float64(unit))
}

// parseRetryAfter reads retry-after-ms (OpenAI), then Retry-After in seconds
// or as an HTTP date. It returns 0 when neither is usable.
func parseRetryAfter(h http.Header, now time.Time) time.Duration {
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && clampDelay(ms, time.Millisecond) > 0 {
			return clampDelay(ms, time.Millisecond)
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		return clampDelay(s, time.Second)
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return min(d, maxRetryAfter)
		}
	}
	return 0
}
