package ax.tools;

import ax.admin.AdminTokens;
import ax.admin.KeyMaterial;
import ax.api.AdminJson;
import ax.config.AxConfig;
import ax.config.ConfigException;
import ax.ratelimit.RateLimitSpec;
import ax.store.AdminStore;
import ax.store.AdminStore.Actor;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.Function;

/**
 * Administration from the command line ({@code ax tenants …}, {@code ax keys …}, {@code ax admin-token}):
 * the same operations as {@code /admin/v1}, straight against PostgreSQL (AX_PG_URL, schema brought up to
 * date first), so an operator can create the first key before any node runs. Each change writes its
 * audit row ({@code cli:<OS user>}) and is announced to the running nodes by PostgreSQL in the same
 * statement, so they act on it within a second. Output is the admin API's JSON, one document per run.
 * Secrets are sealed with AX_MASTER_KEY; creating or rotating a key without one is refused.
 */
final class AdminCommands {
  private AdminCommands() {
  }

  static CommandLine tenants(Map<String, String> env) {
    return new CommandLine(new Group("create or list"))
        .addSubcommand(new TenantsCreate(env)).addSubcommand(new TenantsList(env));
  }

  static CommandLine keys(Map<String, String> env) {
    return new CommandLine(new Group("create, list, rotate, disable, enable or delete"))
        .addSubcommand(new KeysCreate(env)).addSubcommand(new KeysList(env)).addSubcommand(new KeysRotate(env))
        .addSubcommand("disable", state(env, "disable", "Refuses a key's requests (every node within 1 s); its tasks still run."))
        .addSubcommand("enable", state(env, "enable", "Accepts a disabled key's requests again."))
        .addSubcommand("delete", state(env, "delete", "Deletes a key for good: refused, no longer listed."));
  }

  private static CommandLine state(Map<String, String> env, String action, String description) {
    CommandLine cl = new CommandLine(new KeysState(env, action));
    cl.getCommandSpec().usageMessage().description(description);
    return cl;
  }

  /** {@code ax keys} / {@code ax tenants} without an action: the usage, exit 2. */
  @Command(mixinStandardHelpOptions = true, versionProvider = AxVersion.class)
  static final class Group implements Callable<Integer> {
    private final String problem;
    @Spec
    CommandSpec spec;

    Group(String problem) {
      this.problem = problem;
    }

    @Override
    public Integer call() {
      spec.commandLine().getErr().println(spec.qualifiedName() + ": an action is required (" + problem + ")");
      spec.commandLine().usage(spec.commandLine().getErr());
      return spec.exitCodeOnInvalidInput();
    }
  }

  /** What every action shares: the environment, the database, printing one JSON document. */
  abstract static class Action implements Callable<Integer> {
    @Spec
    CommandSpec spec;
    final Map<String, String> env;

    Action(Map<String, String> env) {
      this.env = env;
    }

    /** Whether the action writes a secret, and so needs AX_MASTER_KEY. */
    boolean writesSecret() {
      return false;
    }

    /** Checks the options before anything connects; throws {@link CommandLine.ParameterException}. */
    void validate() {
    }

    /** The JSON to print, or a String saying why nothing was done (exit 1). */
    abstract Future<Object> run(AdminStore store, Actor actor);

    @Override
    public Integer call() {
      validate();
      PrintWriter err = spec.commandLine().getErr();
      String url = env.get("AX_PG_URL");
      if (url == null || url.isBlank()) {
        err.println(spec.qualifiedName() + ": AX_PG_URL is required, e.g. AX_PG_URL=postgresql://postgres@127.0.0.1:5432/ax");
        return spec.exitCodeOnInvalidInput();
      }
      AxConfig.AdminSettings admin;
      try {
        admin = AxConfig.admin(env);
      } catch (ConfigException e) {
        err.println(spec.qualifiedName() + ": configuration error: " + e.getMessage());
        return spec.exitCodeOnInvalidInput();
      }
      if (writesSecret() && admin.sealer() == null) {
        err.println(spec.qualifiedName() + ": AX_MASTER_KEY is required: secrets are stored encrypted with it "
            + "(the nodes need the same value); make one with: openssl rand -base64 32");
        return spec.exitCodeOnInvalidInput();
      }
      Vertx vertx = Vertx.vertx();
      try (AdminStore store = AdminStore.standalone(vertx, url, admin.sealer())) {
        Object out = run(store, new Actor("cli:" + System.getProperty("user.name", "unknown"), null)).await();
        if (out instanceof String problem) {
          err.println(spec.qualifiedName() + ": " + problem);
          return 1;
        }
        PrintWriter o = spec.commandLine().getOut();
        o.println(out instanceof JsonObject j ? j.encodePrettily() : ((JsonArray) out).encodePrettily());
        o.flush();
        return 0;
      } catch (RuntimeException e) {
        err.println(spec.qualifiedName() + ": " + e.getMessage());
        return 1;
      } finally {
        vertx.close().await();
      }
    }
  }

