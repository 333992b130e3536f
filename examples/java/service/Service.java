package org.tessera.examples.service;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.atomic.AtomicInteger;
import org.tessera.ServeRequest;
import org.tessera.Server;
import org.tessera.Status;
import org.tessera.TesseraException;

/**
 * The driver's HTTP API (docs/serving.md, "HTTP API (driver only)"): POST /v1/predict, GET
 * /v1/model, GET /healthz, GET /metrics. Handlers run concurrently on the HTTP server's
 * executor; each predict takes a ServeRequest from a pool (one per concurrent handler at
 * most), runs it and puts it back.
 */
final class Service implements HttpHandler {
  /** Bodies above this are refused with 400. */
  static final int MAX_BODY_BYTES = 1 << 20;

  private final Server server;
  private final int planId;
  private final String modelJson;
  private final int ranks;
  private final long maxBatchRows;
  private final Metrics metrics = new Metrics();
  private final ConcurrentLinkedDeque<ServeRequest> pool = new ConcurrentLinkedDeque<>();
  private final AtomicInteger inFlight = new AtomicInteger();
  private volatile boolean stopping = false;

  Service(Server server, int planId, Flags flags, int ranks, String placementText) {
    this.server = server;
    this.planId = planId;
    this.ranks = ranks;
    Server.PlanInfo info = server.planInfo(planId);
    this.maxBatchRows = info.maxBatchRows;
    this.modelJson = "{\"model\": \"mlp\", \"input_width\": " + Model.IN
        + ", \"hidden_width\": " + Model.HIDDEN + ", \"output_width\": " + Model.OUT
        + ", \"dtype\": \"f32\", \"ranks\": " + ranks + ", \"placement\": "
        + Json.quote(placementText) + ", \"layout\": {\"x\": " + Json.quote(Model.X_SBP)
        + ", \"w1\": " + Json.quote(Model.W1_SBP) + ", \"w2\": " + Json.quote(Model.W2_SBP)
        + "}, \"seed\": " + Long.toUnsignedString(flags.seed) + ", \"capacity_rows\": "
        + info.capacityRows + ", \"batching\": {\"enabled\": " + info.batching
        + ", \"max_batch_rows\": " + info.maxBatchRows + ", \"max_queue_delay_us\": "
        + info.maxQueueDelayUs + "}}";
  }

  /** A response: status, content type and body. */
  private static final class Reply {
    final int status;
    final String contentType;
    final String body;
    final String allow;

    Reply(int status, String contentType, String body, String allow) {
      this.status = status;
      this.contentType = contentType;
      this.body = body;
      this.allow = allow;
    }

    static Reply json(int status, String body) {
      return new Reply(status, "application/json", body, null);
    }

    static Reply error(int status, String message) {
      return json(status, Json.error(message));
    }

    static Reply methodNotAllowed(String method, String path, String allow) {
      return new Reply(405, "application/json",
          Json.error("method " + method + " is not allowed on " + path + "; use " + allow),
          allow);
    }
  }

  @Override
  public void handle(HttpExchange exchange) throws IOException {
    inFlight.incrementAndGet();
    try {
      String path = exchange.getRequestURI().getPath();
      String method = exchange.getRequestMethod();
      Reply reply;
      if (stopping) {
        // Counted in flight before this check, so the driver waits for what passed it.
        if (path.equals("/v1/predict")) {
          metrics.requests.incrementAndGet();
          metrics.errors.incrementAndGet();
        }
        send(exchange, Reply.error(503, "the service is stopping"));
        return;
      }
      switch (path) {
        case "/v1/predict":
          reply = predict(exchange, method);
          break;
        case "/v1/model":
          reply = method.equals("GET") ? Reply.json(200, modelJson)
                                       : Reply.methodNotAllowed(method, path, "GET");
          break;
        case "/healthz":
          reply = method.equals("GET") ? health() : Reply.methodNotAllowed(method, path, "GET");
          break;
        case "/metrics":
          reply = method.equals("GET")
              ? new Reply(200, "text/plain; version=0.0.4", metrics.render(server.stats()), null)
              : Reply.methodNotAllowed(method, path, "GET");
          break;
        default:
          reply = Reply.error(404, "no such path: " + path);
      }
      send(exchange, reply);
    } finally {
      inFlight.decrementAndGet();
      exchange.close();
    }
  }

  private static void send(HttpExchange exchange, Reply reply) throws IOException {
    byte[] body = reply.body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", reply.contentType);
    if (reply.allow != null) {
      exchange.getResponseHeaders().set("Allow", reply.allow);
    }
    exchange.sendResponseHeaders(reply.status, body.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(body);
    }
  }

  private Reply health() {
    try {
      server.checkHealth(2.0);
      return Reply.json(200, "{\"status\": \"ok\", \"ranks\": " + ranks + "}");
    } catch (TesseraException e) {
      return Reply.json(503, "{\"status\": \"unavailable\", \"error\": "
          + Json.quote(e.getStatusMessage()) + "}");
    }
  }

  /** POST /v1/predict, counted and timed whatever the outcome. */
  private Reply predict(HttpExchange exchange, String method) {
    long start = System.nanoTime();
    metrics.requests.incrementAndGet();
    Reply reply;
    try {
      reply = method.equals("POST") ? predictRows(exchange)
                                    : Reply.methodNotAllowed(method, "/v1/predict", "POST");
    } catch (IOException e) {
      reply = Reply.error(400, "cannot read the body: " + e.getMessage());
    }
    if (reply.status != 200) {
      metrics.errors.incrementAndGet();
    }
    metrics.latency.observe((System.nanoTime() - start) / 1e9);
    return reply;
  }

  /** Thrown for a body that breaks the request shape; the message is the 400's error. */
  private static final class BadRequest extends Exception {
    private static final long serialVersionUID = 1L;

