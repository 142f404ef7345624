package ax.api;

/** Who sent an authenticated request: the access key and the tenant it belongs to. */
public record ApiPrincipal(String accessKey, String tenantId) {
  /** RoutingContext data key under which the auth handler leaves the principal. */
  public static final String CONTEXT_KEY = "ax.principal";
}
