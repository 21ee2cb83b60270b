#!/usr/bin/env python3
"""Threads against one thread: a scenario timed at several thread counts and partitions.

    scripts/thread-curve.py BBSIM SCENARIO [--threads 1 2 4 8] [--partitions regions routers]
        [--rounds N] [--timeout SECONDS] [-- bbsim run options...]

Runs `BBSIM run SCENARIO --threads T --set simulation.partition=P` for every thread count T
and partition P, ROUNDS times, one run at a time (each run takes the cores it asks for), the
order reversed every other round so that a machine whose speed drifts weighs on every setting
alike. Prints one tab-separated line per run (wall seconds from `summary.json`, events, the
events handled on threads, the busiest thread's share of them, the seconds threads waited on
each other, the results digest), then a table per partition and thread count: the median wall
time over the rounds and the speed-up against the median of one thread on the first
partition.

Results are identical for every thread count and partition, so every run must give the same
`results_digest`; the script says which run differed and exits 1 if one does, 2 on bad
arguments or a run that fails. Thread counts above the machine's cores measure scheduling,
not the engine: the table marks them.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile


def fail(message, code=2):
    print(f"thread-curve: {message}", file=sys.stderr)
    sys.exit(code)


def parse(argv):
    own, rest = argv, []
    if "--" in argv:
        k = argv.index("--")
        own, rest = argv[:k], argv[k + 1 :]
    p = argparse.ArgumentParser(
        prog="thread-curve.py",
        description="Time a bbsim scenario at several thread counts and partitions.",
    )
    p.add_argument("bbsim", help="the bbsim binary")
    p.add_argument("scenario", help="the scenario file")
    p.add_argument("--threads", nargs="+", type=int, default=[1, 2, 4])
    p.add_argument("--partitions", nargs="+", default=["regions"],
                   choices=["regions", "routers"])
    p.add_argument("--rounds", type=int, default=1)
    p.add_argument("--timeout", type=float, default=3600.0,
                   help="seconds one run may take (default 3600)")
    a = p.parse_args(own)
    if not (os.path.isfile(a.bbsim) and os.access(a.bbsim, os.X_OK)):
        fail(f"{a.bbsim}: not an executable")
    if not os.path.isfile(a.scenario):
        fail(f"{a.scenario}: no such scenario file")
    if a.rounds < 1:
        fail(f"--rounds must be at least 1, not {a.rounds}")
    if any(t < 1 for t in a.threads):
        fail(f"--threads must be positive whole numbers, not {a.threads}")
    return a, rest


def run_one(a, rest, partition, threads, out):
    cmd = [a.bbsim, "run", a.scenario, "--quiet", "--out", out, "--threads", str(threads),
           "--set", f"simulation.partition={partition}"] + rest
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=a.timeout)
    except subprocess.TimeoutExpired:
        fail(f"{partition} on {threads} threads ran past {a.timeout:g} s")
    if done.returncode != 0:
        fail(f"{partition} on {threads} threads failed:\n{done.stderr.strip()}")
    with open(os.path.join(out, "summary.json")) as f:
        s = json.load(f)
    r = s["run"]
    per_thread = r.get("per_thread_events") or [r["events"]]
    on_threads = r.get("parallel_events", 0)
    busiest = max(per_thread) / max(sum(per_thread), 1)
    return {
        "wall": r["wall_s"],
        "events": r["events"],
        "on_threads": on_threads,
        "busiest": busiest,
        "waits": r.get("barrier_wait_s", 0.0),
        "digest": s["results_digest"],
    }


def main(argv):
    a, rest = parse(argv)
    settings = [(p, t) for p in a.partitions for t in a.threads]
    runs = {s: [] for s in settings}
    cores = os.cpu_count() or 1
    print("round\tpartition\tthreads\twall_s\tevents\ton_threads\tbusiest_share\twaits_s\tdigest")
    with tempfile.TemporaryDirectory() as work:
        for rnd in range(1, a.rounds + 1):
            order = settings if rnd % 2 else list(reversed(settings))
            for partition, threads in order:
                out = os.path.join(work, f"{partition}-{threads}-{rnd}")
                r = run_one(a, rest, partition, threads, out)
                runs[(partition, threads)].append(r)
                print(f"{rnd}\t{partition}\t{threads}\t{r['wall']:.3f}\t{r['events']}\t"
                      f"{r['on_threads']}\t{r['busiest']:.3f}\t{r['waits']:.2f}\t{r['digest']}",
                      flush=True)
    first = runs[settings[0]][0]["digest"]
    odd = [(s, r) for s in settings for r in runs[s] if r["digest"] != first]
    base = (a.partitions[0], 1)
    base_wall = statistics.median(r["wall"] for r in runs[base]) if base in runs else None
    print()
    print("| partition | threads | median wall | speed-up against 1 thread |")
    print("|---|---:|---:|---:|")
    for s in settings:
        wall = statistics.median(r["wall"] for r in runs[s])
        up = f"{base_wall / wall:.2f} ×" if base_wall else "–"
        note = " (more threads than cores)" if s[1] > cores else ""
        print(f"| {s[0]} | {s[1]}{note} | {wall:.2f} s | {up} |")
    if odd:
        (p, t), r = odd[0]
        print(f"thread-curve: results differ: {p} on {t} threads gave digest {r['digest']}, "
              f"the first run {first}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
