package org.tessera.examples.service;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.DoubleAdder;
import org.tessera.Server;

/** The service's Prometheus metrics (text format 0.0.4), kept with atomics. */
final class Metrics {
  /** Seconds: predict latency, plan run and queue time. */
  private static final String[] SECONDS =
      {"0.0005", "0.001", "0.002", "0.005", "0.01", "0.02", "0.05", "0.1", "0.2", "0.5", "1",
          "2", "5"};
  /** Rows and requests of a batch. */
  private static final String[] COUNTS = {"1", "2", "4", "8", "16", "32", "64"};

  /** A histogram: counts per bucket (not cumulative until rendered), sum and count. */
  static final class Histogram {
    final String name;
    final String help;
    private final String[] labels;
    private final double[] bounds;
    private final AtomicLongArray counts;  // one per bound, then +Inf
    private final DoubleAdder sum = new DoubleAdder();
    private final AtomicLong count = new AtomicLong();

    Histogram(String name, String help, String[] labels) {
      this.name = name;
      this.help = help;
      this.labels = labels;
      this.bounds = new double[labels.length];
      for (int i = 0; i < labels.length; ++i) bounds[i] = Double.parseDouble(labels[i]);
      this.counts = new AtomicLongArray(labels.length + 1);
    }

    void observe(double v) {
      int i = 0;
      while (i < bounds.length && v > bounds[i]) ++i;
      counts.incrementAndGet(i);
      sum.add(v);
      count.incrementAndGet();
    }

    void render(StringBuilder b) {
      header(b, name, help, "histogram");
      long cumulative = 0;
      for (int i = 0; i <= bounds.length; ++i) {
        cumulative += counts.get(i);
        b.append(name).append("_bucket{le=\"").append(i < bounds.length ? labels[i] : "+Inf")
            .append("\"} ").append(cumulative).append('\n');
      }
      b.append(name).append("_sum ").append(sum.sum()).append('\n');
      b.append(name).append("_count ").append(count.get()).append('\n');
    }
  }

  final AtomicLong requests = new AtomicLong();
  final AtomicLong errors = new AtomicLong();
  final Histogram latency = new Histogram("tessera_serve_request_seconds",
      "Predict latency, the whole handler, in seconds.", SECONDS);
  final Histogram batchRows = new Histogram("tessera_serve_batch_rows",
      "Rows of the batch that served each successful predict request.", COUNTS);
  final Histogram batchRequests = new Histogram("tessera_serve_batch_requests",
      "Requests in the batch that served each successful predict request.", COUNTS);
  final Histogram runSeconds = new Histogram("tessera_serve_plan_run_seconds",
      "Plan run time of that batch (boxing in, the plan, gathering out), in seconds.", SECONDS);
  final Histogram queueSeconds = new Histogram("tessera_serve_queue_seconds",
      "Time from run to the start of its batch, in seconds.", SECONDS);

  private static void header(StringBuilder b, String name, String help, String type) {
    b.append("# HELP ").append(name).append(' ').append(help).append('\n');
    b.append("# TYPE ").append(name).append(' ').append(type).append('\n');
  }

  private static void scalar(StringBuilder b, String name, String help, String type, long v) {
    header(b, name, help, type);
    b.append(name).append(' ').append(v).append('\n');
  }

  /** Every metric, the server's counters read now. */
  String render(Server.Stats stats) {
    StringBuilder b = new StringBuilder();
    scalar(b, "tessera_serve_requests_total", "Predict requests received (also bad ones).",
        "counter", requests.get());
    scalar(b, "tessera_serve_errors_total",
        "Predict requests answered with a non-200 status.", "counter", errors.get());
    for (Histogram h : new Histogram[] {latency, batchRows, batchRequests, runSeconds,
        queueSeconds}) {
      h.render(b);
    }
    scalar(b, "tessera_serve_runs_total", "Plan runs (batches) of the server.", "counter",
        stats.runs);
    scalar(b, "tessera_serve_queued_requests", "Requests waiting in the server's queue now.",
        "gauge", stats.queuedRequests);
    scalar(b, "tessera_serve_available", "1 while the server is available, 0 once it failed.",
        "gauge", stats.available ? 1 : 0);
    return b.toString();
  }
}
