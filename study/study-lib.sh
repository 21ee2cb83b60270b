# Shared by study/reproduce-study.sh and study/merge-study.sh (sourced, not run): finding
# the bbsim binary, and collecting a study output directory's sweeps into sweep.csv, jobs.csv
# and the figures. The sourcing script defines die() and ROOT (the repository root).

# Sets BBSIM: $BBSIM if given, else `bbsim` on PATH, else the release build.
find_bbsim() {
    if [ -n "${BBSIM:-}" ]; then
        [ -x "$BBSIM" ] || command -v "$BBSIM" >/dev/null 2>&1 ||
            die "BBSIM=$BBSIM is not an executable"
    elif command -v bbsim >/dev/null 2>&1; then
        BBSIM=bbsim
    elif [ -n "${CARGO_TARGET_DIR:-}" ] && [ -x "$CARGO_TARGET_DIR/release/bbsim" ]; then
        BBSIM=$CARGO_TARGET_DIR/release/bbsim
    elif [ -x "$ROOT/target/release/bbsim" ]; then
        BBSIM=$ROOT/target/release/bbsim
    else
        die "bbsim not found: build it (cargo build --release -p bbsim) and put it on PATH, or set BBSIM=/path/to/bbsim"
    fi
}

# The study's systems, placements and mixes in the order its outputs list them.
STUDY_ALL_SYSTEMS="summit summit-tapered edison"
STUDY_ALL_PLACEMENTS="node-local grouped global"
STUDY_ALL_MIXES="gtc gtc-ior gtc-s3d gtc-s3d-hacc hacc hacc-ior lammps lammps-ior s3d s3d-ior s3d-lammps"
# An awk function for the study's CSVs: fields(line, v) splits a CSV line into v[1..n] and
# returns n, keeping a quoted field (the message of a failed run, which may hold commas) whole
# and quoted, so that joining v with commas gives the line back.
STUDY_AWK_FIELDS='
    function fields(line, v,   n, q, c, i, ch) {
        n = 1; q = 0; c = ""
        for (i = 1; i <= length(line); i++) {
            ch = substr(line, i, 1)
            if (ch == "\"") q = !q
            if (ch == "," && !q) { v[n++] = c; c = "" } else c = c ch
        }
        v[n] = c
        return n
    }'
# The per-job columns of the merged sweep.csv (bbsim sweep's, without the job<N>_ prefix), in
# order. Builds before the percentiles wrote no time_in_io_p99_s; builds before the tidy
# sweep.csv wrote each phase's figures as `;`-separated lists (io_phase_time_in_io_max_s,
# io_phase_time_in_io_p99_s), whose first entries are the phase1_... columns; builds before
# the per-packet routing figures wrote no packet_hops and packet_nonminimal_share.
# jobs.csv has the same figures per job: STUDY_JOB_METRICS, then the run's overhead in seconds,
# then STUDY_JOB_ROUTING (appended when the builds began to write them).
STUDY_JOB_METRICS="io_phase_s time_in_io_mean_s time_in_io_max_s bandwidth_Bps avg_hops nonminimal_fraction io_phases phase1_time_in_io_max_s time_in_io_p99_s phase1_time_in_io_p99_s"
STUDY_JOB_ROUTING="packet_hops packet_nonminimal_share"
STUDY_JOB_COLUMNS="name $STUDY_JOB_METRICS $STUDY_JOB_ROUTING"
# An awk function: seconds(v) is the duration v (a number with the unit s, ms, us or ns) in
# seconds, as bbsim sweep writes it (exact decimals, no trailing zeros).
STUDY_AWK_SECONDS='
    function seconds(v,   n, u, s) {
        n = v + 0; u = v; sub(/^[0-9.]+/, "", u)
        s = sprintf("%.12f", n / (u == "s" ? 1 : u == "ms" ? 1e3 : u == "us" ? 1e6 : u == "ns" ? 1e9 : 1))
        sub(/0+$/, "", s); sub(/\.$/, "", s)
        return s
    }'

