#!/usr/bin/env bash
# Merge the outputs of several study/reproduce-study.sh runs into one study output.
#
# Usage: study/merge-study.sh OUTPUT_DIR [--skip GLOB | --no-skip | STUDY_DIR]...
#
# The matrix of the study (docs/study.md) takes hours at full scale, so it is often made in
# slices: one system tonight, another overhead tomorrow, control runs later. This script puts
# the slices together as if one reproduce-study.sh run had made them all: sweep.csv, jobs.csv
# and the figures (a) hops.svg and (c) io-phase-<app>-<system>.svg over every run, and the
# timeline figures (b) that the slices drew.
#
# A run is one system, placement, mix (or mix+control) and per-operation overhead. Where
# several STUDY_DIRs hold the same run, the one given last wins, except that a failed run never
# replaces a finished one; each such choice is reported on standard error. The order is that
# of the arguments: a shell glob such as study/archive-units/*/ sorts slice10 before slice2,
# so a slice that re-makes a run must sort after the one it replaces. Sweeps made by builds
# with fewer columns are fitted to the widest header by column name (their missing columns
# are left empty). The runs are not copied: OUTPUT_DIR/runs/<sweep>/ holds a symbolic link to
# each chosen run directory of the slices (summary.json, ranks.csv, ...), so keep the slices.
# Rows of one sweep are ordered by overhead.
#
# --skip GLOB leaves out of every STUDY_DIR given after it the sweeps whose name
# (<system>-<placement>-<mix>[+control]) matches the shell pattern GLOB; --skip adds up, and
# --no-skip ends every --skip so far. This merges archives of different network models
# without mixing them: e.g. the runs of one archive that a later model changed are skipped,
# and the later model's archive, given after --no-skip, supplies them:
#
#     study/merge-study.sh OUT --skip 'edison-grouped-*' --skip 'edison-global-*' \
#         study/archive-units/*/ --no-skip study/archive-spread/*/
#
# Environment:
#   BBSIM=path          the bbsim binary that draws the figures (found as reproduce-study.sh does)
#   STUDY_SCALE=full|smoke   the slices' scale (default full): smoke draws times in ms
#
#   STUDY_OVERHEADS_FATTREE, STUDY_OVERHEADS_DRAGONFLY   the matrix's overheads, for
#                       missing.txt (defaults 0us,20us,45us and 0us,25us,45us)
#
# Output (OUTPUT_DIR must not exist or be empty): sweep.csv, jobs.csv, figures/, runs/,
# sources.txt (which slice each run came from: sweep,overhead,status,slice directory) and
# missing.txt (the runs of the 297-run matrix that no slice finished, one sweep per line:
# system placement mix overheads, to pass to reproduce-study.sh as STUDY_* settings).
set -eu

die() {
    echo "merge-study.sh: $*" >&2
    exit 1
}

[ $# -ge 2 ] || die "usage: study/merge-study.sh OUTPUT_DIR [--skip GLOB | --no-skip | STUDY_DIR]... (STUDY_DIRs: outputs of study/reproduce-study.sh)"
OUT=$1
shift
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/study/study-lib.sh"
find_bbsim

case ${STUDY_SCALE:-full} in
full) UNIT=s UNIT_SCALE=1 ;;
smoke) UNIT=ms UNIT_SCALE=1000 ;;
*) die "STUDY_SCALE=$STUDY_SCALE: expected full or smoke" ;;
esac

