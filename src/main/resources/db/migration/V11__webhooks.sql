-- Issue 13: webhooks on terminal state (API.md "Outgoing calls", R7).
--
-- The notification is an outbox row written by a trigger in the statement that makes the task terminal,
-- whichever path that is (an HTTP outcome, an executor's result, a cancel, a dependency skip, recovery
-- giving up): the transition and the promise to notify commit together, so a kill -9 between them loses
-- nothing. The leader delivers pending rows (WebhookVerticle): at least once, at most 3 tries with
-- backoff, every try recorded in notification_attempts.
ALTER TABLE tasks ADD COLUMN notify_url text CHECK (length(notify_url) <= 2048);

CREATE TABLE task_notifications (
  task_id         bigint       PRIMARY KEY,             -- a task reaches a terminal status once
  status          text         NOT NULL,                -- the terminal status announced
  state           text         NOT NULL DEFAULT 'PENDING' CHECK (state IN ('PENDING','DELIVERED','FAILED')),
  tries           integer      NOT NULL DEFAULT 0 CHECK (tries BETWEEN 0 AND 3),
  next_attempt_at timestamptz  NOT NULL DEFAULT now(),
  -- A claimed try: which leader term took it and until when it is its own; after that another term
  -- (or the same one) may take it again — at least once, never two deliverers at the same time.
  claimed_until   timestamptz,
  epoch           bigint,
  created_at      timestamptz  NOT NULL DEFAULT now(),
  finished_at     timestamptz
);
-- The deliverer's question: which pending notifications are due? Only pending rows are in it.
CREATE INDEX task_notifications_due ON task_notifications (next_attempt_at) WHERE state = 'PENDING';

CREATE TABLE notification_attempts (
  task_id     bigint       NOT NULL,
  try         integer      NOT NULL CHECK (try BETWEEN 1 AND 3),
  node_id     text         NOT NULL,
  started_at  timestamptz  NOT NULL,
  finished_at timestamptz  NOT NULL,
  http_status integer,                                  -- null when no response came
  outcome     text         NOT NULL CHECK (outcome IN ('DELIVERED','FAILED')),
  error       text,
  PRIMARY KEY (task_id, try)
);

CREATE FUNCTION ax_notify_outbox() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO task_notifications (task_id, status) VALUES (NEW.task_id, NEW.status)
  ON CONFLICT (task_id) DO NOTHING;
  RETURN NULL;
END
$$;

-- Only tasks with a notify_url pay more than the WHEN test.
CREATE TRIGGER tasks_notify_outbox
  AFTER UPDATE OF status ON tasks
  FOR EACH ROW
  WHEN (NEW.notify_url IS NOT NULL AND OLD.status IS DISTINCT FROM NEW.status
        AND NEW.status IN ('SUCCESS','FAILED','CANCELLED','SKIPPED'))
  EXECUTE FUNCTION ax_notify_outbox();

-- A task stored SKIPPED at once (a parent had already failed) is terminal without a transition.
CREATE TRIGGER tasks_notify_outbox_on_insert
  AFTER INSERT ON tasks
  FOR EACH ROW
  WHEN (NEW.notify_url IS NOT NULL AND NEW.status IN ('SUCCESS','FAILED','CANCELLED','SKIPPED'))
  EXECUTE FUNCTION ax_notify_outbox();