# Builds $OUT/sweep.csv, $OUT/jobs.csv, $OUT/figures/hops.svg and the figures
# $OUT/figures/io-phase-<app>-<system>.svg from the sweeps $OUT/runs/<system>-<placement>-<mix>
# and $OUT/runs/<system>-<placement>-<mix>+control (each with bbsim sweep's sweep.csv), taking
# systems, placements and mixes in the order of $SYSTEMS, $PLACEMENTS and $MIXES. Times in the
# figures are in $UNIT (the CSVs' seconds times $UNIT_SCALE). Needs $BBSIM.
study_collect() {
    # One sweep.csv for the whole matrix, every row with job0..job2 columns; the mixes of one
    # application alone come first, so that figures list "alone" before the co-scheduled runs.
    ORDERED="$(for m in $MIXES; do case $m in *-*) ;; *) echo "$m" ;; esac; done)
    $(for m in $MIXES; do case $m in *-*) echo "$m" ;; esac; done)
    $(for m in $MIXES; do case $m in *-*) echo "$m+control" ;; esac; done)"
    first=1
    for sys in $SYSTEMS; do for mix in $ORDERED; do for pl in $PLACEMENTS; do
        f="$OUT/runs/$sys-$pl-$mix/sweep.csv"
        [ -f "$f" ] || continue
        # Columns are taken by name: the run columns in the first sweep's order (the
        # overhead in seconds after the overhead as given), then $STUDY_JOB_COLUMNS for
        # job0..job2, left empty where a sweep (an older build's, or one with fewer jobs)
        # lacks them.
        if [ $first = 1 ]; then
            RUN_COLUMNS=$(head -n 1 "$f" | awk -F, '{
                for (i = 1; i <= NF && $i != "job0_name"; i++) {
                    if ($i == "burst_buffer.ssd.op_overhead_s") continue
                    printf "%s ", $i
                    if ($i == "burst_buffer.ssd.op_overhead") printf "%s_s ", $i
                }
            }')
        fi
        awk -v sys="$sys" -v pl="$pl" -v mix="$mix" -v first=$first -v jobcols="$STUDY_JOB_COLUMNS" \
            -v runcols="$RUN_COLUMNS" -F, "$STUDY_AWK_FIELDS$STUDY_AWK_SECONDS"'
            NR == 1 {
                for (i = 1; i <= NF; i++) col[$i] = i
                nr = split(runcols, rc, " "); nj = split(jobcols, jc, " ")
                if (first) {
                    h = "system,placement,mix"
                    for (i = 1; i <= nr; i++) { c = rc[i]; sub(/^burst_buffer\.ssd\./, "", c); h = h "," c }
                    for (j = 0; j < 3; j++) for (i = 1; i <= nj; i++) h = h ",job" j "_" jc[i]
                    print h
                }
                next
            }
            # Column c of the row; for builds without it, the overhead in seconds from the
            # overhead as given, and a first phase figure from its per-phase list.
            function cell(c,   l, old) {
                if (c in col) return v[col[c]]
                if (c == "burst_buffer.ssd.op_overhead_s" && "burst_buffer.ssd.op_overhead" in col)
                    return seconds(v[col["burst_buffer.ssd.op_overhead"]])
                old = c; sub(/_phase1_/, "_io_phase_", old)
                if (old != c && old in col) { split(v[col[old]], l, ";"); return l[1] }
                return ""
            }
            {
                delete v
                fields($0, v)
                line = sys "," pl "," mix
                for (i = 1; i <= nr; i++) line = line "," cell(rc[i])
                for (j = 0; j < 3; j++) for (i = 1; i <= nj; i++) line = line "," cell("job" j "_" jc[i])
                print line
            }' "$f" >>"$OUT/sweep.csv" || die "collecting $f failed"
        first=0
    done; done; done
    [ -f "$OUT/sweep.csv" ] || die "no sweep finished; see $OUT/runs/*.log"

    # One row per run and job (ok runs only; a control's first job is left out), for the figures.
    awk -F, -v metrics="$STUDY_JOB_METRICS" -v routing="$STUDY_JOB_ROUTING" '
        # The job columns, then the run overhead in seconds, then the per-packet routing.
        NR == 1 {
            for (i = 1; i <= NF; i++) col[$i] = i
            nm = split(metrics, m, " ")
            np = split(routing, pk, " ")
            h = "system,placement,mix,op_overhead,job,setting"
            for (i = 1; i <= nm; i++) h = h "," m[i]
            h = h ",op_overhead_s"
            for (i = 1; i <= np; i++) h = h "," pk[i]
            print h
            next
        }
        $col["status"] != "ok" { next }
        {
            for (j = 0; j < 3; j++) {
                name = $col["job" j "_name"]; if (name == "") continue
                others = ""
                for (o = 0; o < 3; o++) if (o != j && $col["job" o "_name"] != "") others = others (others == "" ? "" : "+") $col["job" o "_name"]
                setting = (others == "" ? "alone" : "with " others)
                mix = $3
                if (sub(/\+control$/, "", mix)) {
                    # The first job of a control wrote a token size: its control is its run alone.
                    if (j == 0) continue
                    setting = "apart from " others " (same nodes)"
                }
                printf "%s,%s,%s,%s,%s,%s", $1, $2, mix, $col["op_overhead"], name, setting
                # Older builds wrote no percentiles and no per-packet routing: their cells
                # are empty.
                for (i = 1; i <= nm; i++) printf ",%s", $col["job" j "_" m[i]]
                printf ",%s", $col["op_overhead_s"]
                for (i = 1; i <= np; i++) printf ",%s", $col["job" j "_" pk[i]]
                printf "\n"
            }
        }' "$OUT/sweep.csv" >"$OUT/jobs.csv"

    "$BBSIM" plot bars "$OUT/jobs.csv" --value avg_hops --label job,system --group placement \
        --title "Average I/O hops per application, topology and placement (mean over mixes and overheads)" \
        --unit hops --axis "average I/O path length" --out "$OUT/figures/hops.svg" >/dev/null || die "drawing figures/hops.svg failed"
    for app in gtc hacc lammps s3d; do
        for sys in $SYSTEMS; do
            grep -q "^$sys,[^,]*,[^,]*,[^,]*,$app," "$OUT/jobs.csv" || continue
            "$BBSIM" plot bars "$OUT/jobs.csv" --value phase1_time_in_io_max_s --label setting,op_overhead --group placement \
                --where "job=$app" --where "system=$sys" \
                --title "$(echo "$app" | tr a-z A-Z) on $sys: slowest rank's time in I/O in the first I/O phase, alone and co-scheduled" \
                --unit "$UNIT" --scale "$UNIT_SCALE" --axis "slowest rank's time in I/O, first I/O phase" \
                --out "$OUT/figures/io-phase-$app-$sys.svg" >/dev/null ||
                die "drawing figures/io-phase-$app-$sys.svg failed"
        done
    done
}

