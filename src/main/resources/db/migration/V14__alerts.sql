-- Built-in alerting (issue 13 part 4). V13 is another branch's; Flyway applies versions in order and a
-- gap is allowed.
--
-- alert_state: one row per alert (rule, key) that ever fired. Its episode advances each time it starts
-- firing. Both transitions are conditional statements (start only what is not FIRING, end only what is),
-- each inserting its message into alert_notifications in the same statement, so whichever node judges
-- a rule (the leader; any node for "no leader") an episode starts once and ends once, and a new leader
-- reads what is firing instead of firing it again.
CREATE TABLE alert_state (
  rule        text             NOT NULL,
  key         text             NOT NULL,
  episode     int              NOT NULL,
  status      text             NOT NULL CHECK (status IN ('FIRING','RESOLVED')),
  severity    text             NOT NULL CHECK (severity IN ('P1','P2','P3')),
  summary     text             NOT NULL,
  labels      jsonb            NOT NULL DEFAULT '{}',
  value       double precision,
  started_at  timestamptz      NOT NULL,
  resolved_at timestamptz,
  CHECK ((status = 'RESOLVED') = (resolved_at IS NOT NULL)),
  PRIMARY KEY (rule, key)
);

-- The outbox of alert messages: one per (rule, key, episode, status), so a message cannot be queued
-- twice. Any node delivers (there may be no leader: that is one of the alerts): it claims rows for one
-- try (claimed_until), posts, and records the outcome. SUPPRESSED: over AX_ALERT_MAX_PER_MINUTE;
-- `reported` once a summary message has said so. Summaries are rows of their own (rule
-- 'AxAlertsSuppressed'), so the per-minute count sees them.
CREATE TABLE alert_notifications (
  rule            text             NOT NULL,
  key             text             NOT NULL,
  episode         int              NOT NULL,
  status          text             NOT NULL CHECK (status IN ('FIRING','RESOLVED')),
  severity        text             NOT NULL CHECK (severity IN ('P1','P2','P3')),
  summary         text             NOT NULL,
  labels          jsonb            NOT NULL DEFAULT '{}',
  value           double precision,
  started_at      timestamptz      NOT NULL,
  resolved_at     timestamptz,
  state           text             NOT NULL DEFAULT 'PENDING'
                                   CHECK (state IN ('PENDING','SENT','FAILED','SUPPRESSED')),
  reported        boolean          NOT NULL DEFAULT false,
  tries           int              NOT NULL DEFAULT 0,
  next_attempt_at timestamptz      NOT NULL DEFAULT now(),
  claimed_until   timestamptz,
  last_error      text,
  created_at      timestamptz      NOT NULL DEFAULT now(),
  finished_at     timestamptz,
  PRIMARY KEY (rule, key, episode, status)
);
-- What a deliverer looks for: messages to send, and suppressed ones no summary has mentioned yet.
CREATE INDEX alert_notifications_open ON alert_notifications (next_attempt_at)
  WHERE state = 'PENDING' OR (state = 'SUPPRESSED' AND NOT reported);
-- The per-minute cap counts what was posted recently.
CREATE INDEX alert_notifications_sent ON alert_notifications (finished_at) WHERE state = 'SENT';

-- The dependency-skip rule counts the events of its look-back (V10 writes them in the skipping statement).
CREATE INDEX alert_events_created ON alert_events (created_at);

-- The delivery baton: the node that holds it is the one deliverer of alert messages until it stops
-- renewing it (one claim per round, held for a try's timeout and a margin). One deliverer at a time
-- makes the per-minute cap exact; a deliverer that dies is replaced when the hold runs out.
CREATE TABLE alert_delivery (
  id         int          PRIMARY KEY CHECK (id = 1),
  holder     text,
  held_until timestamptz  NOT NULL DEFAULT '-infinity'
);
INSERT INTO alert_delivery (id) VALUES (1);
