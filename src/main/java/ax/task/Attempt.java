package ax.task;

/** One attempt of a task: what an executor must report against and what every in-flight write is fenced by. */
public record Attempt(long taskId, int attempt) {
}
