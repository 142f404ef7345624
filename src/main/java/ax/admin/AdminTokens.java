package ax.admin;

import ax.signing.Hs256Tokens;

/**
 * Admin tokens: HS256 JWTs, issuer {@code ax}, audience {@code ax-admin}, signed with
 * {@code AX_ADMIN_JWT_SECRET}. The subject names the operator and is written into the audit record of
 * every action taken with the token. Minted by {@code ax admin-token}; they live an hour unless told
 * otherwise, at most 30 days, so a leaked token dies on its own.
 */
public final class AdminTokens {
  public static final String AUDIENCE = "ax-admin";
  public static final String SECRET_VARIABLE = "AX_ADMIN_JWT_SECRET";
  public static final long DEFAULT_TTL_SECONDS = 3_600;
  public static final long MAX_TTL_SECONDS = 30L * 86_400;
  private static final String SUBJECT_PATTERN = "[A-Za-z0-9._@:-]{1,128}";

  public static final Hs256Tokens KIND = new Hs256Tokens(AUDIENCE, SECRET_VARIABLE, MAX_TTL_SECONDS,
      s -> s.matches(SUBJECT_PATTERN), "1-128 of [A-Za-z0-9._@:-] (who the operator is)");

  private AdminTokens() {
  }
}