# Prints the lines of an archive's provenance.txt that say how its runs were made:
# study_provenance "how it was archived" source-directory. Needs $BBSIM and $ROOT.
study_provenance() {
    echo "archived: $(date -u '+%Y-%m-%d %H:%M UTC') $1"
    echo "from: $2"
    echo "bbsim: $("$BBSIM" --version 2>/dev/null || echo unknown) ($BBSIM)"
    echo "checkout: $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown) (the scripts' repository; bbsim may be built from another commit)"
    echo "machine: $(uname -sm), $(getconf _NPROCESSORS_ONLN 2>/dev/null || echo '?') cores, $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | sed 's/.*: //' || echo 'CPU unknown')"
}

# Copies a finished sweep's sweep.csv into the archive $STUDY_ARCHIVE_DIR (if set) as
# runs/<name>/sweep.csv, under a temporary name first: study_archive_sweep sweep-dir name.
study_archive_sweep() {
    [ -n "${STUDY_ARCHIVE_DIR:-}" ] && [ -f "$1/sweep.csv" ] || return 0
    mkdir -p "$STUDY_ARCHIVE_DIR/runs/$2"
    cp "$1/sweep.csv" "$STUDY_ARCHIVE_DIR/runs/$2/.sweep.csv.part"
    mv "$STUDY_ARCHIVE_DIR/runs/$2/.sweep.csv.part" "$STUDY_ARCHIVE_DIR/runs/$2/sweep.csv"
}
