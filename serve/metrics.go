package serve

import (
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// metrics are the server's Prometheus metrics, on a registry of its own
// (no process-wide state: two servers in one process do not collide).
type metrics struct {
	reg      *prometheus.Registry
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
	runs     *prometheus.GaugeVec
	runsDone *prometheus.CounterVec
	reloads  *prometheus.CounterVec
}

func newMetrics(wss []*Workspace) *metrics {
	m := &metrics{reg: prometheus.NewRegistry()}
	m.requests = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "driftkit_http_requests_total",
		Help: "HTTP requests by route pattern, method and status code."}, []string{"route", "method", "code"})
	m.latency = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "driftkit_http_request_duration_seconds",
		Help:    "HTTP request latency by route pattern (event streams: their whole life).",
		Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30}}, []string{"route"})
	m.runs = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "driftkit_runs_in_flight",
		Help: "DRIFT and ToMap runs running now."}, []string{"kind"})
	m.runsDone = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "driftkit_runs_finished_total",
		Help: "Runs finished, by kind and final status (done, failed, cancelled)."}, []string{"kind", "status"})
	m.reloads = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "driftkit_index_reloads_total",
		Help: "Index reloads by workspace and result (ok, error)."}, []string{"workspace", "result"})
	m.reg.MustRegister(m.requests, m.latency, m.runs, m.runsDone, m.reloads,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	for _, kind := range []string{runDrift, runToMap} {
		m.runs.WithLabelValues(kind)
	}
	for _, ws := range wss {
		ws := ws
		labels := prometheus.Labels{"workspace": ws.Name}
		m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "driftkit_index_documents",
			Help: "Documents in the loaded index.", ConstLabels: labels}, func() float64 { return float64(ws.Index.About().Docs) }))
		m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "driftkit_index_bytes",
			Help: "Size of the loaded index's files on disk.", ConstLabels: labels}, func() float64 { return float64(ws.Index.About().Bytes) }))
		m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "driftkit_declarations",
			Help: "Declarations served by /api/decl.", ConstLabels: labels}, func() float64 { return float64(ws.Decls().Len()) }))
	}
	return m
}

func (m *metrics) observe(route, method string, status int, d time.Duration) {
	m.requests.WithLabelValues(route, method, strconv.Itoa(status)).Inc()
	m.latency.WithLabelValues(route).Observe(d.Seconds())
}

func (m *metrics) reloaded(ws string, err error) {
	res := "ok"
	if err != nil {
		res = "error"
	}
	m.reloads.WithLabelValues(ws, res).Inc()
}

func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}
