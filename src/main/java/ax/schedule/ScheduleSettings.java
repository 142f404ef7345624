package ax.schedule;

/**
 * How the leader materialises occurrences.
 *
 * @param misfireThresholdMs an occurrence whose due time passed longer ago than this when it is created
 *                           has misfired and goes through the schedule's {@link MisfirePolicy}; a later
 *                           one is simply created late and fires at once
 * @param fireAllCap         at most this many missed occurrences are fired by {@link MisfirePolicy#FIRE_ALL}
 *                           in one catch-up; older ones are recorded as misfired
 * @param maxStepsPerPlan    at most this many due times are visited for one schedule in one planning
 *                           step (a cron schedule missed for months has millions); past it, the rest of
 *                           the missed interval is recorded as one misfired range (counted for a fixed
 *                           rate, uncounted for cron), and a catch-up fires from the times visited
 */
public record ScheduleSettings(long misfireThresholdMs, int fireAllCap, int maxStepsPerPlan) {
  public ScheduleSettings {
    if (misfireThresholdMs < 0) {
      throw new IllegalArgumentException("misfire threshold must not be negative, was " + misfireThresholdMs);
    }
    if (fireAllCap < 1 || maxStepsPerPlan < fireAllCap) {
      throw new IllegalArgumentException("need 1 ≤ fireAllCap ≤ maxStepsPerPlan, were " + fireAllCap + ", "
          + maxStepsPerPlan);
    }
  }

  public static ScheduleSettings defaults() {
    return new ScheduleSettings(5_000, 100, 10_000);
  }
}
