package ax.schedule;

import com.cronutils.model.Cron;
import com.cronutils.model.CronType;
import com.cronutils.model.definition.CronDefinitionBuilder;
import com.cronutils.model.time.ExecutionTime;
import com.cronutils.parser.CronParser;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.util.Optional;

/**
 * A cron expression in a time zone (API.md "Recurring schedules"): 5 fields, minute first (Unix), or
 * 6 fields, seconds first (Spring's form, with {@code L}, {@code W} and {@code #}). Parsing and matching
 * are cron-utils'; this class only decides how wall-clock matches become instants.
 *
 * <h2>The rule for daylight-saving transitions</h2>
 * Cron fields describe wall-clock times in {@code zone}. Each matching wall-clock time fires at most
 * once:
 * <ul>
 *   <li><b>A time that does not exist</b> (spring forward: 02:30 on the last Sunday of March in
 *       Europe/Berlin) fires later by the length of the gap — 03:30 CEST — as {@code java.time} maps it.
 *       If that instant is also a match of its own (every 15 min: 02:15 → 03:15), the two are one
 *       occurrence.</li>
 *   <li><b>A time that happens twice</b> (fall back: 02:30 on the last Sunday of October in Berlin)
 *       fires once, at its first occurrence (the earlier offset, 02:30 CEST). During the repeated hour,
 *       a schedule that fires every few minutes is therefore silent for one hour of real time; use
 *       {@code every_ms}, or {@code time_zone: UTC}, where real-time spacing matters.</li>
 * </ul>
 * Fire times are strictly increasing: the next fire time after an instant is always later than it.
 *
 * <p>Pure: no clock, no I/O; thread-safe once built.
 */
public final class CronRule {
  /** More than any real expression needs between two matches; a bound on a pathological one. */
  private static final int MAX_STEPS = 10_000;

  private static final CronParser UNIX = new CronParser(CronDefinitionBuilder.instanceDefinitionFor(CronType.UNIX));
  private static final CronParser SECONDS_FIRST =
      new CronParser(CronDefinitionBuilder.instanceDefinitionFor(CronType.SPRING53));

  private final String expression;
  private final ZoneId zone;
  private final ExecutionTime wallClock;

  private CronRule(String expression, ZoneId zone, ExecutionTime wallClock) {
    this.expression = expression;
    this.zone = zone;
    this.wallClock = wallClock;
  }

  /**
   * @throws IllegalArgumentException naming what is wrong: the field count, or the field cron-utils
   *                                  refused
   */
  public static CronRule parse(String expression, ZoneId zone) {
    if (expression == null || expression.isBlank()) {
      throw new IllegalArgumentException("cron: must not be empty");
    }
    if (zone == null) {
      throw new IllegalArgumentException("time_zone: must not be empty");
    }
    String trimmed = expression.trim().replaceAll("\\s+", " ");
    int fields = trimmed.split(" ").length;
    CronParser parser;
    if (fields == 5) {
      parser = UNIX;
    } else if (fields == 6) {
      parser = SECONDS_FIRST;
    } else {
      throw new IllegalArgumentException("cron: needs 5 fields (minute first) or 6 (seconds first), has " + fields);
    }
    Cron cron;
    try {
      cron = parser.parse(trimmed);
      cron.validate();
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("cron: " + e.getMessage(), e);
    }
    CronRule rule = new CronRule(trimmed, zone, ExecutionTime.forCron(cron));
    if (rule.nextLocal(LocalDateTime.of(2000, 1, 1, 0, 0)).isEmpty()) {
      throw new IllegalArgumentException("cron: '" + trimmed + "' never fires");
    }
    return rule;
  }

  public String expression() {
    return expression;
  }

  public ZoneId zone() {
    return zone;
  }

  /** The first fire time strictly after {@code after}, or empty if the expression never fires again. */
  public Optional<Instant> nextAfter(Instant after) {
    LocalDateTime local = LocalDateTime.ofInstant(after, zone);
    for (int step = 0; step < MAX_STEPS; step++) {
      Optional<LocalDateTime> match = nextLocal(local);
      if (match.isEmpty()) {
        return Optional.empty();
      }
      // Earlier offset for a repeated time, shifted by the gap for a missing one (class comment).
      Instant fire = ZonedDateTime.ofLocal(match.get(), zone, null).toInstant();
      if (fire.isAfter(after)) {
        return Optional.of(fire);
      }
      // In the second pass of a repeated hour, or a gap time mapped onto one already passed: go on.
      local = match.get();
    }
    return Optional.empty();
  }

  /**
   * The next wall-clock match after {@code local}: cron-utils over a zone without transitions. Cron
   * matches whole seconds, but cron-utils carries the fraction of its input into the answer when the
   * seconds field is {@code *} (after 12.261 it answered 13.261), so the input is cut to its second.
   */
  private Optional<LocalDateTime> nextLocal(LocalDateTime local) {
    return wallClock.nextExecution(local.truncatedTo(ChronoUnit.SECONDS).atZone(ZoneOffset.UTC))
        .map(z -> z.toLocalDateTime().truncatedTo(ChronoUnit.SECONDS));
  }

  /** This rule as a {@link Recurrence}. */
  public Recurrence asRecurrence() {
    return new AsRecurrence(this);
  }

  /** The {@link Recurrence} view of a cron rule. */
  public record AsRecurrence(CronRule rule) implements Recurrence {
    @Override
    public Optional<Instant> nextAfter(Instant after) {
      return rule.nextAfter(after);
    }
  }

  @Override
  public String toString() {
    return "cron '" + expression + "' in " + zone;
  }
}
