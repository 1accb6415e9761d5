# Prints the executor's counters of each dyngc record of a dyngc-bench result file.
import json
import sys

for r in json.load(open(sys.argv[1]))["records"]:
    if r["method"] == "dyngc":
        st = {f["name"]: f["value"] for f in r["extra"]["stats"]["fields"]}
        print(" ".join(f"{k} {st[k]}" for k in ["batches", "lane_units", "idle_steps", "stack_high_water", "old_frames_lent", "fallback_spawns"]))
