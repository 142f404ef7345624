package ax.e2e;

import ax.testing.TestPostgres;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The SSRF row of the fault matrix with a canary: an HTTP server on 127.0.0.1 that no call may ever reach.
 * The node allows exactly the host {@code 127.0.0.1} (AxCluster's allow-list), so the canary is reachable
 * only by spellings of loopback that are not that exact host — decimal, hex, octal and short IPv4,
 * IPv6 loopback and IPv4-mapped, {@code localhost} — and through a redirect from an allowed target. Every
 * spelling must be refused at submission, for {@code callback_url} and {@code notify_url} alike, the
 * metadata and private addresses too; an allowed target answering 302 to the canary must not be followed
 * (the call is a failure), nor a webhook receiver's 302. Figure: canary hits 0.
 */
class SsrfIT {
  @Test
  void noSpellingOfLoopbackAndNoRedirectReachesTheCanary() throws Exception {
    Vertx vertx = Vertx.vertx();
    AtomicInteger canaryHits = new AtomicInteger();
    HttpServer canary = vertx.createHttpServer().requestHandler(req -> {
      canaryHits.incrementAndGet();
      req.response().end("{\"canary\":true}");
    }).listen(0, "127.0.0.1").await(10, TimeUnit.SECONDS);
    int p = canary.actualPort();
    AtomicInteger redirectsServed = new AtomicInteger();
    HttpServer redirector = vertx.createHttpServer().requestHandler(req -> {
      redirectsServed.incrementAndGet();
      req.response().setStatusCode(302).putHeader("Location", "http://127.0.0.1:" + p + "/stolen").end();
    }).listen(0, "127.0.0.1").await(10, TimeUnit.SECONDS);
    String allowedRedirect = "http://127.0.0.1:" + redirector.actualPort() + "/moved";
    try (TestPostgres pg = TestPostgres.create(); AxCluster ax = AxCluster.start(pg, 1, Map.of())) {
      ApiClient api = ax.api(0);
      List<String> spellings = List.of(
          "http://2130706433:" + p + "/", "http://0x7f000001:" + p + "/", "http://0177.0.0.1:" + p + "/",
          "http://127.1:" + p + "/", "http://127.0.0.01:" + p + "/", "http://[::1]:" + p + "/",
          "http://[::ffff:127.0.0.1]:" + p + "/", "http://[0:0:0:0:0:ffff:7f00:1]:" + p + "/",
          "http://localhost:" + p + "/", "http://LOCALHOST.:" + p + "/", "http://0.0.0.0:" + p + "/",
          "http://169.254.169.254/latest/meta-data/", "http://[fd00:ec2::254]/", "http://10.0.0.1/",
          "http://192.168.0.1/", "http://172.16.0.1/", "http://100.64.0.1/", "http://metadata.google.internal/");
      int accepted = 0;
      List<String> acceptedUrls = new ArrayList<>();
      for (String url : spellings) {
        for (String field : List.of("callback_url", "notify_url")) {
          JsonObject task = new JsonObject().put("task_type", "it.ssrf").put("dedupe", false).put("delay_ms", 100)
              .put("max_retry", 0).put("callback_url", field.equals("callback_url") ? url : allowedRedirect);
          if (field.equals("notify_url")) {
            task.put("notify_url", url);
          }
          ApiClient.Reply r = api.submit(task);
          if (r.status() / 100 == 2) {
            accepted++;
            acceptedUrls.add(field + "=" + url);
          }
        }
      }
      // allowed targets that redirect to the canary: the call and the webhook must not follow
      List<String> redirected = new ArrayList<>();
      for (int i = 0; i < 5; i++) {
        ApiClient.Reply r = api.submit(new JsonObject().put("task_type", "it.ssrf.redirect").put("dedupe", false)
            .put("delay_ms", 100).put("max_retry", 0).put("callback_url", allowedRedirect)
            .put("notify_url", allowedRedirect));
        assertEquals(201, r.status(), r.raw().body());
        redirected.add(r.body().getString("task_id"));
      }
      String ids = String.join(",", redirected);
      ax.awaitCount("SELECT count(*) FROM task_notifications WHERE task_id IN (" + ids + ") AND state <> 'PENDING'",
          redirected.size(), 60_000);
      Thread.sleep(1_000); // anything that followed a redirect would have arrived by now
      int failedCalls = ax.count("SELECT count(*) FROM tasks WHERE task_id IN (" + ids + ") AND status = 'FAILED'");
      FaultRow.record("ssrf", Map.of("canary_hits", canaryHits.get(), "ssrf_accepted", accepted,
              "addresses_tried", spellings.size() * 2, "redirects_served", redirectsServed.get(),
              "redirected_calls_failed", failedCalls),
          spellings.size() + " spellings of loopback, metadata and private addresses as callback_url and notify_url: "
              + (spellings.size() * 2 - accepted) + " of " + spellings.size() * 2 + " refused at submission; allowed "
              + "targets answering 302 to the canary: not followed (calls FAILED, webhooks not delivered)");
      assertEquals(List.of(), acceptedUrls, "accepted at submission");
      assertEquals(0, canaryHits.get(), "the canary was reached");
      assertTrue(redirectsServed.get() >= redirected.size() * 2, "every call and webhook reached the redirector: "
          + redirectsServed.get());
      assertEquals(redirected.size(), failedCalls, "a 302 is a failed call, not followed");
    } finally {
      vertx.close().await(10, TimeUnit.SECONDS);
    }
  }
}
