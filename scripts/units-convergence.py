#!/usr/bin/env python3
"""Network units against small packets: the convergence suite.

Every case runs with the physical packet moved one packet at a time (the reference) and in
units of each size given, over several seeds, and the script prints a Markdown table: each
figure's mean over the seeds, its difference from the reference's mean, the tolerance and
whether the row meets it, and the events against the reference's.

Three kinds of case:
  micro-benchmarks   `bbsim net` on scenarios/convergence/<name>.toml (incast, a victim flow
                     behind a hot server, an 18-to-18 edge-switch fan-in, a 2:1 taper, the
                     dragonfly worst case under UGAL): completion throughput (bytes delivered
                     over the time of the last delivery), mean message latency, hops and the
                     non-minimal share, and the victim flow's mean latency where there is one.
  study runs         scenarios/<system-placement>.toml with the jobs of
                     scenarios/study/<mix>.toml, composed as study/reproduce-study.sh does, with
                     the reduction given by --set: job 0's I/O phase length and mean time in
                     I/O, and the routers traversed and non-minimal share per delivered
                     packet over the run (summary.json `routes`).
  ready scenarios    `bbsim run FILE` on any scenario (--scenario FILE[:JOB[:PHASE]], then
                     @KEY=VALUE for each override of that case only), with the
                     packet and unit given as overrides: the job's (by name or index; default
                     the first) I/O phase and mean time in I/O, or the length of its I/O phase
                     PHASE (0 = the first), and the run's hops and non-minimal share per
                     packet (all jobs' traffic). --file-row adds a row run
                     with the file's own packet and unit settings (no --packet-set), so that
                     the coarser packets a scenario ships with are measured against the same
                     reference.

Tolerances: throughput 3 %, latency 5 %, I/O phase and mean time in I/O 5 %, hops 1 %,
non-minimal share 3 points; each widened to twice the reference's seed-to-seed spread (the
sample standard deviation over the seeds) where that is larger.

  scripts/units-convergence.py [--bbsim target/release/bbsim] [--micro NAME ...]
      [--study SYSTEM-PLACEMENT:MIX ...] [--units 64KiB 256KiB] [--packet 4KiB]
      [--scenario FILE[:JOB[:PHASE]][@KEY=VALUE...] ...] [--file-row] [--packet-set KEY=VALUE ...]
      [--seeds 1 2 3] [--set KEY=VALUE ...] [--variant LABEL:KEY=VALUE[,KEY=VALUE] ...] [--jobs N]
      [--out DIR [--keep]]

--set applies to every row of the study and scenario cases (a reduction such as
jobs.0.bytes_per_rank=4MB); --packet-set to every row but the file row (such as
network.vc_buffer=64KiB, the physical buffer, where a file sizes its buffer to hold its own
coarse packets).

A variant is a row of the reference packet model with more overrides (comma-separated), for
finding what drives a difference: `--variant "route per 64KiB:network.routing_block=64KiB"`
decides routes once per 64 KiB of a message, as units do, but moves 4 KiB packets;
`--variant "units, 1-packet parts:simulation.unit_size=64KiB,network.min_part=4KiB"` moves
64 KiB units that leave with whatever credit there is.

The table goes to stdout; every run's figures go to runs.csv in the output directory (a new
temporary directory unless --out names one), which is named on stderr. With --keep, study and
scenario runs whose directory in --out already holds a summary.json are read instead of run
again (micro-benchmarks, which take seconds, always run).
"""

import argparse
import collections
import concurrent.futures
import csv
import json
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MICRO = ["incast", "victim", "edge-fan-in", "taper", "dragonfly-worst-case"]
STUDY = ["summit-global:gtc", "edison-global:gtc"]
# --keep: study and scenario runs whose directory already holds a summary.json are read, not
# run again.
KEEP = False
# The row of a scenario case run with the file's own packet and unit settings.
FILE_ROW = "file"

# (key, label, kind, tolerance): kind "rel" compares relative differences (tolerance in %),
# "points" compares fractions in percentage points.
MICRO_FIGURES = [
    ("throughput", "throughput (GB/s)", "rel", 3.0),
    ("latency", "mean latency (us)", "rel", 5.0),
    ("victim", "victim latency (us)", "rel", 5.0),
    ("hops", "hops", "rel", 1.0),
    ("nonminimal", "non-minimal (%)", "points", 3.0),
]
STUDY_FIGURES = [
    ("phase", "I/O phase (ms)", "rel", 5.0),
    ("mean", "mean time in I/O (ms)", "rel", 5.0),
    ("hops", "hops", "rel", 1.0),
    ("nonminimal", "non-minimal (%)", "points", 3.0),
]
SCENARIO_FIGURES = [
    ("phase", "I/O phase (s)", "rel", 5.0),
    ("mean", "mean time in I/O (s)", "rel", 5.0),
    ("hops", "hops", "rel", 1.0),
    ("nonminimal", "non-minimal (%)", "points", 3.0),
]


