package ax.redis;

import io.vertx.core.Future;
import io.vertx.redis.client.RedisAPI;
import io.vertx.redis.client.Response;

import java.util.ArrayList;
import java.util.List;

/**
 * A Lua script run atomically in Redis by its SHA, loaded on first use and loaded again when Redis has
 * forgotten it (a restart or {@code SCRIPT FLUSH} answers {@code NOSCRIPT}).
 */
public final class RedisScript {
  private final RedisAPI redis;
  private final String source;
  private volatile String sha;

  public RedisScript(RedisAPI redis, String source) {
    this.redis = redis;
    this.source = source;
  }

  /** Runs the script with {@code keys} and {@code args}. */
  public Future<Response> run(List<String> keys, List<String> args) {
    List<String> call = new ArrayList<>(keys.size() + args.size() + 1);
    call.add(Integer.toString(keys.size()));
    call.addAll(keys);
    call.addAll(args);
    String known = sha;
    if (known == null) {
      return load().compose(s -> redis.evalsha(withSha(s, call)));
    }
    return redis.evalsha(withSha(known, call)).recover(e -> e.getMessage() != null && e.getMessage().startsWith("NOSCRIPT")
        ? load().compose(s -> redis.evalsha(withSha(s, call)))
        : Future.failedFuture(e));
  }

  private Future<String> load() {
    return redis.script(List.of("LOAD", source)).map(r -> {
      sha = r.toString();
      return sha;
    });
  }

  private static List<String> withSha(String sha, List<String> call) {
    List<String> all = new ArrayList<>(call.size() + 1);
    all.add(sha);
    all.addAll(call);
    return all;
  }
}