    BadRequest(String message) {
      super(message);
    }
  }

  private Reply predictRows(HttpExchange exchange) throws IOException {
    float[] x;
    int rows;
    try {
      Object body = Json.parse(readBody(exchange.getRequestBody()));
      List<?> inputs = inputsOf(body);
      rows = inputs.size();
      if (rows > maxBatchRows) {
        throw new BadRequest("\"inputs\" has " + rows + " rows; at most " + maxBatchRows
            + " (--max-batch-rows) are taken");
      }
      x = new float[rows * Model.IN];
      for (int r = 0; r < rows; ++r) readRow(inputs.get(r), r, x);
    } catch (BadRequest | Json.Malformed e) {
      return Reply.error(400, e.getMessage());
    }
    ServeRequest request = pool.poll();
    float[] y;
    ServeRequest.Info info;
    try {
      if (request == null) {
        request = server.newRequest(planId);
      }
      request.setInput(0, x);
      server.run(request);
      y = request.outputFloatArray(0);
      info = request.info();
    } catch (TesseraException e) {
      int code = e.getCode();
      boolean unavailable = code == Status.UNAVAILABLE || code == Status.CANCELLED
          || code == Status.DEADLINE_EXCEEDED;
      return Reply.error(unavailable ? 503 : 500, e.getMessage());
    } finally {
      if (request != null) {
        pool.push(request);
      }
    }
    metrics.batchRows.observe(info.batchRows);
    metrics.batchRequests.observe(info.batchRequests);
    metrics.runSeconds.observe(info.runSeconds);
    metrics.queueSeconds.observe(info.queueSeconds);
    StringBuilder b = new StringBuilder(32 + rows * Model.OUT * 14).append("{\"outputs\": [");
    for (int r = 0; r < rows; ++r) {
      b.append(r > 0 ? ", [" : "[");
      for (int j = 0; j < Model.OUT; ++j) {
        float v = y[r * Model.OUT + j];
        if (!Float.isFinite(v)) {
          return Reply.error(500, "output row " + r + " holds " + v + ", which JSON cannot carry");
        }
        b.append(j > 0 ? ", " : "").append(Float.toString(v));
      }
      b.append(']');
    }
    return Reply.json(200, b.append("]}").toString());
  }

  /** The body as UTF-8 text; BadRequest when over MAX_BODY_BYTES or not UTF-8. */
  private static String readBody(InputStream in) throws IOException, BadRequest {
    byte[] buf = new byte[8192];
    int n = 0;
    while (true) {
      if (n == buf.length) {
        if (n > MAX_BODY_BYTES) {
          throw new BadRequest("body is over 1 MiB (" + MAX_BODY_BYTES + " bytes)");
        }
        buf = Arrays.copyOf(buf, Math.min(2 * buf.length, MAX_BODY_BYTES + 1));
      }
      int got = in.read(buf, n, buf.length - n);
      if (got < 0) {
        break;
      }
      n += got;
    }
    if (n > MAX_BODY_BYTES) {
      throw new BadRequest("body is over 1 MiB (" + MAX_BODY_BYTES + " bytes)");
    }
    try {
      return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(buf, 0, n))
          .toString();
    } catch (CharacterCodingException e) {
      throw new BadRequest("body is not UTF-8 text");
    }
  }

  /** body["inputs"], a non-empty list. */
  private static List<?> inputsOf(Object body) throws BadRequest {
    if (!(body instanceof Map)) {
      throw new BadRequest("body is " + Json.kind(body) + ", not a JSON object");
    }
    Map<?, ?> object = (Map<?, ?>) body;
    if (!object.containsKey("inputs")) {
      throw new BadRequest("body has no \"inputs\"");
    }
    Object inputs = object.get("inputs");
    if (!(inputs instanceof List)) {
      throw new BadRequest("\"inputs\" is " + Json.kind(inputs) + ", not a list of rows");
    }
    if (((List<?>) inputs).isEmpty()) {
      throw new BadRequest("\"inputs\" is empty; it must hold at least one row");
    }
    return (List<?>) inputs;
  }

  /** Row {@code r}, a list of Model.IN finite f32 numbers, into x. */
  private static void readRow(Object row, int r, float[] x) throws BadRequest {
    if (!(row instanceof List)) {
      throw new BadRequest("inputs[" + r + "] is " + Json.kind(row) + ", not a list of "
          + Model.IN + " numbers");
    }
    List<?> values = (List<?>) row;
    if (values.size() != Model.IN) {
      throw new BadRequest("inputs[" + r + "] has " + values.size() + " values; each row has "
          + "exactly " + Model.IN);
    }
    for (int k = 0; k < Model.IN; ++k) {
      Object v = values.get(k);
      if (!(v instanceof Double)) {
        throw new BadRequest("inputs[" + r + "][" + k + "] is " + Json.kind(v)
            + ", not a number");
      }
      float f = (float) (double) (Double) v;
      if (!Float.isFinite(f)) {
        throw new BadRequest("inputs[" + r + "][" + k + "] is " + v + ", not a finite f32");
      }
      x[r * Model.IN + k] = f;
    }
  }

  /** From now on every exchange is answered 503 without reaching Tessera. */
  void beginStopping() {
    stopping = true;
  }

  /** Waits up to {@code seconds} for every handler in flight to finish. */
  void awaitIdle(long seconds) throws InterruptedException {
    long deadline = System.nanoTime() + seconds * 1_000_000_000L;
    while (inFlight.get() > 0 && System.nanoTime() < deadline) Thread.sleep(5);
  }

  /** Frees the pooled requests (before the server is destroyed). */
  void close() {
    for (ServeRequest r; (r = pool.poll()) != null; ) r.close();
  }
}
