package serve

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/driftkit/driftkit/app"
)

// The server's request guards. Every request passes, in this order:
//
//  1. hostGuard: the Host header must be an IP address, localhost (or a
//     *.localhost name) or the host of Options.PublicURL. A page that makes
//     its own name resolve to 127.0.0.1 (DNS rebinding) is then not this
//     server's origin, and the checks below cannot be satisfied by it.
//  2. http.CrossOriginProtection, on every method but GET, HEAD and OPTIONS:
//     a browser's request is refused unless Sec-Fetch-Site says same-origin
//     (or none: typed by the user); without Sec-Fetch-Site, an Origin header
//     must match Host (or Options.PublicURL's origin). A request with neither
//     header is not a browser's cross-site request (browsers send Origin on
//     every cross-origin POST, and Sec-Fetch-Site since 2023), so LeanSearch
//     clients, premise selectors and MCP clients that POST from a program
//     pass. same-site (another port of the same host) is refused.
//  3. bodyGuard, on the same methods: the body must be declared
//     application/json (charset utf-8 at most), or be empty with no
//     Content-Type. A form's types (x-www-form-urlencoded, multipart,
//     text/plain: what a cross-site form or a no-preflight fetch can send)
//     are refused with 415, except on the routes registered with s.form (the
//     DRIFT page's own form, behind the origin check).
//
// Routes registered with s.privileged (runs started, cancelled or listed,
// reloads) also need Options.Token as "Authorization: Bearer TOKEN", or,
// when no token is configured, a client on the loopback interface.
//
// A new route gets 1–3 by being registered on s.mux at all; it declares
// itself privileged or form through the helpers in routes().

// guard wraps the mux with the checks every request passes.
func (s *Server) guard(next http.Handler) http.Handler {
	cop := http.NewCrossOriginProtection()
	if s.public != nil {
		// Behind a proxy that rewrites Host, the browser's Origin is the
		// public one.
		cop.AddTrustedOrigin(s.public.Scheme + "://" + s.public.Host)
	}
	cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusForbidden, "Origin", "a request from another origin cannot change anything here ("+
			originSummary(r)+"); send it from this server's own pages, or from a program without Origin/Sec-Fetch-Site headers")
	}))
	inner := cop.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := s.checkBody(r); err != nil {
			writeError(w, http.StatusUnsupportedMediaType, "Content-Type", err.Error())
			return
		}
		next.ServeHTTP(w, r)
	}))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.hostAllowed(r.Host) {
			writeError(w, http.StatusMisdirectedRequest, "Host", fmt.Sprintf("Host %q is not a name of this server: use its address, localhost, "+
				"or start it with --public-url naming the host clients use", truncate(r.Host, 100)))
			return
		}
		if safeMethod(r.Method) && crossSite(r, s.public) {
			// A page of another site can make a browser GET here (an
			// image, a link): it changes nothing, and asks no model
			// either (query augmentation), which would spend the
			// server's key and grow its cache at that page's will.
			r = r.WithContext(context.WithValue(r.Context(), crossSiteKey{}, true))
		}
		inner.ServeHTTP(w, r)
	})
}

// crossSiteKey marks the context of a browser's request made by a page of
// another site (crossSite).
type crossSiteKey struct{}

// fromOtherSite reports whether ctx is of a request crossSite marked.
func fromOtherSite(ctx context.Context) bool {
	v, _ := ctx.Value(crossSiteKey{}).(bool)
	return v
}

// crossSite reports a browser's request made by a page of another origin:
// Sec-Fetch-Site cross-site or same-site (another port of this host), or,
// from a browser without Fetch Metadata, an Origin other than this
// server's (Host, or public's). A program sends neither header.
func crossSite(r *http.Request, public *url.URL) bool {
	switch r.Header.Get("Sec-Fetch-Site") {
	case "cross-site", "same-site":
		return true
	case "same-origin", "none":
		return false
	}
	o := r.Header.Get("Origin")
	if o == "" {
		return false
	}
	u, err := url.Parse(o)
	if err != nil || u.Host == "" {
		return true // "null" (a sandboxed frame, a data: URL) and the like
	}
	if public != nil && strings.EqualFold(u.Scheme+"://"+u.Host, public.Scheme+"://"+public.Host) {
		return false
	}
	return !strings.EqualFold(u.Host, r.Host)
}