def fail(msg):
    print(f"units-convergence: {msg}", file=sys.stderr)
    sys.exit(2)


def compose(out, system, mix, packet):
    """A scenario with the system and placement of `system` and the jobs of `mix`."""
    sys_path = os.path.join(ROOT, "scenarios", f"{system}.toml")
    mix_path = os.path.join(ROOT, "scenarios", "study", f"{mix}.toml")
    for p in (sys_path, mix_path):
        if not os.path.isfile(p):
            fail(f"no {os.path.relpath(p, ROOT)}")
    with open(mix_path) as f:
        lines = f.read().splitlines()
    start = next((i for i, l in enumerate(lines) if l.strip() == "[[jobs]]"), None)
    if start is None:
        fail(f"{os.path.relpath(mix_path, ROOT)} has no [[jobs]]")
    path = os.path.join(out, f"{system}-{mix}.toml")
    with open(path, "w") as f:
        f.write(f'include = "{sys_path}"\nname = "units-{system}-{mix}"\n')
        f.write(f'[simulation]\npacket_size = "{packet}"\n')
        f.write("\n".join(lines[start:]) + "\n")
    return path


def run_one(bbsim, case, row, seed, sets, threads, out, packet, packet_sets):
    """Runs one case as `row` (a unit size, the file row, or a variant: label, unit and
    overrides) with one seed; returns its figures."""
    kind, name, scenario = case[:3]
    unit, extra = (row[1], list(row[2])) if isinstance(row, tuple) else (row, [])
    sets = sets + extra
    label = row[0] if isinstance(row, tuple) else row
    tag = f"{name}-{label}-s{seed}".replace(":", "-").replace(" ", "-").replace("/", "-")
    # `bbsim net` runs on one thread unless told otherwise: these networks are small.
    threads = 1 if kind == "micro" else threads
    common = ["--threads", str(threads), "--set", f"simulation.seed={seed}"]
    if kind == "scenario":
        # The file row keeps the scenario's own packet and unit; every other row sets both.
        if unit != FILE_ROW:
            common += ["--set", f"simulation.packet_size={packet}",
                       "--set", f"simulation.unit_size={unit}"] + \
                [x for p in packet_sets for x in ("--set", p)]
    else:
        common += ["--set", f"simulation.unit_size={unit}"]
    if kind == "micro":
        cmd = [bbsim, "net", scenario, "--json"] + common
        for s in sets:
            cmd += ["--set", s]
        res = subprocess.run(cmd, capture_output=True, text=True)
        if res.returncode != 0:
            fail(f"{' '.join(cmd)} failed:\n{res.stderr}")
        r = json.loads(res.stdout)
        fig = {
            "throughput": r["bytes_delivered"] / r["sim_end_ps"] * 1e12 / 1e9,
            "latency": r["avg_latency_ns"] / 1e3,
            "hops": r["avg_hops"],
            "nonminimal": 100 * r["nonminimal_fraction"],
            "events": r["events"],
            "wall": r["wall_seconds"],
        }
        if r.get("victim"):
            fig["victim"] = r["victim"]["avg_latency_ns"] / 1e3
        return fig
    d = os.path.join(out, tag)
    cmd = [bbsim, "run", scenario, "--quiet", "--out", d,
           "--set", "outputs.timeline=false"] + common
    for s in sets:
        cmd += ["--set", s]
    if not (KEEP and os.path.exists(os.path.join(d, "summary.json"))):
        res = subprocess.run(cmd, capture_output=True, text=True)
        if res.returncode != 0:
            fail(f"{' '.join(cmd)} failed:\n{res.stderr}")
    with open(os.path.join(d, "summary.json")) as f:
        s = json.load(f)
    job, phase = (case[3], case[4]) if kind == "scenario" else (0, None)
    j = pick_job(s["jobs"], job, name)
    # Study runs in milliseconds (their phases are short), ready scenarios in seconds.
    ms = 1.0 if kind == "scenario" else 1e3
    # Routes per packet over the run's whole traffic, as the micro-benchmarks count them: a
    # job's own figures are per message (any packet non-minimal marks its message), which
    # cannot tell how a message's packets or units parted ways.
    if "routes" not in s:
        fail(f"{d}: summary.json has no `routes` (a run of an older build): run it again "
             "without --keep")
    fig = {
        "build": s.get("bbsim_commit", "unknown"),
        "hops": s["routes"]["mean_hops"],
        "nonminimal": 100 * s["routes"]["nonminimal_share"],
        "events": s["run"]["events"],
        "wall": s["run"]["wall_s"],
    }
    if phase is None:
        fig["phase"] = j["io_phase_s"] * ms
        fig["mean"] = j["time_in_io_mean_s"] * ms
    else:
        # One I/O phase: its length; the summary gives no per-phase mean time in I/O.
        phases = j["io_phases"]
        if phase >= len(phases):
            fail(f"{name}: job {j['name']} has {len(phases)} I/O phase(s), not {phase + 1}")
        fig["phase"] = phases[phase]["length_s"] * ms
    return fig