  @Command(name = "create", mixinStandardHelpOptions = true, versionProvider = AxVersion.class,
      description = "Creates a tenant.")
  static final class TenantsCreate extends Action {
    @Option(names = "--tenant", required = true, paramLabel = "ID", description = "1-64 of [A-Za-z0-9._:-]")
    String tenantId;
    @Option(names = "--name", paramLabel = "NAME", description = "a display name (default: the id)")
    String name;

    TenantsCreate(Map<String, String> env) {
      super(env);
    }

    @Override
    void validate() {
      requireTenantId(spec, tenantId);
    }

    @Override
    Future<Object> run(AdminStore store, Actor actor) {
      return store.createTenant(tenantId, name == null ? tenantId : name, actor)
          .map(t -> t.<Object>map(AdminJson::tenant).orElse("a tenant " + tenantId + " exists already"));
    }
  }

  @Command(name = "list", mixinStandardHelpOptions = true, versionProvider = AxVersion.class,
      description = "Lists tenants.")
  static final class TenantsList extends Action {
    TenantsList(Map<String, String> env) {
      super(env);
    }

    @Override
    Future<Object> run(AdminStore store, Actor actor) {
      return store.tenants(1_000).map(ts -> array(ts, AdminJson::tenant));
    }
  }

  @Command(name = "create", mixinStandardHelpOptions = true, versionProvider = AxVersion.class,
      description = {"Creates an access key and prints its secret (shown this once).",
          "The tenant is created first if it does not exist."})
  static final class KeysCreate extends Action {
    @Option(names = "--tenant", required = true, paramLabel = "ID", description = "the tenant the key acts for")
    String tenantId;
    @Option(names = "--rate-limit", paramLabel = "RATE[/BURST]", description = "requests/s (default: AX_RATE_LIMIT)")
    String rateLimit;

    KeysCreate(Map<String, String> env) {
      super(env);
    }

    @Override
    boolean writesSecret() {
      return true;
    }

    @Override
    void validate() {
      requireTenantId(spec, tenantId);
      if (rateLimit != null) {
        try {
          RateLimitSpec.parse(rateLimit);
        } catch (IllegalArgumentException e) {
          throw new CommandLine.ParameterException(spec.commandLine(), "--rate-limit: " + e.getMessage());
        }
      }
    }

    @Override
    Future<Object> run(AdminStore store, Actor actor) {
      return store.createTenant(tenantId, tenantId, actor)
          .compose(created -> store.createKey(KeyMaterial.newAccessKey(), KeyMaterial.newSecret(), tenantId,
              rateLimit, actor))
          .map(AdminJson::created);
    }
  }

  @Command(name = "list", mixinStandardHelpOptions = true, versionProvider = AxVersion.class,
      description = "Lists access keys (never their secrets); deleted keys are not listed.")
  static final class KeysList extends Action {
    @Option(names = "--tenant", paramLabel = "ID", description = "only this tenant's keys")
    String tenantId;

    KeysList(Map<String, String> env) {
      super(env);
    }

    @Override
    Future<Object> run(AdminStore store, Actor actor) {
      return store.keys(tenantId, 1_000).map(ks -> array(ks, AdminJson::key));
    }
  }

