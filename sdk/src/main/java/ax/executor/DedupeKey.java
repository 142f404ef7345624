package ax.executor;

/** One execution the scheduler may send more than once: an attempt of a task (of one shard). */
record DedupeKey(String taskId, int attempt, int shardIndex) {
  public DedupeKey {
    if (taskId == null) {
      throw new IllegalArgumentException("taskId is null");
    }
  }
}
