#!/usr/bin/env bash
# Byte-for-byte comparison of two bbsim builds on the ready scenarios.
#
#   scripts/compare-outputs.sh OLD_BBSIM NEW_BBSIM [SCENARIO.toml ...]
#
# Runs every scenario with both binaries (default: every runnable scenario in scenarios/, and
# the study's single-application mixes at 2 MB per rank) and compares every output file.
# summary.json is compared without its `run` block (wall time, thread counts and the executor's
# statistics, which vary from run to run where `threads = "auto"` moves a run onto threads),
# its wall-clock fields and the build's commit (bbsim_commit), since those differ from run to
# run and build to build. `bbsim validate --json` is compared too. Exit 0 when everything is identical, 1 when
# something differs (the differing files are named), 2 on usage errors.
#
# COMPARE_RENAMES='old=new,...' compares after renaming, in the old build's files, quoted or
# labelled names that the new build spells differently (for example
# COMPARE_RENAMES='edgeagg=edge-agg,nodelocal=node-local'); summary.json's results_digest,
# which covers those names, is then left out of the comparison.
set -uo pipefail
die() { echo "compare-outputs: $*" >&2; exit 2; }
[[ $# -ge 2 ]] || die "usage: $0 OLD_BBSIM NEW_BBSIM [SCENARIO.toml ...]"
OLD=$(realpath "$1") || die "no such binary: $1"
NEW=$(realpath "$2") || die "no such binary: $2"
shift 2
cd "$(dirname "$0")/.."
WORK=$(mktemp -d "${TMPDIR:-/tmp}/bbsim-compare.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

# name|scenario|extra options
CASES=()
if [[ $# -gt 0 ]]; then
    for s in "$@"; do CASES+=("$(basename "$s" .toml)|$s|"); done
else
    for s in scenarios/*.toml; do
        case "$s" in scenarios/net-*) continue ;; esac
        CASES+=("$(basename "$s" .toml)|$s|")
    done
    for a in gtc hacc s3d lammps; do
        CASES+=("study-$a|scenarios/study/$a.toml|--set jobs.0.bytes_per_rank=2MB")
    done
fi

# Strips the fields that measure the host or name the build, not the model (and, with
# renames, the digest).
HOST_FIELDS='bbsim_commit|wall|wall_time|wall_seconds|elapsed|events_per_second|threads_used'
[[ -n ${COMPARE_RENAMES:-} ]] && HOST_FIELDS="$HOST_FIELDS|results_digest"
strip() {
    python3 -c 'import json, sys
s = json.load(open(sys.argv[1]))
s.pop("run", None)
print(json.dumps(s, indent=2))' "$1" 2>&1 | grep -v -E "\"($HOST_FIELDS)[a-z_]*\":"
}
# The old build's file with COMPARE_RENAMES applied to whole names ("x" or ": x" labels).
SED_RENAMES=()
IFS=',' read -r -a PAIRS <<<"${COMPARE_RENAMES:-}"
for pair in "${PAIRS[@]}"; do
    [[ $pair == *=* ]] || die "COMPARE_RENAMES: expected old=new, got '$pair'"
    SED_RENAMES+=(-e "s/\"${pair%%=*}\"/\"${pair#*=}\"/g" -e "s/: ${pair%%=*}</: ${pair#*=}</g")
done
renamed() { if [[ ${#SED_RENAMES[@]} -gt 0 ]]; then sed "${SED_RENAMES[@]}" "$1"; else cat "$1"; fi; }

status=0
for c in "${CASES[@]}"; do
    IFS='|' read -r name scenario extra <<<"$c"
    for side in old new; do
        bin=$OLD; [[ $side == new ]] && bin=$NEW
        # shellcheck disable=SC2086
        "$bin" run "$scenario" --quiet --out "$WORK/$side/$name" $extra >"$WORK/$side-$name.stdout" 2>"$WORK/$side-$name.stderr"
        echo $? >"$WORK/$side-$name.rc"
        # shellcheck disable=SC2086
        "$bin" validate "$scenario" --json $extra >"$WORK/$side-$name.validate" 2>&1
    done
    diffs=()
    cmp -s "$WORK/old-$name.rc" "$WORK/new-$name.rc" || diffs+=("exit status")
    cmp -s <(renamed "$WORK/old-$name.validate") "$WORK/new-$name.validate" || diffs+=("validate --json")
    if [[ -d $WORK/old/$name || -d $WORK/new/$name ]]; then
        files=$( (cd "$WORK/old/$name" 2>/dev/null && ls; cd "$WORK/new/$name" 2>/dev/null && ls) | sort -u)
        for f in $files; do
            a=$WORK/old/$name/$f b=$WORK/new/$name/$f
            if [[ ! -f $a || ! -f $b ]]; then diffs+=("$f (missing on one side)"); continue; fi
            if [[ $f == summary.json ]]; then
                cmp -s <(renamed "$a" >"$WORK/renamed" && strip "$WORK/renamed") <(strip "$b") || diffs+=("$f")
            else
                cmp -s <(renamed "$a") "$b" || diffs+=("$f")
            fi
        done
    fi
    if [[ ${#diffs[@]} -eq 0 ]]; then
        echo "same     $name"
    else
        echo "DIFFERS  $name: ${diffs[*]}"
        status=1
    fi
done
exit $status
