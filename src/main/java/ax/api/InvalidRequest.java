package ax.api;

/** A request that breaks a rule; carries the {@link Problem} to answer with, naming the field. */
public final class InvalidRequest extends Exception {
  private final transient Problem problem;

  public InvalidRequest(Problem problem) {
    super(problem.detail(), null, false, false);
    this.problem = problem;
  }

  public static InvalidRequest field(String field, String why) {
    return new InvalidRequest(Problem.validation(field + ": " + why));
  }

  public Problem problem() {
    return problem;
  }
}
