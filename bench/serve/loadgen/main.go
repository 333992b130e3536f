// Command loadgen runs concurrent clients against an example service (serve_spec.md,
// docs/serving.md): each client POSTs /v1/predict one request after another for the
// given time and every answer is checked against the model computed here from --seed,
// independently of Tessera. It prints one JSON line. With -idle-probe N it instead
// measures the first request after N seconds of idle. See bench/serve/README.md.
//
//	loadgen -url http://127.0.0.1:8080 -clients 16 -duration 10s -label ranks=4
//	loadgen -url http://127.0.0.1:8080 -idle-probe 10
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"
)

// label is a -label k=v: a field of the output line. A value that parses as a finite
// number is written as a JSON number, any other as a string.
type label struct{ key, value string }

type labelFlag struct{ labels *[]label }

func (l labelFlag) String() string {
	if l.labels == nil {
		return ""
	}
	parts := make([]string, len(*l.labels))
	for i, lb := range *l.labels {
		parts[i] = lb.key + "=" + lb.value
	}
	return strings.Join(parts, ",")
}

func (l labelFlag) Set(s string) error {
	key, value, ok := strings.Cut(s, "=")
	if !ok || key == "" {
		return fmt.Errorf("label %q is not key=value with a non-empty key", s)
	}
	for _, lb := range *l.labels {
		if lb.key == key {
			return fmt.Errorf("label %q: key %q given twice", s, key)
		}
	}
	*l.labels = append(*l.labels, label{key, value})
	return nil
}

// field is one key of an output line, in order.
type field struct {
	key   string
	value interface{}
}

