#!/usr/bin/env bash
# Keep the results of a study slice in the repository, so that later slices can be merged with it.
#
# Usage: study/archive-study.sh STUDY_DIR ARCHIVE_DIR
#
# A full-scale study output (study/reproduce-study.sh, or a merge of several by
# study/merge-study.sh) holds gigabytes of per-run outputs, but the study's results are its
# sweeps' sweep.csv files: a few hundred bytes per run. This script copies exactly those,
# as ARCHIVE_DIR/runs/<system>-<placement>-<mix>[+control]/sweep.csv, and writes
# ARCHIVE_DIR/provenance.txt (when, which bbsim and source commit, which machine, from which
# directory, and, for a merged output, its sources.txt). An archive is itself a valid
# STUDY_DIR for study/merge-study.sh: merging archives gives the same sweep.csv, jobs.csv and
# figures (a) and (c) as merging the slices they came from (the timeline figures and the links
# to run directories are what an archive leaves out). study/archive/ holds the archives of the
# full-scale runs (docs/study.md).
#
# Environment:
#   BBSIM=path          the bbsim binary whose version provenance.txt records (found as
#                       reproduce-study.sh does)
set -eu

die() {
    echo "archive-study.sh: $*" >&2
    exit 1
}

[ $# -eq 2 ] || die "usage: study/archive-study.sh STUDY_DIR ARCHIVE_DIR"
SRC=$1
ARCHIVE=$2
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/study/study-lib.sh"

[ -d "$SRC/runs" ] || die "$SRC: not an output of study/reproduce-study.sh or merge-study.sh (no runs/ directory)"
SRC=$(cd "$SRC" && pwd)
SWEEPS=""
for s in "$SRC"/runs/*/; do
    s=${s%/}
    [ -f "$s/sweep.csv" ] || continue
    name=$(basename "$s")
    case $name in
    *-node-local-* | *-grouped-* | *-global-*) ;;
    *) die "$s: the name is not <system>-<placement>-<mix> with placement node-local, grouped or global" ;;
    esac
    head -n1 "$s/sweep.csv" | grep -Eq '^run,dir,burst_buffer\.ssd\.op_overhead,(burst_buffer\.ssd\.op_overhead_s,)?status,' ||
        die "$s/sweep.csv: expected the header of bbsim sweep (run,dir,burst_buffer.ssd.op_overhead,status,...)"
    SWEEPS="$SWEEPS $name"
done
[ -n "$SWEEPS" ] || die "$SRC: no sweep with a sweep.csv under runs/"
if [ -e "$ARCHIVE" ] && [ -n "$(ls -A "$ARCHIVE" 2>/dev/null)" ]; then
    die "$ARCHIVE exists and is not empty; give a new archive directory"
fi
find_bbsim

# Written under a temporary name and renamed, so an interrupted archive leaves nothing behind.
mkdir -p "$(dirname "$ARCHIVE")"
TMP=$(mktemp -d "$(dirname "$ARCHIVE")/.archive-study.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
ROWS=0
for name in $SWEEPS; do
    mkdir -p "$TMP/runs/$name"
    cp "$SRC/runs/$name/sweep.csv" "$TMP/runs/$name/sweep.csv"
    ROWS=$((ROWS + $(wc -l <"$SRC/runs/$name/sweep.csv") - 1))
done
study_provenance "by study/archive-study.sh" "$SRC" >"$TMP/provenance.txt"
echo "sweeps: $(echo $SWEEPS | wc -w), rows (runs): $ROWS" >>"$TMP/provenance.txt"
if [ -f "$SRC/sources.txt" ]; then
    echo "sources.txt of the merged output (sweep,overhead,status,slice directory):"
    sed 's/^/  /' "$SRC/sources.txt"
fi >>"$TMP/provenance.txt"
rmdir "$ARCHIVE" 2>/dev/null || true
mv "$TMP" "$ARCHIVE"
trap - EXIT
echo "archived $ROWS runs of $(echo $SWEEPS | wc -w) sweeps in $ARCHIVE (merge it with study/merge-study.sh)"