func originSummary(r *http.Request) string {
	var parts []string
	if v := r.Header.Get("Sec-Fetch-Site"); v != "" {
		parts = append(parts, "Sec-Fetch-Site: "+truncate(v, 32))
	}
	if v := r.Header.Get("Origin"); v != "" {
		parts = append(parts, "Origin: "+truncate(v, 100))
	}
	return strings.Join(parts, ", ")
}

// hostAllowed is hostGuard's rule (see guard).
func (s *Server) hostAllowed(hostport string) bool {
	if hostport == "" {
		return true // HTTP/1.0 without Host: not a browser
	}
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.Trim(host, "[]"), ".")
	switch {
	case net.ParseIP(host) != nil:
		return true
	case strings.EqualFold(host, "localhost") || strings.HasSuffix(strings.ToLower(host), ".localhost"):
		return true
	case s.public != nil && strings.EqualFold(host, s.public.Hostname()):
		return true
	}
	return false
}

// safeMethod: methods that change nothing here (no GET route changes state).
func safeMethod(m string) bool {
	return m == http.MethodGet || m == http.MethodHead || m == http.MethodOptions
}

// checkBody is bodyGuard's rule (see guard).
func (s *Server) checkBody(r *http.Request) error {
	if safeMethod(r.Method) {
		return nil
	}
	ct := r.Header.Get("Content-Type")
	if ct == "" {
		if r.ContentLength == 0 {
			return nil
		}
		return errors.New("a body without Content-Type: send Content-Type: application/json")
	}
	mt, params, err := mime.ParseMediaType(ct)
	if err != nil {
		return fmt.Errorf("%q: %v; send application/json", truncate(ct, 64), err)
	}
	if mt == "application/x-www-form-urlencoded" && s.isForm(r) {
		return nil
	}
	if mt != "application/json" {
		return fmt.Errorf("%q: send application/json", truncate(ct, 64))
	}
	for k, v := range params {
		if k != "charset" || !strings.EqualFold(v, "utf-8") {
			return fmt.Errorf("%q: only charset=utf-8 may follow application/json", truncate(ct, 64))
		}
	}
	return nil
}

// isForm reports whether r goes to a route registered with s.form.
func (s *Server) isForm(r *http.Request) bool {
	_, pattern := s.mux.Handler(r)
	return s.forms[pattern]
}

// form registers a page that takes an HTML form's POST (urlencoded).
func (s *Server) form(pattern string, h http.Handler) {
	s.forms[pattern] = true
	s.mux.Handle(pattern, h)
}

// privileged registers a route that starts, cancels or lists runs or
// reloads: see authorize.
func (s *Server) privileged(pattern string, h http.HandlerFunc) {
	s.mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
		if s.deny(w, r) {
			return
		}
		h(w, r)
	})
}

// errUnauthorized and errLoopbackOnly are authorize's refusals.
var (
	errUnauthorized = errors.New("this needs the server's token: send Authorization: Bearer TOKEN")
	errLoopbackOnly = errors.New("allowed from this machine only (loopback); start the server with --token to allow it from elsewhere")
)

// authorize admits a privileged request: with a token configured, one that
// carries it; without, one from the loopback interface.
func (s *Server) authorize(r *http.Request) error {
	if s.opts.Token != "" {
		got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok || subtle.ConstantTimeCompare([]byte(strings.TrimSpace(got)), []byte(s.opts.Token)) != 1 {
			return errUnauthorized
		}
		return nil
	}
	if !loopback(r.RemoteAddr) {
		return errLoopbackOnly
	}
	return nil
}

// deny answers a privileged request authorize refuses (401 or 403) and
// reports whether it did.
func (s *Server) deny(w http.ResponseWriter, r *http.Request) bool {
	switch err := s.authorize(r); err {
	case nil:
		return false
	case errUnauthorized:
		w.Header().Set("WWW-Authenticate", `Bearer realm="driftkit"`)
		writeError(w, http.StatusUnauthorized, "Authorization", err.Error())
	default:
		writeError(w, http.StatusForbidden, "", err.Error())
	}
	return true
}

// parsePublicURL checks Options.PublicURL: an absolute http(s) URL without
// query or fragment; its path is kept as the prefix of links.
func parsePublicURL(raw string) (*url.URL, error) {
	if raw == "" {
		return nil, nil
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return nil, fmt.Errorf("%w: public URL %q: want http(s)://HOST[:PORT][/PATH]", app.ErrConfig, raw)
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	return u, nil
}

// LoopbackAddr reports whether a listener's address is on the loopback
// interface only.
func LoopbackAddr(a net.Addr) bool {
	ta, ok := a.(*net.TCPAddr)
	return ok && ta.IP.IsLoopback()
}
