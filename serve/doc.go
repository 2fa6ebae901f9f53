// Package serve is driftkit's HTTP server: one process serving one or
// several workspaces (each index opened once, read-only, shared by every
// request), with
//
//   - a JSON API: /api/search (the ranking and fields of `driftkit search
//     --json`), /api/decl/{name} (the declaration row, informal text with
//     its provider, statement and proof dependencies and users, linked),
//     /api/drift/context (DRIFT's offline retrieve + illustrate), and runs
//     (/api/drift, /api/tomap → run id; /api/runs/{id} and its
//     Server-Sent Events), documented in openapi.json;
//   - POST /search, compatible with LeanSearch, so Mathlib's #leansearch
//     (LeanSearchClient, LEANSEARCHCLIENT_LEANSEARCH_API_URL) queries it;
//   - server-rendered pages (search, declaration with an SVG graph, DRIFT,
//     run follower), embedded, usable without JavaScript for search;
//   - /healthz, /readyz and Prometheus /metrics;
//   - limits (body, query and k caps, per-request timeout, a run pool that
//     answers 429 with Retry-After), reloads of rebuilt indexes without a
//     failed request, and a graceful shutdown that records cancelled runs.
//
// The server searches only through retrieval's interfaces (Index), so any
// backend plugs in; app opens real workspaces for it. No path or
// file name from a request reaches the filesystem: declaration names are
// looked up in memory, run folders are named by the server's random ids.
package serve
