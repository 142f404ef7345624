#!/usr/bin/env python3
"""Sums `pg_waldump` output by relation and record type, per task.

usage: wal-by-relation.py WALDUMP_TXT RELMAP_TXT TASKS
  RELMAP_TXT: lines "dboid|relfilenode|relname" (bench/tools/wal-by-relation.sh writes them)
A record is counted against the relation of its first block reference; records of no relation (commits,
multixacts) are "(no relation)", catalog and unnamed relations "rel DBOID/RELFILENODE".
"""
import collections
import re
import sys

dump, relmap, tasks = sys.argv[1], sys.argv[2], int(sys.argv[3])
names = {}
for line in open(relmap):
    parts = line.strip().split('|')
    if len(parts) == 3:
        names[(parts[0], parts[1])] = parts[2]

record = re.compile(r'rmgr: (\S+)\s+len \(rec/tot\):\s+(\d+)/\s*(\d+).*?desc: (\S+)(.*)$')
block = re.compile(r'blkref #0: rel (\d+)/(\d+)/(\d+)')
by_kind = collections.defaultdict(lambda: [0, 0, 0])  # records, bytes, full-page writes
count = size = 0
for line in open(dump):
    m = record.search(line)
    if not m:
        continue
    rmgr, total, kind, rest = m.group(1), int(m.group(3)), m.group(4), m.group(5)
    count += 1
    size += total
    b = block.search(rest)
    if b is None:
        relation = '(no relation)'
    else:
        relation = names.get((b.group(2), b.group(3)), 'rel %s/%s' % (b.group(2), b.group(3)))
    k = by_kind[(relation, rmgr + '/' + kind)]
    k[0] += 1
    k[1] += total
    k[2] += line.count('FPW')

print(f"all records: {count} ({count / tasks:.1f} per task), {size} B ({size / tasks:.0f} B per task)")
print()
print(f"{'relation':32} {'record':24} {'records/task':>12} {'B/task':>7} {'FPW/task':>8}")
by_relation = collections.defaultdict(int)
for (relation, kind), (n, b, fpw) in sorted(by_kind.items(), key=lambda kv: -kv[1][1]):
    by_relation[relation] += b
    if b / tasks >= 5:
        print(f"{relation:32} {kind:24} {n / tasks:12.2f} {b / tasks:7.0f} {fpw / tasks:8.3f}")
print()
print("by relation (>= 5 B/task):")
for relation, b in sorted(by_relation.items(), key=lambda kv: -kv[1]):
    if b / tasks >= 5:
        print(f"  {relation:32} {b / tasks:7.0f} B/task")
