#!/usr/bin/env bash
# Paired A/B timing of two bbsim binaries: runs both on the same scenario at the same time,
# one per core, so that both see the same machine speed (this project's 2-core VM drifts by
# 20-30 % within an hour, which swamps a few percent between runs made one after the other).
#
#   scripts/paired-run.sh OLD_BBSIM NEW_BBSIM SCENARIO [ROUNDS] [-- bbsim run options...]
#
# Example (the first 10 s of simulated time of the full-scale Cori IOR, about a minute each):
#   scripts/paired-run.sh /tmp/bbsim-old target/release/bbsim scenarios/cori-ior.toml 2 \
#       -- --set network.model=path --set simulation.end_time=10s
#
# Prints one line per binary and round: wall and user seconds, peak resident memory, and the
# event count (which must match between the two when the change is a pure speed-up).
set -euo pipefail
if [ $# -lt 3 ]; then
    sed -n '2,13p' "$0" >&2
    exit 2
fi
old=$1 new=$2 scenario=$3
shift 3
rounds=1
if [ $# -gt 0 ] && [ "$1" != "--" ]; then
    rounds=$1
    shift
fi
[ $# -gt 0 ] && [ "$1" = "--" ] && shift
for bin in "$old" "$new"; do
    [ -x "$bin" ] || { echo "paired-run: $bin: not an executable" >&2; exit 2; }
done
[ -f "$scenario" ] || { echo "paired-run: $scenario: no such scenario file" >&2; exit 2; }
case "$rounds" in
    '' | *[!0-9]* | 0) echo "paired-run: ROUNDS must be a positive whole number, not '$rounds'" >&2; exit 2 ;;
esac
[ -x /usr/bin/time ] || { echo "paired-run: needs /usr/bin/time (GNU time)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for round in $(seq 1 "$rounds"); do
    pids=()
    for side in old new; do
        bin=$old
        [ "$side" = new ] && bin=$new
        /usr/bin/time -f "%e %U %M" -o "$work/$side.time" \
            "$bin" run "$scenario" "$@" --out "$work/$side-out" -q 2> "$work/$side.err" &
        pids+=($!)
    done
    failed=0
    for k in 0 1; do
        side=old
        [ "$k" = 1 ] && side=new
        if ! wait "${pids[$k]}"; then
            echo "paired-run: the $side binary failed:" >&2
            cat "$work/$side.err" >&2
            failed=1
        fi
    done
    [ "$failed" = 0 ] || exit 1
    for side in old new; do
        read -r wall user rss_kb < "$work/$side.time"
        events=$(grep -o '"events": [0-9]*' "$work/$side-out/summary.json" | head -1 | grep -o '[0-9]*$')
        echo "round $round $side: wall ${wall} s, user ${user} s, max RSS $((rss_kb / 1000)) MB, events ${events}"
    done
done
