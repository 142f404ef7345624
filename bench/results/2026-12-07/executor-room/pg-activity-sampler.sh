#!/bin/bash
# samples active backends of ax_bench DBs: wait_event and query head
end=$((SECONDS+$1))
while [ $SECONDS -lt $end ]; do
  psql -h 127.0.0.1 -U postgres -At -c "select pid, coalesce(wait_event_type,'CPU'), coalesce(wait_event,'-'), left(regexp_replace(query,'\s+',' ','g'),60) from pg_stat_activity where datname like 'ax_bench%' and state='active' and pid<>pg_backend_pid()" 2>/dev/null | sed "s/^/$(date +%s.%N | cut -c1-14) /"
  sleep 0.05
done
