-- Tracing (issue 13, part 6): the W3C traceparent of the submission, so the spans made when the task
-- fires (maybe much later, maybe on another node) join the submit's trace. Nullable and usually NULL: it is
-- written only when tracing is on or the caller sent a traceparent (TaskStore.RECORD_TRACEPARENT, a
-- separate statement after the insert, so the insert itself is unchanged). Adding a nullable column
-- without a default rewrites nothing. (V13 and V14 are taken by other branches.)
ALTER TABLE tasks ADD COLUMN traceparent text;
