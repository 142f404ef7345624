package ax.api;

import io.vertx.core.http.HttpMethod;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.StaticHandler;

/**
 * Serves the web console: the plain HTML, CSS and ES modules under {@value #CLASSPATH_ROOT} in the jar,
 * at {@code /console/}. Nothing here is signed or secret — the page signs every API call itself, in the
 * browser, with the access key the user types in — so the root handlers let these GETs through
 * ({@code SigningPrecheck} checks only {@code /openapi/} paths; a GET carries no body).
 *
 * <p>Every answer carries a Content-Security-Policy that allows scripts, styles and connections from
 * this origin only: no inline script or style, no other origin, no framing. Files are sent with
 * {@code Cache-Control: no-cache} and a {@code Last-Modified}, so a browser revalidates (a 304, no
 * body) on every load and an upgraded node's console is never mixed with a cached older one; the files
 * have no content hash in their names that would make a long max-age safe.
 */
public final class ConsoleAssets {
  /** Where the files are on the classpath; a name no working directory is likely to hold (Vert.x looks there first). */
  static final String CLASSPATH_ROOT = "ax-console";
  /** The policy of every console answer. {@code connect-src 'self'}: the API, /health and /metrics of this node. */
  static final String CONTENT_SECURITY_POLICY = "default-src 'none'; script-src 'self'; style-src 'self'; "
      + "img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

  private ConsoleAssets() {
  }

  /** Adds {@code /console} (a redirect to {@code /console/}) and {@code /console/*} to {@code router}. */
  public static void mount(Router router) {
    router.route(HttpMethod.GET, "/console").handler(ctx -> {
      if (ctx.request().path().equals("/console")) { // the route also matches "/console/"
        ctx.redirect("/console/");
      } else {
        ctx.next();
      }
    });
    StaticHandler files = StaticHandler.create(CLASSPATH_ROOT).setIndexPage("index.html").setDirectoryListing(false)
        .setIncludeHidden(false).setCachingEnabled(true).setSendVaryHeader(false);
    router.route("/console/*").method(HttpMethod.GET).method(HttpMethod.HEAD).handler(ConsoleAssets::headers)
        .handler(files);
  }

  private static void headers(RoutingContext ctx) {
    ctx.response().headers()
        .set("Content-Security-Policy", CONTENT_SECURITY_POLICY)
        .set("X-Content-Type-Options", "nosniff")
        .set("Referrer-Policy", "no-referrer")
        .set("Cross-Origin-Opener-Policy", "same-origin");
    boolean indexPage = ctx.request().path().endsWith("/");
    ctx.addHeadersEndHandler(v -> {
      // StaticHandler sets its own max-age; replace it just before the headers leave
      ctx.response().headers().set("Cache-Control", "no-cache");
      if (indexPage && ctx.response().getStatusCode() == 200) {
        // StaticHandler types the index page by the requested path ("/console/"), as text/plain
        ctx.response().headers().set("Content-Type", "text/html;charset=UTF-8");
      }
    });
    ctx.next();
  }
}
