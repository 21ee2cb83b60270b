#!/usr/bin/env bash
# Network units against small packets on the study's reduced runs: each case runs with
# 4 KiB packets moved one packet at a time (the reference) and in units of each size given,
# and the script prints a Markdown table of what the study reports (I/O phase length, mean time
# in I/O, hops, non-minimal share) with each unit size's difference from the reference and its
# events against the reference's.
#
#   scripts/units-convergence.sh [BBSIM]
#
# Environment:
#   CASES="system-placement:mix ..."  default "summit-global:gtc edison-global:gtc"
#                                     (scenarios/<system-placement>.toml with the jobs of
#                                     scenarios/study/<mix>.toml, as study/reproduce-study.sh
#                                     composes them)
#   UNITS="64KiB 256KiB"              unit sizes to compare with one-packet units
#   PACKET=4KiB                       the physical packet (and the reference's unit)
#   SETS="--set jobs.0.bytes_per_rank=4MB"   overrides for every run (the reduction)
#   THREADS=auto                      --threads of every run (results do not depend on it)
#
# Prints the table on stdout; the runs' outputs stay in a temporary directory named on stderr.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BBSIM=${1:-$ROOT/target/release/bbsim}
[ -x "$BBSIM" ] || { echo "units-convergence: $BBSIM: not an executable (cargo build --release)" >&2; exit 2; }
CASES=${CASES:-"summit-global:gtc edison-global:gtc"}
UNITS=${UNITS:-"64KiB 256KiB"}
PACKET=${PACKET:-4KiB}
SETS=${SETS:-"--set jobs.0.bytes_per_rank=4MB"}
THREADS=${THREADS:-auto}
OUT=$(mktemp -d "${TMPDIR:-/tmp}/bbsim-units.XXXXXX")
echo "units-convergence: runs in $OUT" >&2

compose() { # system-placement mix -> composed scenario path
    local f="$OUT/$1-$2.toml"
    [ -f "$ROOT/scenarios/$1.toml" ] || { echo "units-convergence: no scenarios/$1.toml" >&2; exit 2; }
    [ -f "$ROOT/scenarios/study/$2.toml" ] || { echo "units-convergence: no scenarios/study/$2.toml" >&2; exit 2; }
    {
        echo "include = \"$ROOT/scenarios/$1.toml\""
        echo "name = \"units-$1-$2\""
        echo "[simulation]"
        echo "packet_size = \"$PACKET\""
        sed -n '/^\[\[jobs\]\]/,$p' "$ROOT/scenarios/study/$2.toml"
    } >"$f"
    echo "$f"
}

# One run: prints "phase mean hops nonminimal events wall" of job 0.
run() { # scenario unit dir
    # shellcheck disable=SC2086
    "$BBSIM" run "$1" --quiet --threads "$THREADS" --out "$3" \
        --set "simulation.unit_size=$2" --set outputs.timeline=false $SETS >/dev/null
    python3 - "$3/summary.json" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))
j = s["jobs"][0]
print(j["io_phase_s"], j["time_in_io_mean_s"], j["avg_hops"], j["nonminimal_fraction"],
      s["run"]["events"], s["run"]["wall_s"])
EOF
}

echo "| case | unit | I/O phase (s) | mean time in I/O (s) | avg hops | non-minimal | events (M) | wall (s) | phase Δ | mean Δ | hops Δ | non-min Δ (points) | events ÷ |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for c in $CASES; do
    sp=${c%%:*} mix=${c#*:}
    scn=$(compose "$sp" "$mix")
    read -r p0 m0 h0 n0 e0 w0 < <(run "$scn" "$PACKET" "$OUT/$sp-$mix-ref")
    printf '| %s %s | %s (reference) | %.4f | %.4f | %.2f | %.1f %% | %.1f | %.1f | | | | | |\n' \
        "$sp" "$mix" "$PACKET" "$p0" "$m0" "$h0" "$(python3 -c "print($n0*100)")" \
        "$(python3 -c "print($e0/1e6)")" "$w0"
    for u in $UNITS; do
        read -r p m h n e w < <(run "$scn" "$u" "$OUT/$sp-$mix-$u")
        python3 - "$sp $mix" "$u" "$p" "$m" "$h" "$n" "$e" "$w" "$p0" "$m0" "$h0" "$n0" "$e0" <<'EOF'
import sys
case, unit = sys.argv[1], sys.argv[2]
p, m, h, n, e, w, p0, m0, h0, n0, e0 = map(float, sys.argv[3:])
pct = lambda a, b: f"{100 * (a - b) / b:+.1f} %" if b else "n/a"
print(f"| {case} | {unit} | {p:.4f} | {m:.4f} | {h:.2f} | {100*n:.1f} % | {e/1e6:.1f} | {w:.1f} "
      f"| {pct(p, p0)} | {pct(m, m0)} | {pct(h, h0)} | {100*(n-n0):+.1f} | {e0/e:.1f} |")
EOF
    done
done
