// Command speedreport prints the table of scripts/bench_speed.sh from the
// files it leaves in its output folder (times.tsv, the servers' loadgen
// reports, mine's JSON, the search answers and pairs.parquet of each
// binary):
//
//	speedreport -out DIR [-old]
//
// With -old, each row has the old binary's numbers and the ratio old/new
// (above 1: the new binary is faster or smaller), and it says whether both
// binaries gave the same search answers and the same pairs.parquet.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// run is one timed command: wall and CPU seconds, peak RSS in MB, the load
// average when it ended.
type run struct {
	wall, cpu, rss float64
	load           string
}

// rows are one binary's measurements.
type rows struct {
	runs  map[string][]run
	serve map[string]serveReport
	mine  []mineReport
}

type serveReport struct {
	Requests  int     `json:"requests"`
	Errors    int     `json:"errors"`
	ReqPerS   float64 `json:"requests_per_second"`
	CPUMs     float64 `json:"server_cpu_ms_per_request"`
	PeakRSSMB float64 `json:"server_peak_rss_mb"`
	load      string
}

type mineReport struct {
	Pairs   int     `json:"pairs"`
	Seconds float64 `json:"seconds"`
}

func main() {
	out := flag.String("out", "", "the folder of scripts/bench_speed.sh")
	withOld := flag.Bool("old", false, "compare with the old binary's rows")
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "usage: speedreport -out DIR [-old]")
		os.Exit(2)
	}
	tags := []string{"new"}
	if *withOld {
		tags = append(tags, "old")
	}
	all := map[string]*rows{}
	for _, t := range tags {
		r, err := read(*out, t)
		if err != nil {
			fmt.Fprintln(os.Stderr, "speedreport:", err)
			os.Exit(1)
		}
		all[t] = r
	}
	printTable(all, *withOld)
	for _, t := range tags {
		for k, s := range all[t].serve {
			if s.Errors > 0 {
				fmt.Printf("\n%s binary, %s: %d of %d requests failed (see %s-%s.json)\n", t, k, s.Errors, s.Requests, t, k)
			}
		}
	}
	if *withOld {
		fmt.Println()
		fmt.Println(same(*out, "search answers (search --json, byte for byte)", "search-*.json"))
		fmt.Println(same(*out, "pairs.parquet (byte for byte)", "pairs.parquet"))
	}
}

// read loads one binary's files.
func read(dir, tag string) (*rows, error) {
	r := &rows{runs: map[string][]run{}, serve: map[string]serveReport{}}
	b, err := os.ReadFile(filepath.Join(dir, "times.tsv"))
	if err != nil {
		return nil, err
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.Split(sc.Text(), "\t")
		if f[0] != tag {
			continue
		}
		if strings.HasPrefix(f[1], "serve-") && len(f) == 3 {
			var s serveReport
			jb, err := os.ReadFile(filepath.Join(dir, tag+"-"+f[1]+".json"))
			if err != nil {
				return nil, err
			}
			if err := json.Unmarshal(jb, &s); err != nil {
				return nil, fmt.Errorf("%s-%s.json: %w", tag, f[1], err)
			}
			s.load = f[2]
			r.serve[f[1]] = s
			continue
		}
		if len(f) != 6 {
			return nil, fmt.Errorf("times.tsv: bad line %q", sc.Text())
		}
		x := run{load: f[5]}
		x.wall, _ = strconv.ParseFloat(f[2], 64)
		x.cpu, _ = strconv.ParseFloat(f[3], 64)
		x.rss, _ = strconv.ParseFloat(f[4], 64)
		r.runs[f[1]] = append(r.runs[f[1]], x)
	}
	mines, _ := filepath.Glob(filepath.Join(dir, tag+"-mine-*.json"))
	if len(mines) == 0 && len(r.runs["mine"]) > 0 {
		mines = []string{filepath.Join(dir, tag+"-mine.out")}
	}
	for _, f := range mines {
		var m mineReport
		mb, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		if err := json.Unmarshal(mb, &m); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		r.mine = append(r.mine, m)
	}
	return r, nil
}

// minePerSecond is the median of the mine runs' queries per second (NaN:
// no run).
func minePerSecond(r *rows) float64 {
	if len(r.mine) == 0 {
		return math.NaN()
	}
	qs := make([]float64, len(r.mine))
	for i, m := range r.mine {
		qs[i] = float64(m.Pairs) / max(m.Seconds, 1e-9)
	}
	slices.Sort(qs)
	return qs[len(qs)/2]
}