# Every sweep of every slice, as "<sweep name> <absolute sweep directory>" lines in the
# order given. A sweep name is <system>-<placement>-<mix>[+control].
LIST=$(mktemp)
trap 'rm -f "$LIST"' EXIT
SKIP=()
SLICES=0
while [ $# -gt 0 ]; do
    d=$1
    shift
    case $d in
    --skip)
        [ $# -gt 0 ] && [ -n "$1" ] || die "--skip: expected a pattern of sweep names after it (e.g. --skip 'edison-global-*')"
        SKIP+=("$1")
        shift
        continue
        ;;
    --no-skip)
        SKIP=()
        continue
        ;;
    -*) die "$d: unknown option (expected --skip GLOB, --no-skip or a study output directory)" ;;
    esac
    [ -d "$d/runs" ] || die "$d: not an output of study/reproduce-study.sh (no runs/ directory)"
    SLICES=$((SLICES + 1))
    abs=$(cd "$d" && pwd)
    for s in "$abs"/runs/*/; do
        s=${s%/}
        [ -f "$s/sweep.csv" ] || continue
        name=$(basename "$s")
        case $name in
        *-node-local-* | *-grouped-* | *-global-*) ;;
        *) die "$s: the name is not <system>-<placement>-<mix> with placement node-local, grouped or global" ;;
        esac
        skipped=0
        for g in "${SKIP[@]}"; do
            # shellcheck disable=SC2254 # the pattern is meant to match
            case $name in $g) skipped=1 ;; esac
        done
        [ $skipped = 1 ] || echo "$name $s" >>"$LIST"
    done
done
[ $SLICES -gt 0 ] || die "no study output directory given, only options"
[ -s "$LIST" ] || die "no sweep with a sweep.csv in the study output directories given (or every one skipped)"

if [ -e "$OUT" ] && [ -n "$(ls -A "$OUT" 2>/dev/null)" ]; then
    die "$OUT exists and is not empty; give a new output directory"
fi
mkdir -p "$OUT/runs" "$OUT/figures/timelines"
OUT=$(cd "$OUT" && pwd)

# Pick each run (sweep name, overhead): the last slice's, unless it failed and an earlier one
# finished. Writes runs/<name>/sweep.csv with the rows ordered by overhead and links to the
# chosen run directories, and sources.txt.
while read -r name dir; do
    echo "$name $dir/sweep.csv"
done <"$LIST" | awk -v out="$OUT" "$STUDY_AWK_FIELDS"'
    function ps(v,   n, u) {
        n = v + 0; u = v; sub(/^[0-9.]+/, "", u)
        return n * (u == "s" ? 1e12 : u == "ms" ? 1e9 : u == "us" ? 1e6 : u == "ns" ? 1e3 : 1)
    }
    {
        name = $1; file = $2; first = 1
        while ((getline line < file) > 0) {
            if (first) {
                first = 0
                n = split(line, h, ","); ocol = 0; scol = 0; dcol = 0
                for (i = 1; i <= n; i++) {
                    if (h[i] == "burst_buffer.ssd.op_overhead") ocol = i
                    if (h[i] == "status") scol = i
                    if (h[i] == "dir") dcol = i
                }
                if (!ocol || !scol || !dcol) {
                    print "merge-study.sh: " file ": expected the columns dir, burst_buffer.ssd.op_overhead and status of bbsim sweep" > "/dev/stderr"
                    failed = 1; exit 1
                }
                # The header of every slice, for the merged header of the sweep (see END).
                nh[name]++; header[name, nh[name]] = line
                continue
            }
            delete f
            fields(line, f)
            key = name SUBSEP f[ocol]
            if (key in status) {
                here = file; sub(/\/runs\/[^\/]*\/sweep\.csv$/, "", here)
                there = src[key]; sub(/\/runs\/[^\/]*\/sweep\.csv$/, "", there)
                # Say which of two slices holding one run is taken: the order of the
                # arguments decides, and a shell glob sorts slice10 before slice2.
                if (status[key] == "ok" && f[scol] != "ok") {
                    print "merge-study.sh: " name " at " f[ocol] ": keeping the finished run of " there ", not the failed one of " here > "/dev/stderr"
                    continue
                }
                print "merge-study.sh: " name " at " f[ocol] ": taking the run of " here " (given later), not that of " there > "/dev/stderr"
            }
            if (!(key in status)) { order[name] = order[name] SUBSEP f[ocol] }
            # Kept by column name, so rows of builds with fewer columns fit the merged header.
            for (i = 1; i <= n; i++) val[key, h[i]] = f[i]
            hdr[key] = n
            for (i = 1; i <= n; i++) colname[key, i] = h[i]
            status[key] = f[scol]; src[key] = file; rundir[key] = f[dcol]
        }
        close(file)
    }
    END {
        if (failed) exit 1
        # The merged header of a sweep: the columns of the last slice, then those only
        # earlier slices have (columns of older builds), each once.
        for (name in nh) {
            merged[name] = ""
            for (k = nh[name]; k >= 1; k--) {
                n = split(header[name, k], h, ",")
                for (i = 1; i <= n; i++) {
                    if ((name, h[i]) in named) continue
                    named[name, h[i]] = 1
                    merged[name] = merged[name] (merged[name] == "" ? "" : ",") h[i]
                }
            }
        }
        for (name in merged) {
            m = split(substr(order[name], 2), ovh, SUBSEP)
            # insertion sort by overhead in picoseconds
            for (i = 2; i <= m; i++) {
                v = ovh[i]; j = i - 1
                while (j >= 1 && ps(ovh[j]) > ps(v)) { ovh[j + 1] = ovh[j]; j-- }
                ovh[j + 1] = v
            }
            dir = out "/runs/" name
            system("mkdir -p \"" dir "\"")
            print merged[name] > (dir "/sweep.csv")
            n = split(merged[name], h, ",")
            for (i = 1; i <= m; i++) {
                key = name SUBSEP ovh[i]
                # Only the chosen row: val[] may still hold a column that only a replaced
                # row had, so take each column only if the header of the chosen row has it.
                delete have
                for (c = 1; c <= hdr[key]; c++) have[colname[key, c]] = 1
                line = ""
                for (c = 1; c <= n; c++) line = line (c > 1 ? "," : "") (h[c] in have ? val[key, h[c]] : "")
                print line > (dir "/sweep.csv")
                s = src[key]; sub(/\/sweep\.csv$/, "", s)
                print name "," ovh[i] "," status[key] "," s > (out "/sources.txt")
                if (rundir[key] != "") print s "/" rundir[key] "\t" dir "/" rundir[key] > (out "/links.tsv")
            }
            close(dir "/sweep.csv")
        }
    }'
while IFS="$(printf '\t')" read -r from to; do
    if [ -e "$from" ]; then ln -s "$from" "$to"; fi
done <"$OUT/links.tsv"
rm -f "$OUT/links.tsv"
sort -o "$OUT/sources.txt" "$OUT/sources.txt"

# The timeline figures the slices drew for the sweeps taken from them (the last slice's where
# several drew one; a slice's figure of a skipped sweep is left out).
while read -r name dir; do
    case $name in *+control) continue ;; esac
    sys_mix=$(echo "$name" | sed -E 's/^(.*)-(node-local|grouped|global)-(.*)$/\3-\1-\2/')
    f="$(dirname "$(dirname "$dir")")/figures/timelines/$sys_mix.svg"
    if [ -f "$f" ]; then cp "$f" "$OUT/figures/timelines/"; fi
done <"$LIST"

# Systems, placements and mixes found, in the study's order, then any others by name.
NAMES=$(cut -d' ' -f1 "$LIST" | sort -u)
PLACEMENTS=""
for p in $STUDY_ALL_PLACEMENTS; do
    if echo "$NAMES" | grep -q -- "-$p-"; then PLACEMENTS="$PLACEMENTS $p"; fi
done
split_name() { # name -> "system mix" (mix without +control)
    echo "$1" | sed -E 's/\+control$//; s/^(.*)-(node-local|grouped|global)-(.*)$/\1 \3/'
}
FOUND_SYSTEMS=$(for n in $NAMES; do split_name "$n" | cut -d' ' -f1; done | sort -u)
FOUND_MIXES=$(for n in $NAMES; do split_name "$n" | cut -d' ' -f2; done | sort -u)
in_list() { case " $(echo $2) " in *" $1 "*) return 0 ;; esac; return 1; }
SYSTEMS=""
for s in $STUDY_ALL_SYSTEMS; do if in_list "$s" "$FOUND_SYSTEMS"; then SYSTEMS="$SYSTEMS $s"; fi; done
for s in $FOUND_SYSTEMS; do if ! in_list "$s" "$STUDY_ALL_SYSTEMS"; then SYSTEMS="$SYSTEMS $s"; fi; done
MIXES=""
for m in $STUDY_ALL_MIXES; do if in_list "$m" "$FOUND_MIXES"; then MIXES="$MIXES $m"; fi; done
for m in $FOUND_MIXES; do if ! in_list "$m" "$STUDY_ALL_MIXES"; then MIXES="$MIXES $m"; fi; done

study_collect
RUNS=$(($(wc -l <"$OUT/sweep.csv") - 1))

# The runs of the whole matrix (3 systems x 3 placements x 11 mixes x 3 overheads) that no
# slice finished, one sweep per line with the overheads it lacks.
OVH_FATTREE=${STUDY_OVERHEADS_FATTREE:-0us,20us,45us}
OVH_DRAGONFLY=${STUDY_OVERHEADS_DRAGONFLY:-0us,25us,45us}
MISSING=0
: >"$OUT/missing.txt"
for sys in $STUDY_ALL_SYSTEMS; do
    case $sys in edison*) OVH=$OVH_DRAGONFLY ;; *) OVH=$OVH_FATTREE ;; esac
    for mix in $STUDY_ALL_MIXES; do for pl in $STUDY_ALL_PLACEMENTS; do
        lacking=""
        for o in $(echo "$OVH" | tr ',' ' '); do
            if ! grep -q "^$sys-$pl-$mix,$o,ok," "$OUT/sources.txt"; then
                lacking="$lacking${lacking:+,}$o"
                MISSING=$((MISSING + 1))
            fi
        done
        if [ -n "$lacking" ]; then echo "$sys $pl $mix $lacking" >>"$OUT/missing.txt"; fi
    done; done
done
echo "merged $SLICES study outputs: $RUNS runs of $(echo $SYSTEMS | wc -w) systems, $(echo $MIXES | wc -w) mixes; figures in $OUT/figures, results in $OUT/sweep.csv and $OUT/jobs.csv, where each run came from in $OUT/sources.txt"
echo "the matrix lacks $MISSING runs (system placement mix overheads, one sweep per line, in $OUT/missing.txt)"