// jsonLine writes fields then labels as one JSON object; a label may not reuse a
// field's key.
func jsonLine(fields []field, labels []label) ([]byte, error) {
	taken := map[string]bool{}
	for _, f := range fields {
		taken[f.key] = true
	}
	for _, lb := range labels {
		if taken[lb.key] {
			return nil, fmt.Errorf("-label %s=%s: key %q is one of the output's own fields", lb.key, lb.value, lb.key)
		}
		var v interface{} = lb.value
		if n, err := strconv.ParseFloat(lb.value, 64); err == nil && !math.IsInf(n, 0) && !math.IsNaN(n) {
			v = json.Number(lb.value)
		}
		fields = append(fields, field{lb.key, v})
	}
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range fields {
		if i > 0 {
			b.WriteString(", ")
		}
		k, _ := json.Marshal(f.key)
		v, err := json.Marshal(f.value)
		if err != nil {
			return nil, fmt.Errorf("field %q: %v", f.key, err)
		}
		b.Write(k)
		b.WriteString(": ")
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// seconds is a duration flag that takes plain seconds ("10", "0.5") or a Go duration
// ("10s", "500ms").
type seconds struct{ d *time.Duration }

func (s seconds) String() string {
	if s.d == nil {
		return ""
	}
	return strconv.FormatFloat(s.d.Seconds(), 'g', -1, 64)
}

func (s seconds) Set(v string) error {
	if f, err := strconv.ParseFloat(v, 64); err == nil {
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return fmt.Errorf("%q is not a finite number of seconds", v)
		}
		*s.d = time.Duration(f * float64(time.Second))
		return nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		return fmt.Errorf("%q is neither seconds nor a duration such as 10s", v)
	}
	*s.d = d
	return nil
}

// options are the parsed flags.
type options struct {
	cfg       config
	labels    []label
	idleProbe time.Duration // 0: a load run
	probe     bool          // -idle-probe was given
}

// parseFlags parses args (without the program name); the error names the flag and
// the value.
func parseFlags(args []string, stderr io.Writer) (options, error) {
	o := options{cfg: config{
		clients:  1,
		duration: 10 * time.Second,
		warmup:   time.Second,
		rows:     1,
		timeout:  30 * time.Second,
	}}
	fs := flag.NewFlagSet("loadgen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.cfg.url, "url", "", "the service's base URL, e.g. http://127.0.0.1:8080 (required)")
	fs.IntVar(&o.cfg.clients, "clients", o.cfg.clients, "concurrent clients (1..4096)")
	fs.Var(seconds{&o.cfg.duration}, "duration", "measured time: seconds or a duration such as 10s")
	fs.Var(seconds{&o.cfg.warmup}, "warmup", "time before the measured window, not counted")
	fs.IntVar(&o.cfg.rows, "rows", o.cfg.rows, fmt.Sprintf("rows per request (1..%d)", maxRows))
	fs.Uint64Var(&o.cfg.seed, "seed", 0, "the service's --seed (weights of the reference)")
	fs.Var(seconds{&o.cfg.timeout}, "timeout", "per-request timeout")
	fs.BoolVar(&o.cfg.metrics, "metrics", true, "scrape the service's /metrics at the window's start and end and add its server_* figures")
	fs.Var(labelFlag{&o.labels}, "label", "k=v added to the output line (repeatable)")
	fs.Var(seconds{&o.idleProbe}, "idle-probe", "instead of a load run: one request, N seconds idle, then time the next request")
	err := fs.Parse(args)
	if err != nil {
		return o, err
	}
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "idle-probe" {
			o.probe = true
		}
	})
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected argument %q (every option is a -flag)", fs.Arg(0))
	}
	if o.cfg.url == "" {
		return o, errors.New("-url is required (the service's base URL, e.g. http://127.0.0.1:8080)")
	}
	if u, err := url.Parse(o.cfg.url); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return o, fmt.Errorf("-url %q is not an http:// or https:// URL with a host", o.cfg.url)
	}
	if o.cfg.clients < 1 || o.cfg.clients > 4096 {
		return o, fmt.Errorf("-clients %d is out of range 1..4096", o.cfg.clients)
	}
	if o.cfg.rows < 1 || o.cfg.rows > maxRows {
		return o, fmt.Errorf("-rows %d is out of range 1..%d", o.cfg.rows, maxRows)
	}
	if o.cfg.duration <= 0 && !o.probe {
		return o, fmt.Errorf("-duration %v must be positive", o.cfg.duration)
	}
	if o.cfg.warmup < 0 {
		return o, fmt.Errorf("-warmup %v must not be negative", o.cfg.warmup)
	}
	if o.cfg.timeout <= 0 {
		return o, fmt.Errorf("-timeout %v must be positive", o.cfg.timeout)
	}
	if o.probe && o.idleProbe < 0 {
		return o, fmt.Errorf("-idle-probe %v must not be negative", o.idleProbe)
	}
	// A label may not reuse one of the line's own keys: try the line now, not after the run.
	if o.probe {
		_, err = idleSummary(o.cfg, idleResult{server: everyServerField()}, o.labels)
	} else {
		_, err = summary(o.cfg, result{server: everyServerField()}, o.labels)
	}
	return o, err
}

// mainWithArgs runs loadgen and returns its exit status: 0 when every request was
// answered right, 1 when some failed or were wrong (the line is printed all the
// same), 2 for bad flags.
func mainWithArgs(args []string, stdout, stderr io.Writer) int {
	o, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 2
	}
	if err != nil {
		fmt.Fprintf(stderr, "loadgen: %v\n", err)
		return 2
	}
	var line []byte
	var bad int
	var messages []string
	if o.probe {
		res := idleProbe(o.cfg, o.idleProbe)
		line, err = idleSummary(o.cfg, res, o.labels)
		bad, messages = res.errors+res.wrong, res.firstErrors
		if res.metricsErr != nil {
			messages = append(messages, fmt.Sprintf("no server_* figures: %v", res.metricsErr))
		}
	} else {
		res := run(o.cfg)
		line, err = summary(o.cfg, res, o.labels)
		bad, messages = res.errors+res.wrong, res.firstErrors
		if res.metricsErr != nil {
			messages = append(messages, fmt.Sprintf("no server_* figures: %v", res.metricsErr))
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "loadgen: %v\n", err)
		return 2
	}
	for _, m := range messages {
		fmt.Fprintf(stderr, "loadgen: %s\n", m)
	}
	fmt.Fprintf(stdout, "%s\n", line)
	if bad > 0 {
		return 1
	}
	return 0
}

func main() {
	os.Exit(mainWithArgs(os.Args[1:], os.Stdout, os.Stderr))
}
