package ax.api;

/** A request that breaks a rule; carries the {@link Problem} to answer with, naming the field. */
public final class InvalidRequest extends Exception {
  private final transient Problem problem;

  public InvalidRequest(Problem problem) {
    super(problem.detail(), null, false, false);
    this.problem = problem;
  }

  /**
   * A refusal naming {@code field} (a member, or a path such as {@code tasks.3.payload.a}). The name
   * comes from the request: control characters and unpaired surrogates in it are shown as '?', and it
   * is cut at 100 characters, so a refusal never echoes back what a log or a terminal would act on.
   */
  public static InvalidRequest field(String field, String why) {
    return new InvalidRequest(Problem.validation(printable(field) + ": " + why));
  }

  private static String printable(String name) {
    StringBuilder b = new StringBuilder(Math.min(name.length(), 101));
    for (int i = 0; i < name.length() && b.length() < 100; i++) {
      char c = name.charAt(i);
      if (Character.isHighSurrogate(c) && i + 1 < name.length() && Character.isLowSurrogate(name.charAt(i + 1))) {
        b.append(c).append(name.charAt(++i));
      } else {
        b.append(Character.isISOControl(c) || Character.isSurrogate(c) ? '?' : c);
      }
    }
    return name.length() > b.length() ? b.append('…').toString() : b.toString();
  }

  public Problem problem() {
    return problem;
  }
}
