#!/usr/bin/env python3
"""Summarizes device-call results side by side: one row per (case, method, arena), one column per
result file's side (binaries.sh's note "binaries.sh TAG NAME N" names it; else the file name):
GPU median in ms, then dyngc's busy workers per launch, range splits, idle steps, submissions
and, where the record has it, each submission's GPU time.

    python3 bench/h200/s29/summary.py RESULT.json...
"""
import json
import statistics
import sys
from collections import defaultdict


def side_of(path, meta):
    words = (meta.get("note") or "").split()
    if len(words) >= 4 and words[0] == "binaries.sh":
        return f"{words[2]}-{words[3]}"
    return path.rsplit("/", 1)[-1].removesuffix(".json")


def cell(record):
    if record.get("error"):
        return "ERROR " + record["error"][:40]
    gpu = record.get("gpu_times_s") or record.get("times_s")
    text = f"{statistics.median(gpu) * 1e3:.3f} ms" if gpu else "-"
    extra = record.get("extra") or {}
    stats = extra.get("stats")
    if isinstance(stats, dict) and "fields" in stats:
        f = {x["name"]: x["value"] for x in stats["fields"]}
        launches = max(f.get("launches", 1), 1)
        text += (f" busy {f.get('busy_worker_launches', 0) / launches:.0f}"
                 f" splits {f.get('range_splits', 0)} idle {f.get('idle_steps', 0)}"
                 f" subm {stats.get('host', {}).get('submissions', '?')}")
        per = extra.get("gpu_submission_ms")
        if per and len(per) > 1:
            text += " [" + " ".join(f"{t:.2f}" for t in per[:16]) + (" ..." if len(per) > 16 else "") + "]"
    return text


def main(paths):
    rows = defaultdict(dict)
    sides = []
    for path in paths:
        with open(path) as fh:
            data = json.load(fh)
        side = side_of(path, data.get("meta", {}))
        if side not in sides:
            sides.append(side)
        for r in data.get("records", []):
            arena = (r.get("extra") or {}).get("requested_arena_bytes")
            key = (r["workload"], r["case"], r["method"], arena)
            rows[key][side] = cell(r)
    for key in sorted(rows, key=lambda k: (k[0], k[1], k[2], k[3] or 0)):
        workload, case, method, arena = key
        print(f"{workload} {case} {method}" + (f" arena {arena}" if arena else ""))
        for side in sides:
            if side in rows[key]:
                print(f"    {side:<14} {rows[key][side]}")


if __name__ == "__main__":
    main(sys.argv[1:])