def pick_job(jobs, job, case):
    """The job named `job`, or at index `job` (an int)."""
    if isinstance(job, int):
        if job >= len(jobs):
            fail(f"{case}: the run has {len(jobs)} job(s), not {job + 1}")
        return jobs[job]
    for j in jobs:
        if j["name"] == job:
            return j
    fail(f"{case}: no job named {job} (jobs: {', '.join(j['name'] for j in jobs)})")


def scenario_case(spec):
    """--scenario FILE[:JOB[:PHASE]][@KEY=VALUE...] as a case: kind, name, path, job, phase,
    the case's own overrides."""
    spec, *overrides = spec.split("@")
    if not all("=" in o for o in overrides):
        fail(f"--scenario {spec}: expected @KEY=VALUE overrides after the file")
    path, _, rest = spec.partition(":")
    job, _, phase = rest.partition(":")
    if not os.path.isfile(path):
        fail(f"--scenario {spec}: no file {path}")
    job = int(job) if job.isdigit() else (job or 0)
    if phase and not phase.isdigit():
        fail(f"--scenario {spec}: PHASE must be an I/O phase index (0 = the first)")
    name = os.path.relpath(os.path.abspath(path), os.path.join(ROOT, "scenarios"))
    name = name[:-5] if name.endswith(".toml") else name
    if rest:
        name += f" {rest.replace(':', ' phase ')}"
    return ("scenario", name, path, job, int(phase) if phase else None, tuple(overrides))


def case_sets(case, study_sets, scenario_sets):
    """The overrides of every row of `case`: none for a micro-benchmark, the study reduction
    for a study run, and for a scenario the --set overrides and the case's own @KEY=VALUE."""
    kind = case[0]
    if kind == "micro":
        return []
    if kind == "study":
        return study_sets
    return scenario_sets + list(case[5])


