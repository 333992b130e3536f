package org.tessera.examples.service;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.tessera.InitOptions;
import org.tessera.Placement;
import org.tessera.Plan;
import org.tessera.ServePlanOptions;
import org.tessera.Server;
import org.tessera.Tessera;
import org.tessera.TesseraException;
import sun.misc.Signal;

/**
 * The example service (docs/serving.md): {@code mpirun -np N service --port P}.
 * Every rank initialises Tessera, compiles the model, creates the server and adds the
 * plan; rank 0 (the driver) then serves HTTP until SIGTERM or SIGINT, the other ranks
 * follow until the driver stops the server. Every rank exits 0.
 */
public final class Main {
  /** Request-handling threads of the driver's HTTP server. */
  private static final int HTTP_THREADS = 64;
  /** How long a stopping driver waits for in-flight handlers. */
  private static final long DRAIN_SECONDS = 20;

  private Main() {}

  public static void main(String[] args) throws IOException, InterruptedException {
    Flags flags;
    try {
      flags = Flags.parse(args);
    } catch (Flags.Bad e) {
      System.err.println("service: " + e.getMessage());
      System.err.println(Flags.USAGE);
      System.exit(2);
      return;
    }
    // TERM and INT: the driver stops gracefully; followers ignore them (the driver
    // releases them, and mpirun forwards signals to every rank).
    CountDownLatch stopSignal = new CountDownLatch(1);
    for (String name : new String[] {"TERM", "INT"}) {
      Signal.handle(new Signal(name), sig -> stopSignal.countDown());
    }

    // Whatever happens below, the process exits (the HTTP server's threads would keep
    // the JVM alive after an exception): 0 after a clean stop, 1 after an error (a lost
    // rank makes follow() or the bounded shutdown fail, say).
    int status = 0;
    try {
      Tessera.init(InitOptions.builder().collectiveTimeoutSeconds(flags.timeoutSeconds).build());
      int ranks = Tessera.worldSize();
      try (Placement placement = Model.placement(ranks);
          Plan plan = Model.compile(flags.seed, placement);
          Server server = Server.create()) {
        int planId = server.addPlan(plan, ServePlanOptions.builder().batching(flags.batching)
            .maxBatchRows(flags.maxBatchRows).maxQueueDelayUs(flags.maxQueueDelayUs).build());
        if (server.isDriver()) {
          drive(server, planId, new Service(server, planId, flags, ranks, placement.toString()),
              flags, stopSignal);
        } else {
          server.follow();
        }
      }
    } catch (TesseraException e) {
      System.err.println("service: " + e.getMessage());
      status = 1;
    } finally {
      try {
        Tessera.shutdown();
      } catch (TesseraException e) {
        System.err.println("service: " + e.getMessage());
        status = 1;
      }
    }
    System.exit(status);
  }

  /** Serves HTTP until a stop signal; then drains, stops the server and returns. */
  private static void drive(Server server, int planId, Service service, Flags flags,
      CountDownLatch stopSignal) throws InterruptedException {
    // The JDK server writes a response's headers and body separately; with Nagle's
    // algorithm on, the body then waits for the client's delayed ACK (about 40 ms a
    // request). The property must be set before the first HttpServer is created.
    System.setProperty("sun.net.httpserver.nodelay", "true");
    HttpServer http;
    try {
      http = HttpServer.create(new InetSocketAddress(flags.host, flags.port), 128);
    } catch (IOException | RuntimeException e) {
      System.err.println("service: cannot listen on " + flags.host + ":" + flags.port + ": " + e);
      server.stop();  // releases the followers
      service.close();
      server.close();
      Tessera.shutdown();
      System.exit(1);
      return;
    }
    ExecutorService executor = Executors.newFixedThreadPool(HTTP_THREADS);
    http.setExecutor(executor);
    http.createContext("/", service);
    http.start();
    System.out.println("tessera-service listening port=" + http.getAddress().getPort() + " pid="
        + ProcessHandle.current().pid() + " ranks=" + Tessera.worldSize());
    System.out.flush();

    stopSignal.await();
    // From here every new exchange is answered 503 without reaching Tessera; the
    // listener closes at once (HttpServer.stop, on a thread of its own: with nothing in
    // flight it would wait out its whole delay), and the handlers in flight finish (their
    // Tessera requests are answered). Then the server stops and the process exits, which
    // closes what connections remain.
    service.beginStopping();
    Thread closer = new Thread(() -> http.stop((int) DRAIN_SECONDS), "http-stop");
    closer.setDaemon(true);
    closer.start();
    service.awaitIdle(DRAIN_SECONDS);
    server.stop();  // answers anything still queued and releases the followers
    service.close();
  }
}
