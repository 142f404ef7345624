#!/usr/bin/env python3
"""Where in a spread the late arrivals fell.

Reads the CSV a bench run writes with -Dax.bench.arrivals=DIR (task_id, trigger_ms, fired_at_ms,
arrival_us; one row per task, its first arrival) and prints the lateness percentiles, how many tasks
were later than --late-ms, how many of those were already fired late by ax (fired_at - trigger) or lost
the time after firing (arrival - fired_at), and how the late ones group into episodes (runs of late
tasks with gaps under --gap-ms): their count, spacing and size tell a periodic stall from noise.

    python3 bench/tools/arrival-episodes.py DIR/measured-after-warm-up--<ms>.csv [--late-ms 5] [--show 10]
"""
import argparse
import csv


def main():
    p = argparse.ArgumentParser()
    p.add_argument("csv")
    p.add_argument("--late-ms", type=float, default=5.0)
    p.add_argument("--gap-ms", type=float, default=200.0)
    p.add_argument("--show", type=int, default=10, help="episodes to list")
    a = p.parse_args()

    rows = []
    with open(a.csv) as f:
        for r in csv.DictReader(f):
            trigger = int(r["trigger_ms"])
            fired = int(r["fired_at_ms"]) if r["fired_at_ms"] else None
            rows.append((trigger, int(r["arrival_us"]) / 1000.0, fired))
    rows.sort()
    if not rows:
        print("no arrivals")
        return
    t0 = rows[0][0]
    late = sorted(arrival - trigger for trigger, arrival, _ in rows)
    n = len(late)
    print(f"n {n}  lateness p50 {late[n // 2]:.1f}  p99 {late[int(n * 0.99)]:.1f}  max {late[-1]:.1f} ms")

    bad = [(t, arr - t, None if f is None else f - t, None if f is None else arr - f) for t, arr, f in rows
           if arr - t > a.late_ms]
    fired_late = sum(1 for b in bad if b[2] is not None and b[2] >= a.late_ms - 1)
    sent_late = sum(1 for b in bad if b[3] is not None and b[3] >= a.late_ms - 1)
    print(f"later than {a.late_ms:g} ms: {len(bad)}; fired ≥ {a.late_ms - 1:g} ms late: {fired_late}; "
          f"≥ {a.late_ms - 1:g} ms from firing to arrival: {sent_late}")

    episodes = []
    for b in bad:
        if episodes and b[0] - episodes[-1][-1][0] <= a.gap_ms:
            episodes[-1].append(b)
        else:
            episodes.append([b])
    if len(episodes) > 1:
        starts = [e[0][0] for e in episodes]
        gaps = sorted(y - x for x, y in zip(starts, starts[1:]))
        sizes = sorted(len(e) for e in episodes)
        print(f"episodes: {len(episodes)}; spacing median {gaps[len(gaps) // 2]} ms; "
              f"late tasks per episode median {sizes[len(sizes) // 2]}, max {sizes[-1]}")
    for e in episodes[:a.show]:
        worst = max(x[1] for x in e)
        print(f"  at {(e[0][0] - t0) / 1000:7.2f} s: {len(e):3d} late over {e[-1][0] - e[0][0]:4d} ms, worst {worst:.1f} ms")


if __name__ == "__main__":
    main()
