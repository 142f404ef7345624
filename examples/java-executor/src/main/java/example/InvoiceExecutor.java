package example;

import ax.executor.AxExecutor;
import ax.executor.Pool;
import ax.executor.TaskContext;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.math.BigDecimal;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * An executor a billing team might run next to its own services: it serves two processors and nothing
 * else, and knows ax only through the SDK.
 *
 * <ul>
 *   <li>{@code invoice.total} adds up {@code payload.lines[].{price, qty}} (decimal strings or numbers)
 *       and answers {@code {"invoice", "currency", "lines", "total"}}; a malformed invoice fails the task
 *       with a message saying what is wrong, and ax's retry policy takes it from there;</li>
 *   <li>{@code invoice.archive} stands for slow work and is pinned to the slow pool, so it can never
 *       hold up the totals.</li>
 * </ul>
 *
 * Configured from the environment: {@code AX_SERVERS} (bridge endpoints, {@code host:port,…}) and
 * {@code AX_EXECUTOR_TOKEN} (from {@code java -jar ax.jar executor-token --executor-id ID}); the executor
 * id is the token's subject. On SIGTERM it drains: no new work, running tasks finish, every result is
 * reported, then it exits.
 */
public final class InvoiceExecutor {
  private InvoiceExecutor() {
  }

  public static void main(String[] args) throws InterruptedException {
    String servers = System.getenv().getOrDefault("AX_SERVERS", "127.0.0.1:7000");
    String token = System.getenv("AX_EXECUTOR_TOKEN");
    if (token == null || token.isBlank()) {
      System.err.println("set AX_EXECUTOR_TOKEN (java -jar ax.jar executor-token --executor-id ID)");
      System.exit(2);
    }
    AxExecutor executor = AxExecutor.builder()
        .servers(servers)
        .token(token)
        .handler("invoice.total", InvoiceExecutor::total)
        .handler("invoice.archive", Pool.SLOW, InvoiceExecutor::archive)
        .build();

    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      try {
        System.out.println(executor.drain().get(40, TimeUnit.SECONDS).line());
      } catch (Exception e) {
        System.out.println("drain failed: " + e);
      }
      stopped.countDown();
    }, "invoice-executor-drain"));

    executor.start().join();
    System.out.println("invoice executor " + executor.executorId() + " registered with " + servers);
    stopped.await();
  }

  /** Sums the invoice lines; exact decimal arithmetic, as money wants. */
  static JsonObject total(TaskContext ctx) {
    JsonObject invoice = ctx.payloadObject();
    JsonArray lines = invoice.getValue("lines") instanceof JsonArray a ? a : null;
    if (lines == null || lines.isEmpty()) {
      throw new IllegalArgumentException("payload.lines must be a non-empty array");
    }
    BigDecimal total = BigDecimal.ZERO;
    for (int i = 0; i < lines.size(); i++) {
      if (!(lines.getValue(i) instanceof JsonObject line)) {
        throw new IllegalArgumentException("payload.lines[" + i + "] must be an object");
      }
      total = total.add(decimal(line, "price", i).multiply(decimal(line, "qty", i)));
    }
    return new JsonObject()
        .put("invoice", invoice.getValue("invoice"))
        .put("currency", invoice.getString("currency", "EUR"))
        .put("lines", lines.size())
        .put("total", total.toPlainString());
  }

  /** Pretends to write the invoice to cold storage (payload.ms, default 200 ms). */
  static JsonObject archive(TaskContext ctx) throws InterruptedException {
    Object ms = ctx.payloadObject().getValue("ms");
    Thread.sleep(ms instanceof Number n ? Math.max(0, Math.min(n.longValue(), 60_000)) : 200);
    return new JsonObject().put("archived", ctx.payloadObject().getValue("invoice"));
  }

  private static BigDecimal decimal(JsonObject line, String field, int index) {
    Object v = line.getValue(field);
    try {
      if (v instanceof Number || v instanceof String) {
        return new BigDecimal(v.toString());
      }
    } catch (NumberFormatException e) {
      // fall through to the message below
    }
    throw new IllegalArgumentException("payload.lines[" + index + "]." + field + " must be a decimal number");
  }
}