  @Command(name = "rotate", mixinStandardHelpOptions = true, versionProvider = AxVersion.class,
      description = "Gives a key a new secret (printed once); the old one stays valid for the grace period.")
  static final class KeysRotate extends Action {
    @Parameters(index = "0", paramLabel = "ACCESS_KEY")
    String accessKey;
    @Option(names = "--grace-s", paramLabel = "SECONDS", defaultValue = "3600",
        description = "seconds the old secret stays valid, 0-604800 (default: ${DEFAULT-VALUE})")
    long graceSeconds;

    KeysRotate(Map<String, String> env) {
      super(env);
    }

    @Override
    boolean writesSecret() {
      return true;
    }

    @Override
    void validate() {
      if (graceSeconds < 0 || graceSeconds > 604_800) {
        throw new CommandLine.ParameterException(spec.commandLine(), "--grace-s must be between 0 and 604800");
      }
    }

    @Override
    Future<Object> run(AdminStore store, Actor actor) {
      return store.rotate(accessKey, KeyMaterial.newSecret(), graceSeconds, actor)
          .map(r -> r.<Object>map(AdminJson::rotated).orElse("no such access key: " + accessKey));
    }
  }

  /** disable, enable, delete: one key's state. */
  @Command(mixinStandardHelpOptions = true, versionProvider = AxVersion.class)
  static final class KeysState extends Action {
    private final String action;
    @Parameters(index = "0", paramLabel = "ACCESS_KEY")
    String accessKey;

    KeysState(Map<String, String> env, String action) {
      super(env);
      this.action = action;
    }

    @Override
    Future<Object> run(AdminStore store, Actor actor) {
      Future<Boolean> done = switch (action) {
        case "disable" -> store.disable(accessKey, actor);
        case "enable" -> store.enable(accessKey, actor);
        default -> store.delete(accessKey, actor);
      };
      return done.map(found -> found
          ? new JsonObject().put("access_key", accessKey).put("status", switch (action) {
            case "disable" -> "disabled";
            case "enable" -> "active";
            default -> "deleted";
          })
          : "no such access key: " + accessKey);
    }
  }

  /** {@code ax admin-token}: a token for /admin/v1, signed with AX_ADMIN_JWT_SECRET. */
  @Command(name = "admin-token", mixinStandardHelpOptions = true, versionProvider = AxVersion.class,
      description = "Prints an admin token (a JWT for /admin/v1) signed with AX_ADMIN_JWT_SECRET.")
  static final class AdminToken implements Callable<Integer> {
    @Option(names = "--subject", paramLabel = "WHO", defaultValue = "admin",
        description = "who acts with it, written into the audit record (default: ${DEFAULT-VALUE})")
    String subject;
    @Option(names = "--ttl-s", paramLabel = "SECONDS", defaultValue = "" + AdminTokens.DEFAULT_TTL_SECONDS,
        description = "seconds the token lives, 1-" + AdminTokens.MAX_TTL_SECONDS + " (default: ${DEFAULT-VALUE})")
    long ttlSeconds;
    @Spec
    CommandSpec spec;
    private final Map<String, String> env;

    AdminToken(Map<String, String> env) {
      this.env = env;
    }

    @Override
    public Integer call() {
      String secret = env.get(AdminTokens.SECRET_VARIABLE);
      try {
        AdminTokens.KIND.requireStrongSecret(secret);
      } catch (IllegalArgumentException e) {
        spec.commandLine().getErr().println("admin-token: " + e.getMessage());
        return spec.exitCodeOnInvalidInput();
      }
      Vertx vertx = Vertx.vertx();
      try {
        spec.commandLine().getOut().println(AdminTokens.KIND.mint(vertx, secret, subject, ttlSeconds));
        spec.commandLine().getOut().flush();
        return 0;
      } catch (IllegalArgumentException e) {
        throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
      } finally {
        vertx.close();
      }
    }
  }

  private static void requireTenantId(CommandSpec spec, String tenantId) {
    if (!tenantId.matches("[A-Za-z0-9._:-]{1,64}")) {
      throw new CommandLine.ParameterException(spec.commandLine(), "--tenant must be 1-64 of [A-Za-z0-9._:-]");
    }
  }

  private static <T> Object array(java.util.List<T> items, Function<T, JsonObject> json) {
    JsonArray out = new JsonArray();
    items.forEach(i -> out.add(json.apply(i)));
    return out;
  }

}
