package ax.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;

/**
 * {@code webhooks}: how fast a backlog of webhooks drains — the deliverer's own ceiling, apart from how
 * fast tasks finish (the {@code --notify} runs are bounded by task completion). N finished tasks with a
 * {@code notify_url} are stored in one statement, so V11's insert trigger queues N notifications at the
 * commit; the node's leader delivers them to the bench's {@code /notify}. Reported: the time from the
 * commit to the last webhook, the rate, repeats and signatures, and the scheduler's CPU per webhook.
 * Rounds of warm-up first (same N), reported apart.
 */
final class WebhookDrain {
  /** Task ids of the rows this scenario stores itself (far above any id ax makes; apart from memory's). */
  static final long ID_BASE = 8_200_000_000_000_000_000L;

  private static final String INSERT = """
      INSERT INTO tasks (task_id, tenant_id, api_key, task_type, trigger_time, next_trigger_time, status,
                         callback_url, notify_url, payload, result, created_at, updated_at, started_at,
                         finished_at, attempt)
      SELECT ? + i, 'bench', ?, 'bench.webhook', now(), now(), 'SUCCESS', ?, ?, jsonb_build_object('n', i),
             '{"ok":true}'::jsonb, now(), now(), now(), now(), 1
        FROM generate_series(1, ?) AS i""";

  private final Harness h;

  WebhookDrain(Harness h) {
    this.h = h;
  }

  void run(int n, int warmups, long timeoutMs) throws Exception {
    String notifyUrl = h.receiver.notifyUrl();
    long base = ID_BASE;
    for (int i = 0; i < warmups; i++) {
      round("warm-up " + (i + 1), base, n, notifyUrl, timeoutMs);
      base += n;
    }
    round("measured", base, n, notifyUrl, timeoutMs);
  }

  private void round(String label, long base, int n, String notifyUrl, long timeoutMs) throws Exception {
    Report r = h.report;
    r.section("webhooks " + label);
    Notifications notes = h.receiver.notifications;
    notes.reset();
    double cpu0 = h.server.cpuSeconds();
    long committedAt;
    try (Connection c = h.db.connect(); PreparedStatement ps = c.prepareStatement(INSERT)) {
      ps.setLong(1, base);
      ps.setString(2, Harness.ACCESS_KEY);
      ps.setString(3, h.callbackUrl);
      ps.setString(4, notifyUrl);
      ps.setInt(5, n);
      long t = System.currentTimeMillis();
      ps.executeUpdate();
      committedAt = System.currentTimeMillis();
      r.result("backlog", n + " notifications queued in one statement (" + (committedAt - t) + " ms)");
    }
    long deadline = committedAt + timeoutMs;
    while (notes.distinct() < n && System.currentTimeMillis() < deadline) {
      Thread.sleep(20);
    }
    long drainedAt = System.currentTimeMillis();
    double cpu = h.server.cpuSeconds() - cpu0;
    int got = notes.distinct();
    double seconds = Math.max(0.001, (drainedAt - committedAt) / 1000.0);
    r.result("drain", got + " of " + n + " delivered " + Report.fmt(seconds, 2) + " s after the commit = "
        + Report.fmt(got / seconds, 0) + " webhooks/s");
    r.result("deliveries", notes.summary());
    r.result("scheduler CPU", Report.fmt(cpu, 1) + " s = " + Report.fmt(cpu * 1e6 / Math.max(1, got), 0)
        + " µs per webhook");
    if (got < n) {
      r.fail(label + ": " + (n - got) + " webhooks not delivered within " + timeoutMs / 1000 + " s");
    }
  }
}
