package ax.alert;

import java.time.Instant;
import java.util.Locale;
import java.util.StringJoiner;

/**
 * The body posted to {@code AX_ALERT_WEBHOOK_URL} ({@code AX_ALERT_FORMAT}, API.md "Alerts and tracing").
 * The three chat formats carry one text; {@code json} a structured object for machines.
 */
public enum AlertFormat {
  /** Slack incoming webhooks (and the many that accept Slack's shape: Mattermost, Rocket.Chat, Teams' connector). */
  SLACK,
  /** Feishu / Lark custom bot. */
  FEISHU,
  /** DingTalk custom robot. */
  DINGTALK,
  /** {@code {"rule","severity","status","summary","labels","value","started_at","resolved_at"}}. */
  JSON;

  /** The setting's value: {@code slack}, {@code feishu}, {@code dingtalk} or {@code json}. */
  public static AlertFormat parse(String text) {
    for (AlertFormat f : values()) {
      if (f.name().equalsIgnoreCase(text.trim())) {
        return f;
      }
    }
    throw new IllegalArgumentException("expected slack, feishu, dingtalk or json");
  }

  public String wire() {
    return name().toLowerCase(Locale.ROOT);
  }

  public String render(AlertNotice n) {
    return switch (this) {
      case SLACK -> "{\"text\":" + Json.string(text(n)) + "}";
      case FEISHU -> "{\"msg_type\":\"text\",\"content\":{\"text\":" + Json.string(text(n)) + "}}";
      case DINGTALK -> "{\"msgtype\":\"text\",\"text\":{\"content\":" + Json.string(text(n)) + "}}";
      case JSON -> "{\"rule\":" + Json.string(n.rule())
          + ",\"severity\":" + Json.string(n.severity().name())
          + ",\"status\":" + Json.string(n.status().wire())
          + ",\"summary\":" + Json.string(n.summary())
          + ",\"labels\":" + Json.object(n.sortedLabels())
          + ",\"value\":" + Json.number(n.value())
          + ",\"started_at\":" + Json.string(Instant.ofEpochMilli(n.startedAtMs()).toString())
          + ",\"resolved_at\":" + (n.resolvedAtMs() == null ? "null"
              : Json.string(Instant.ofEpochMilli(n.resolvedAtMs()).toString()))
          + "}";
    };
  }

  /**
   * The chat text: {@code [FIRING P2] AxExecuteFailureRateHigh: <summary>}, the labels, and the times.
   * A person reading a phone sees the state, the urgency and what is wrong in the first line.
   */
  static String text(AlertNotice n) {
    StringBuilder b = new StringBuilder()
        .append('[').append(n.status().name()).append(' ').append(n.severity().name()).append("] ")
        .append(n.rule()).append(": ").append(n.summary());
    if (!n.labels().isEmpty()) {
      StringJoiner labels = new StringJoiner(", ", "\nlabels: ", "");
      n.sortedLabels().forEach((k, v) -> labels.add(k + "=" + v));
      b.append(labels);
    }
    b.append("\nstarted: ").append(Instant.ofEpochMilli(n.startedAtMs()));
    if (n.resolvedAtMs() != null) {
      b.append("\nresolved: ").append(Instant.ofEpochMilli(n.resolvedAtMs()));
    }
    return b.toString();
  }
}