// median is the run of median wall time (its CPU and RSS with it; NaN
// numbers when the row was not run).
func median(rs []run) run {
	if len(rs) == 0 {
		return run{wall: math.NaN(), cpu: math.NaN(), rss: math.NaN(), load: "—"}
	}
	s := slices.Clone(rs)
	slices.SortFunc(s, func(a, b run) int {
		switch {
		case a.wall < b.wall:
			return -1
		case a.wall > b.wall:
			return 1
		}
		return 0
	})
	return s[len(s)/2]
}

// metric is one cell: a value, its unit, and whether smaller is better.
type metric struct {
	name    string
	value   func(*rows) float64
	unit    string
	smaller bool
	load    func(*rows) string
}

func printTable(all map[string]*rows, withOld bool) {
	runMetric := func(row, what string, pick func(run) float64, unit string) metric {
		return metric{row + " " + what, func(r *rows) float64 { return pick(median(r.runs[row])) }, unit, true,
			func(r *rows) string { return median(r.runs[row]).load }}
	}
	wall := func(x run) float64 { return x.wall }
	cpu := func(x run) float64 { return x.cpu }
	rss := func(x run) float64 { return x.rss }
	serve := func(k, label string) metric {
		return metric{"server CPU per request, " + label, func(r *rows) float64 {
			if s, ok := r.serve[k]; ok {
				return s.CPUMs
			}
			return math.NaN()
		}, "ms", true, func(r *rows) string { return r.serve[k].load }}
	}
	ms := []metric{
		runMetric("search", "(cold, median of 3) wall", wall, "s"), runMetric("search", "CPU", cpu, "s"), runMetric("search", "peak RSS", rss, "MB"),
		runMetric("index", "wall", wall, "s"), runMetric("index", "CPU", cpu, "s"), runMetric("index", "peak RSS", rss, "MB"),
		serve("serve-0", "200 clients, every request a new query"), serve("serve-10", "200 clients, 10 queries repeated"),
		{"mine queries/s (median)", minePerSecond, "q/s", false, func(r *rows) string { return median(r.runs["mine"]).load }},
		runMetric("mine", "CPU", cpu, "s"), runMetric("mine", "peak RSS", rss, "MB"),
		runMetric("extract", "wall", wall, "s"), runMetric("extract", "CPU", cpu, "s"), runMetric("extract", "peak RSS", rss, "MB"),
	}
	if withOld {
		fmt.Println("| what | new | old | old/new | load (new; old) |")
		fmt.Println("|---|---|---|---|---|")
	} else {
		fmt.Println("| what | new | load |")
		fmt.Println("|---|---|---|")
	}
	for _, m := range ms {
		n := m.value(all["new"])
		if !withOld {
			fmt.Printf("| %s | %s | %s |\n", m.name, cell(n, m.unit), m.load(all["new"]))
			continue
		}
		o := m.value(all["old"])
		ratio := o / n
		if !m.smaller {
			ratio = n / o
		}
		r := "—"
		if !math.IsNaN(ratio) {
			r = fmt.Sprintf("%.2f×", ratio)
		}
		fmt.Printf("| %s | %s | %s | %s | %s; %s |\n", m.name, cell(n, m.unit), cell(o, m.unit), r, m.load(all["new"]), m.load(all["old"]))
	}
}

func cell(v float64, unit string) string {
	switch {
	case math.IsNaN(v):
		return "—"
	case v >= 100:
		return fmt.Sprintf("%.0f %s", v, unit)
	case v >= 10:
		return fmt.Sprintf("%.1f %s", v, unit)
	}
	return fmt.Sprintf("%.2f %s", v, unit)
}

// same says whether the new and old files matching pattern are equal.
func same(dir, what, pattern string) string {
	news, _ := filepath.Glob(filepath.Join(dir, "new-"+pattern))
	if len(news) == 0 {
		return what + ": no files"
	}
	var differ []string
	for _, n := range news {
		o := filepath.Join(dir, "old-"+strings.TrimPrefix(filepath.Base(n), "new-"))
		a, err1 := os.ReadFile(n)
		b, err2 := os.ReadFile(o)
		if err1 != nil || err2 != nil || !bytes.Equal(a, b) {
			differ = append(differ, filepath.Base(o))
		}
	}
	if len(differ) > 0 {
		return fmt.Sprintf("%s: DIFFER (%s)", what, strings.Join(differ, ", "))
	}
	return fmt.Sprintf("%s: identical (%d files)", what, len(news))
}
