#!/usr/bin/env bash
# Compare a study's results with reference results, run by run.
#
# Usage: study/compare-study.sh CANDIDATE REFERENCE...
#
# The value compared is figure (c)'s: each application's slowest rank's time in I/O in its
# first I/O phase (phase1_time_in_io_max_s, seconds), for every system, placement, job,
# setting (alone / with <others> / apart from <others> (same nodes)) and per-operation
# overhead that the candidate and a reference both hold. Use it to check a new build, a
# faster network or SSD model, or another packet size against the packet-model runs on record
# (study/archive/: merge the archives first, and add slices-6-11-figure-c.csv).
#
# CANDIDATE and each REFERENCE is either a study output (a directory holding the jobs.csv of
# study/reproduce-study.sh or study/merge-study.sh) or a CSV file with the header
# system,job,setting,placement,op_overhead,phase1_time_in_io_max_s (the form of
# study/archive/slices-6-11-figure-c.csv). Where several references hold the same run, the
# one given last wins. A reference value's rounding (half a unit of its last digit: 0.5 ms for
# the figure CSV's "3.887") is allowed for on top of the tolerance.
#
# Environment:
#   COMPARE_TOLERANCE=pct   also fail (exit status 2) when a matched value differs from its
#                           reference by more than pct percent plus the reference's rounding;
#                           without it every comparison passes and only the table is printed
#
# Output: on stdout a CSV, one row per matched run and job, in the candidate's order:
#   system,placement,job,setting,op_overhead,reference_s,candidate_s,difference_pct,within
# (difference_pct = 100 x (candidate / reference - 1); within = yes, no, or - without a
# tolerance); on stderr the number matched, the candidate's rows without a reference, and the
# largest difference per job. Exit status 1 for bad input or when nothing matches, 2 when a
# value lies outside COMPARE_TOLERANCE.
set -eu

die() {
    echo "compare-study.sh: $*" >&2
    exit 1
}

[ $# -ge 2 ] || die "usage: study/compare-study.sh CANDIDATE REFERENCE... (study output directories with a jobs.csv, or CSVs with the columns of study/archive/slices-6-11-figure-c.csv)"
TOL=${COMPARE_TOLERANCE:-}
if [ -n "$TOL" ]; then
    echo "$TOL" | grep -Eq '^[0-9]+(\.[0-9]+)?$' ||
        die "COMPARE_TOLERANCE=$TOL: expected a percentage such as 2 or 0.5"
fi

# The CSV behind an argument: DIR/jobs.csv or the file itself.
csv_of() {
    if [ -d "$1" ]; then
        [ -f "$1/jobs.csv" ] || die "$1: no jobs.csv (expected an output of study/reproduce-study.sh or study/merge-study.sh)"
        echo "$1/jobs.csv"
    elif [ -f "$1" ]; then
        echo "$1"
    else
        die "$1: no such file or directory"
    fi
}

CAND=$(csv_of "$1")
shift
REFS=()
for r in "$@"; do REFS+=("$(csv_of "$r")"); done

# Every file is read by the same header check: the key columns and the value by name, a
# non-negative number in every row. Reference files come first (file index 1..n), the
# candidate last.
awk -F, -v nref=${#REFS[@]} -v tol="$TOL" '
    function fail(msg) { print "compare-study.sh: " msg > "/dev/stderr"; bad = 1; exit 1 }
    FNR == 1 {
        file++
        split("", col)
        for (i = 1; i <= NF; i++) col[$i] = i
        split("system placement job setting op_overhead phase1_time_in_io_max_s", need, " ")
        for (i = 1; i <= 6; i++)
            if (!(need[i] in col))
                fail(FILENAME ": no column " need[i] " in the header (expected a study jobs.csv or system,job,setting,placement,op_overhead,phase1_time_in_io_max_s)")
        next
    }
    {
        key = $col["system"] "," $col["placement"] "," $col["job"] "," $col["setting"] "," $col["op_overhead"]
        v = $col["phase1_time_in_io_max_s"]
        if (v !~ /^[0-9]+(\.[0-9]*)?([eE][-+]?[0-9]+)?$/)
            fail(FILENAME ":" FNR ": phase1_time_in_io_max_s is \"" v "\", expected a time in seconds")
        if (file <= nref) {
            # Half a unit of the last digit written.
            half = 0
            if (v ~ /\./ && v !~ /[eE]/) { d = v; sub(/^[^.]*\./, "", d); half = 0.5 * 10 ^ -length(d) }
            ref[key] = v; refhalf[key] = half
            next
        }
        if (!(key in ref)) { unmatched++; next }
        r = ref[key] + 0; c = v + 0
        if (r == 0) fail(FILENAME ":" FNR ": the reference of " key " is 0 s; no relative difference")
        diff = 100 * (c / r - 1)
        within = "-"
        if (tol != "") {
            allowed = tol / 100 * r + refhalf[key]
            within = ((c - r <= allowed && r - c <= allowed) ? "yes" : "no")
            if (within == "no") outside++
        }
        if (!matched) print "system,placement,job,setting,op_overhead,reference_s,candidate_s,difference_pct,within"
        printf "%s,%s,%s,%.3f,%s\n", key, ref[key], v, diff, within
        matched++
        split(key, k, ",")
        a = (diff < 0 ? -diff : diff)
        if (!(k[3] in worst)) jobs[++njobs] = k[3]
        if (!(k[3] in worst) || a > worst[k[3]]) { worst[k[3]] = a; worstkey[k[3]] = key; worstdiff[k[3]] = diff }
    }
    END {
        if (bad) exit 1
        if (!matched) { print "compare-study.sh: no run and job of the candidate has a reference" > "/dev/stderr"; exit 1 }
        printf "compare-study.sh: %d runs and jobs matched a reference, %d of the candidate had none\n", matched, unmatched + 0 > "/dev/stderr"
        for (i = 1; i <= njobs; i++)
            printf "  %s: largest difference %+.3f %% (%s)\n", jobs[i], worstdiff[jobs[i]], worstkey[jobs[i]] > "/dev/stderr"
        if (tol != "") {
            printf "compare-study.sh: %d outside %s %% (plus the reference'"'"'s rounding)\n", outside + 0, tol > "/dev/stderr"
            if (outside > 0) exit 2
        }
    }' "${REFS[@]}" "$CAND"