def spread(values):
    return statistics.stdev(values) if len(values) > 1 else 0.0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bbsim", default=os.path.join(ROOT, "target", "release", "bbsim"))
    ap.add_argument("--micro", nargs="*", default=MICRO,
                    help="micro-benchmarks (scenarios/convergence/NAME.toml)")
    ap.add_argument("--study", nargs="*", default=STUDY,
                    help="study runs as SYSTEM-PLACEMENT:MIX")
    ap.add_argument("--scenario", nargs="*", default=[],
                    help="ready scenarios as FILE[:JOB[:PHASE]][@KEY=VALUE...]")
    ap.add_argument("--file-row", action="store_true",
                    help="add a row of each scenario case with its own packet and unit")
    ap.add_argument("--packet-set", action="append", default=[],
                    help="override for every scenario row but the file row")
    ap.add_argument("--units", nargs="+", default=["64KiB", "256KiB"])
    ap.add_argument("--packet", default="4KiB", help="the physical packet (the reference's unit)")
    ap.add_argument("--seeds", nargs="+", type=int, default=[1, 2, 3])
    ap.add_argument("--set", dest="sets", action="append",
                    help="override for the study and scenario runs (study default "
                    "jobs.0.bytes_per_rank=4MB)")
    ap.add_argument("--variant", action="append", default=[],
                    help="LABEL:KEY=VALUE[,KEY=VALUE...], a row of the reference with more overrides")
    ap.add_argument("--jobs", type=int, default=1, help="runs at once (each on one thread)")
    ap.add_argument("--out", help="directory for the runs (default: a new temporary one)")
    ap.add_argument("--keep", action="store_true",
                    help="read the study and scenario runs already in --out instead of running "
                         "them again (to resume a suite, or to keep the reference runs of a "
                         "change that leaves the packet model alone)")
    a = ap.parse_args()
    global KEEP
    KEEP = a.keep
    if not (os.path.isfile(a.bbsim) and os.access(a.bbsim, os.X_OK)):
        fail(f"{a.bbsim}: not an executable (cargo build --release)")
    sets = a.sets if a.sets is not None else ["jobs.0.bytes_per_rank=4MB"]
    out = a.out or tempfile.mkdtemp(prefix="bbsim-units.")
    os.makedirs(out, exist_ok=True)
    print(f"units-convergence: runs in {out}", file=sys.stderr)

    cases = []
    for m in a.micro:
        p = os.path.join(ROOT, "scenarios", "convergence", f"{m}.toml")
        if not os.path.isfile(p):
            fail(f"no scenarios/convergence/{m}.toml")
        cases.append(("micro", m, p))
    for c in a.study:
        if ":" not in c:
            fail(f"study case `{c}`: expected SYSTEM-PLACEMENT:MIX")
        system, mix = c.split(":", 1)
        cases.append(("study", f"{system} {mix}", compose(out, system, mix, a.packet)))

    for c in a.scenario:
        cases.append(scenario_case(c))

    units = [a.packet] + [u for u in a.units if u != a.packet]
    if a.file_row:
        units.append(FILE_ROW)
    for v in a.variant:
        label, sep, override = v.partition(":")
        overrides = tuple(override.split(","))
        if not sep or not all("=" in o for o in overrides):
            fail(f"--variant `{v}`: expected LABEL:KEY=VALUE[,KEY=VALUE...]")
        units.append((label, a.packet, overrides))
    threads = 1 if a.jobs > 1 else "auto"
    work = [(c, u, s) for c in cases for u in units for s in a.seeds]
    results = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:
        futures = {
            pool.submit(run_one, a.bbsim, c, u, s,
                        case_sets(c, sets, a.sets or []),
                        threads, out, a.packet,
                        a.packet_set):
            (c[1], u[0] if isinstance(u, tuple) else u, s)
            for c, u, s in work
        }
        for f in concurrent.futures.as_completed(futures):
            results[futures[f]] = f.result()

    with open(os.path.join(out, "runs.csv"), "w", newline="") as f:
        w = csv.writer(f)
        keys = sorted({k for r in results.values() for k in r})
        w.writerow(["case", "unit", "seed"] + keys)
        for (c, u, s), r in sorted(results.items()):
            w.writerow([c, u, s] + [r.get(k, "") for k in keys])

    seeds = len(a.seeds)
    print(f"Means over {seeds} seed(s); Δ against {a.packet} packets; tolerance in brackets "
          "(the larger of the fixed one and twice the reference's seed-to-seed spread).\n")
    # Runs kept with --keep may come from other builds: say which builds the table mixes.
    builds = collections.Counter(r["build"] for r in results.values() if "build" in r)
    if builds:
        listed = ", ".join(f"{b} ({n} run{'s' if n > 1 else ''})" for b, n in sorted(builds.items()))
        note = " (runs of different builds: check that their models agree)" if len(builds) > 1 else ""
        print(f"Study and scenario runs from build {listed}{note}.\n")
    for kind, figures in (("micro", MICRO_FIGURES), ("study", STUDY_FIGURES),
                          ("scenario", SCENARIO_FIGURES)):
        rows = [c for c in cases if c[0] == kind]
        if not rows:
            continue
        head = ["case", "unit"] + [lab for _, lab, _, _ in figures] + \
            ["events (M)", "events ÷", "wall (s)", "verdict"]
        print("| " + " | ".join(head) + " |")
        print("|---|---|" + "---:|" * (len(head) - 3) + "---|")
        for name in [c[1] for c in rows]:
            ref = [results[(name, a.packet, s)] for s in a.seeds]
            for row in units:
                u = row[0] if isinstance(row, tuple) else row
                runs = [results[(name, u, s)] for s in a.seeds]
                cells, misses = [], []
                for key, lab, how, tol in figures:
                    if key not in runs[0]:
                        cells.append("")
                        continue
                    m = statistics.mean(r[key] for r in runs)
                    r0 = statistics.mean(r[key] for r in ref)
                    sd = spread([r[key] for r in ref])
                    if how == "rel":
                        t = max(tol, 200 * sd / r0 if r0 else 0.0)
                        dlt = 100 * (m - r0) / r0 if r0 else 0.0
                        unit_s = "%"
                    else:
                        t = max(tol, 2 * sd)
                        dlt = m - r0
                        unit_s = " pt"
                    if u == a.packet:
                        cells.append(f"{m:.4g} [±{t:.1f}{unit_s}]")
                    else:
                        cells.append(f"{m:.4g} ({dlt:+.1f}{unit_s})")
                        if abs(dlt) > t:
                            misses.append(f"{lab.split(' (')[0]} {dlt:+.1f}{unit_s} (±{t:.1f})")
                ev = statistics.mean(r["events"] for r in runs)
                ev0 = statistics.mean(r["events"] for r in ref)
                wall = statistics.mean(r["wall"] for r in runs)
                verdict = "reference" if u == a.packet else (
                    "within" if not misses else "misses: " + "; ".join(misses))
                print(f"| {name} | {u} | " + " | ".join(cells) +
                      f" | {ev / 1e6:.2f} | {ev0 / ev:.1f} | {wall:.1f} | {verdict} |")
        print()


if __name__ == "__main__":
    main()
