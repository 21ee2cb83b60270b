#!/usr/bin/env bash
# Reproduce the burst-buffer placement study (docs/study.md) end to end with bbsim.
#
# Usage: study/reproduce-study.sh OUTPUT_DIR
#
# Runs the study's matrix with `bbsim sweep` and draws its figures:
#   3 systems     summit, summit-tapered, edison   (scenarios/<system>-<placement>.toml)
#   3 placements  node-local, grouped, global
#   11 mixes      Table III (scenarios/study/<mix>.toml): each application alone, and with
#                 IOR or another application co-scheduled
#   3 overheads   per-operation device overhead 0, 20 (fat-trees) or 25 us (dragonfly), 45 us
# = 297 runs. For each system, placement and mix the script builds one scenario (the system
# file's machine above the mix file's [[jobs]]) and sweeps burst_buffer.ssd.op_overhead over it.
# In mixes with IOR, the mix file itself places IOR next to the application (allocation =
# "next-to": the free nodes nearest in node id to the application's fragmented nodes).
#
# Scale (environment variable STUDY_SCALE):
#   full   (default) the study's rank counts and bytes per rank (scenarios/study/*.toml as
#          written: GTC 7,680 ranks x 669.41 MB, ..., IOR 768 x 1 GiB) on the full machines.
#          About 39 TB written per system, placement and overhead: a long run (docs/study.md).
#   smoke  every application 48 ranks x 4 MB, IOR 12 ranks x 4 MiB; the Edison-like machine
#          shrunk to 3 groups (1,024 compute nodes; 128 BB servers for grouped and global,
#          keeping the aggregate BB bandwidth of the three placements equal); the fat-trees
#          stay full size. The whole matrix, figures included, in about a minute on 2 cores.
#          It checks the pipeline, not the study's numbers.
#
# Other environment variables:
#   BBSIM=path                 the bbsim binary (default: `bbsim` on PATH, then
#                              $CARGO_TARGET_DIR/release/bbsim, then target/release/bbsim)
#   STUDY_JOBS=N               runs at the same time (default 1): N sweeps at once, one run
#                              at a time each, so no core waits while a sweep's last run
#                              finishes; a plan of fewer than N sweeps runs each sweep's
#                              runs N / sweeps at a time. Sweeps end in any order; every
#                              sweep started is a line of OUTPUT_DIR/sweeps.txt, every failed
#                              one of failed.txt. Memory: a full-scale run measured so far
#                              takes up to 1.7 GB (the LAMMPS mixes, with their millions of
#                              small files; docs/performance.md), so 2 at once fit an 8 GB
#                              laptop
#   STUDY_PACKET_SIZE=size     network packet size (default 4KiB, moved in 64 KiB units: the
#                              model checked against 4 KiB packets one at a time in
#                              docs/network.md, "Convergence"; 64KiB with
#                              STUDY_NETWORK_MODEL=path, 4MiB with STUDY_NETWORK_MODEL=flow).
#                              Setting it moves packets of that size one at a time unless
#                              STUDY_UNIT_SIZE is set too (STUDY_PACKET_SIZE=64KiB is the
#                              archived matrix's setting, study/archive/)
#   STUDY_VC_BUFFER=size       network.vc_buffer, the routers' input buffer per port and
#                              virtual channel (packet model only; default: the scenario's,
#                              64 KiB whatever the packet size). Packets above 64 KiB need it
#                              set to hold at least one packet: the GTC convergence check
#                              (docs/study.md) found the buffer moves the Summit-like global
#                              figures about as much as the packet size
#   STUDY_UNIT_SIZE=size|none  simulation.unit_size: the packet model moves each message in
#                              units of up to this many bytes of whole packets (packet model
#                              only; default 64KiB when STUDY_PACKET_SIZE is not set, none
#                              otherwise; none: every packet on its own)
#   STUDY_NETWORK_MODEL=packet|path|flow   network.model (default packet: router LPs; path:
#                              the cheaper path model, docs/network.md 2b, with its known gaps;
#                              flow: the flow model, 2c, with 4 MiB packets by default so
#                              that each message is one flow; experimental, docs/study.md)
#   STUDY_SSD_MODEL=per-ssd|array     burst_buffer.ssd_model (default per-ssd; array: one pooled
#                              device per BB server, docs/storage.md, optimistic)
#   STUDY_SYSTEMS, STUDY_PLACEMENTS, STUDY_MIXES   space-separated subsets of the above
#   STUDY_OVERHEADS_FATTREE, STUDY_OVERHEADS_DRAGONFLY   comma-separated overheads
#                              (defaults 0us,20us,45us and 0us,25us,45us)
#   STUDY_RUNS=file            run exactly the sweeps listed in the file instead of the product
#                              of the four settings above (which must then be unset): one
#                              sweep per line, "system placement mix overheads", e.g.
#                              "summit global gtc 0us,45us"; blank lines and # comments are
#                              skipped. study/merge-study.sh writes the runs a matrix still
#                              lacks in this form (missing.txt), so a slice that makes all of
#                              them is STUDY_RUNS=<merged>/missing.txt
#   STUDY_ARCHIVE=dir          also keep each sweep's results in dir (which must not exist or be
#                              empty) as soon as the sweep ends: dir/runs/<sweep>/sweep.csv and
#                              dir/provenance.txt, the form of study/archive-study.sh, so a
#                              slice cut short still leaves its finished sweeps there (the
#                              full-scale runs are archived in study/archive/)
#   STUDY_HUGE_PAGES=1|0       back the heap with 2 MiB transparent huge pages (default 1):
#                              exports GLIBC_TUNABLES=glibc.malloc.hugetlb=1 for the bbsim
#                              runs (glibc 2.35 or later; ignored elsewhere) unless
#                              GLIBC_TUNABLES is already set. A full-scale run's per-unit state
#                              is gigabytes of small blocks touched at random, and 4 KiB pages
#                              make it TLB-bound: 7-11 % less CPU time at a few hundred MB,
#                              19-23 % on GTC at full scale, a little more memory, identical
#                              outputs (docs/performance.md, "Huge pages for the heap")
#   STUDY_TIMELINE_WINDOW=s    the timeline figures show the I/O that starts within this many
#                              seconds of a run's first I/O (default 100: the first I/O phase
#                              of every application; S3D and HACC compute 300 and 600 s
#                              between their phases)
#   STUDY_HEARTBEAT=DURATION   each run prints a line into its sweep's log (SWEEP.log; with
#                              STUDY_SLURM=plan, the task's Slurm log) this often while it
#                              goes on: simulated time reached, events, their rate (bbsim
#                              --heartbeat; default 10min, `off` for none)
#   STUDY_KEEP_TIMELINES=0|1   keep every run's timeline.csv (default: 1 for smoke; 0 for
#                              full, where they add up to tens of GB: each is deleted once the
#                              timeline figure has been drawn)
#   STUDY_CONTROLS=0|1|only    also run each mix of two or three jobs as a control (default 0):
#                              the same scenario with job k (k >= 1) submitted k x 10^6 s later,
#                              so every job runs on the nodes it has in the mix with no other
#                              job's I/O in flight. Allocation does not depend on start times,
#                              so this separates what the neighbour does from what the
#                              fragmented allocation does (only a mix's first job gets the
#                              nodes of its run alone; docs/study.md). The first job's control
#                              is its run alone (same nodes, no neighbour), so in the control
#                              it writes a token 1 MB per rank (1 MiB for an IOR job) and only
#                              the later jobs' rows are kept: one more run per mix, system,
#                              placement and overhead, costing what the later jobs cost (a
#                              quarter of the GTC mixes' time).
#                              only: the control runs alone, without the mixes' own runs (to
#                              add controls to a matrix already made; mixes of one job are
#                              skipped, and figure (b) is not drawn for the controls)
#
#   STUDY_SLURM=plan|collect   run the matrix as one Slurm job array instead of here:
#                              plan: write every sweep's plan (`bbsim sweep --plan`, under
#                              runs/), the list of all their points (slurm-points.txt) and
#                              study.sbatch, an array of one task per point; with
#                              STUDY_SLURM_SUBMIT=1 also submit it (STUDY_SLURM_ARGS: extra
#                              sbatch options such as "--partition=batch --time=2:00:00").
#                              collect: once the array has run, rerun the script with the same
#                              settings and output directory: it gathers each sweep's points
#                              (`bbsim sweep --collect`) and makes the tables and figures as a
#                              local run does; missing or failed points fail their sweep
#                              (docs/sweeps.md)
#
# Output (under OUTPUT_DIR, which must not exist or be empty):
#   sweep.csv                  one row per run: system, placement, mix, then bbsim's sweep.csv
#                              columns with job0..job2 (mixes with fewer jobs leave them empty);
#                              op_overhead as given and op_overhead_s in seconds
#   jobs.csv                   one row per run and job: system, placement, mix, op_overhead,
#                              job, setting (alone / with ...), I/O phase, time in I/O, hops,
#                              the job's number of I/O phases, the slowest rank's and the 99th
#                              percentile rank's time in I/O in the first one
#                              (phase1_time_in_io_max_s, phase1_time_in_io_p99_s), op_overhead_s,
#                              and the job's routing per packet (packet_hops,
#                              packet_nonminimal_share: every packet of its storage traffic,
#                              replies and drains included; avg_hops is per I/O operation, along
#                              its request's route)
#   figures/hops.svg           (a) average I/O hops per application, topology and placement
#   figures/timelines/<mix>-<system>-<placement>.svg
#                              (b) each rank's I/O over time in the first I/O phase (middle
#                              overhead)
#   figures/io-phase-<app>-<system>.svg
#                              (c) each application's I/O phase alone and co-scheduled: the
#                              slowest rank's time in I/O in the job's first I/O phase (the
#                              one the mixes line up with the co-scheduled jobs; GTC and
#                              LAMMPS write in one phase, S3D in 3 and HACC in 2 with 300 and
#                              600 s of computation between them)
#   scenarios/                 the composed scenarios (with the run's packet size)
#   runs/<system>-<placement>-<mix>/   each sweep's run directories, sweep.csv and its long
#                              tables (sweep-phases.csv: every I/O phase of every job)
#   runs/<system>-<placement>-<mix>+control/   the control sweeps (STUDY_CONTROLS=1); their
#                              rows in sweep.csv have mix "<mix>+control" (job0 at its token
#                              size), in jobs.csv the mix and the setting "apart from <others>
#                              (same nodes)" for the later jobs only
#   timing.txt                 wall time of the whole script
# The whole script is one compound command, which bash reads to the end before it runs any of
# it: a full-scale study runs for hours, and replacing this file meanwhile (a `git pull`, an
# edit) must not change what the running copy does.
{
set -eu

die() {
    echo "reproduce-study.sh: $*" >&2
    exit 1
}

[ $# -eq 1 ] || die "usage: study/reproduce-study.sh OUTPUT_DIR (STUDY_SCALE=smoke for a quick run)"
OUT=$1
ROOT=$(cd "$(dirname "$0")/.." && pwd)

. "$ROOT/study/study-lib.sh"
find_bbsim

SCALE=${STUDY_SCALE:-full}
case $SCALE in
full | smoke) ;;
*) die "STUDY_SCALE=$SCALE: expected full or smoke" ;;
esac

SYSTEMS=${STUDY_SYSTEMS:-$STUDY_ALL_SYSTEMS}
PLACEMENTS=${STUDY_PLACEMENTS:-$STUDY_ALL_PLACEMENTS}
MIXES=${STUDY_MIXES:-$STUDY_ALL_MIXES}
OVH_FATTREE=${STUDY_OVERHEADS_FATTREE:-0us,20us,45us}
OVH_DRAGONFLY=${STUDY_OVERHEADS_DRAGONFLY:-0us,25us,45us}
NET_MODEL=${STUDY_NETWORK_MODEL:-packet}
# The flow model moves each packet as one flow: whole-message packets (the study's largest
# server piece is HACC's 2 MiB) unless a size is given.
case $NET_MODEL in
flow) PACKET=${STUDY_PACKET_SIZE:-4MiB} ;;
path) PACKET=${STUDY_PACKET_SIZE:-64KiB} ;;
*) PACKET=${STUDY_PACKET_SIZE:-4KiB} ;;
esac
SSD_MODEL=${STUDY_SSD_MODEL:-per-ssd}
# A size setting only the packet model reads: variable, value, what it sets, an example.
packet_model_size() {
    [ "${NET_MODEL}" = packet ] || die "$1=$2: $3 exist only in the packet model (STUDY_NETWORK_MODEL=${NET_MODEL})"
    [[ $2 =~ ^[0-9]+(\.[0-9]+)?(B|KB|MB|GB|KiB|MiB|GiB)$ ]] || die "$1=$2: expected a size with a unit, such as $4"
}
VC_BUFFER=${STUDY_VC_BUFFER:-}
[ -z "$VC_BUFFER" ] || packet_model_size STUDY_VC_BUFFER "$VC_BUFFER" "router buffers" 128KiB
# The default network model is 4 KiB packets in 64 KiB units; a packet size given alone runs
# its packets one at a time, as the convergence checks against the archive do.
if [ -n "${STUDY_UNIT_SIZE:-}" ]; then
    UNIT_SIZE=$STUDY_UNIT_SIZE
    [ "$UNIT_SIZE" != none ] || UNIT_SIZE=
elif [ "$NET_MODEL" = packet ] && [ -z "${STUDY_PACKET_SIZE:-}" ]; then
    UNIT_SIZE=64KiB
else
    UNIT_SIZE=
fi
[ -z "$UNIT_SIZE" ] || packet_model_size STUDY_UNIT_SIZE "$UNIT_SIZE" units 64KiB
case $NET_MODEL in packet | path | flow) ;; *) die "STUDY_NETWORK_MODEL=$NET_MODEL: expected packet, path or flow" ;; esac
case $SSD_MODEL in per-ssd | array) ;; *) die "STUDY_SSD_MODEL=$SSD_MODEL: expected per-ssd or array" ;; esac
JOBS=${STUDY_JOBS:-1}
case $JOBS in '' | *[!0-9]* | 0 | 0*) die "STUDY_JOBS=$JOBS: expected a whole number of runs at once, 1 or more" ;; esac
HUGE=${STUDY_HUGE_PAGES:-1}
case $HUGE in
1) [ -n "${GLIBC_TUNABLES:-}" ] || export GLIBC_TUNABLES=glibc.malloc.hugetlb=1 ;;
0) ;;
*) die "STUDY_HUGE_PAGES=$HUGE: expected 1 or 0" ;;
esac
CONTROLS=${STUDY_CONTROLS:-0}
case $CONTROLS in 0 | 1 | only) ;; *) die "STUDY_CONTROLS=$CONTROLS: expected 0, 1 or only" ;; esac
SLURM=${STUDY_SLURM:-0}
case $SLURM in 0 | plan | collect) ;; *) die "STUDY_SLURM=$SLURM: expected plan or collect" ;; esac
WINDOW=${STUDY_TIMELINE_WINDOW:-100}
HEARTBEAT=${STUDY_HEARTBEAT:-10min}
BEAT=()
case $HEARTBEAT in
off) ;;
*)
    echo "$HEARTBEAT" | grep -Eq '^[0-9]+(\.[0-9]+)?(ms|s|min|h)$' ||
        die "STUDY_HEARTBEAT=$HEARTBEAT: expected a wall-clock period such as 10min, 30s or 1h, or off"
    BEAT=(--heartbeat "$HEARTBEAT")
    ;;
esac
if [ "$SCALE" = smoke ]; then
    KEEP=${STUDY_KEEP_TIMELINES:-1}
    UNIT=ms UNIT_SCALE=1000 # smoke-scale I/O takes milliseconds
else
    KEEP=${STUDY_KEEP_TIMELINES:-0}
    UNIT=s UNIT_SCALE=1
fi

# The plan: one line "system placement mix overheads" per sweep, in the order they run.
if [ -n "${STUDY_RUNS:-}" ]; then
    # A list of sweeps (the missing.txt of study/merge-study.sh) instead of the product.
    for v in STUDY_SYSTEMS STUDY_PLACEMENTS STUDY_MIXES STUDY_OVERHEADS_FATTREE STUDY_OVERHEADS_DRAGONFLY; do
        [ -z "${!v:-}" ] || die "STUDY_RUNS=$STUDY_RUNS lists the sweeps; leave $v unset"
    done
    [ -f "$STUDY_RUNS" ] || die "STUDY_RUNS=$STUDY_RUNS: no such file"
    PLAN=""
    SEEN=" "
    n=0
    while IFS= read -r line || [ -n "$line" ]; do
        n=$((n + 1))
        case $line in '' | '#'*) continue ;; esac
        # shellcheck disable=SC2086 # split the line into its fields
        set -- $line
        [ $# -eq 4 ] || die "$STUDY_RUNS:$n: expected 'system placement mix overheads' (e.g. 'summit global gtc 0us,45us'), got '$line'"
        [ -f "$ROOT/scenarios/$1-$2.toml" ] || die "$STUDY_RUNS:$n: no system scenario scenarios/$1-$2.toml for '$1 $2'"
        [ -f "$ROOT/scenarios/study/$3.toml" ] || die "$STUDY_RUNS:$n: no mix scenarios/study/$3.toml for '$3'"
        for o in $(echo "$4" | tr ',' ' '); do
            echo "$o" | grep -Eq '^[0-9]+(\.[0-9]+)?(ns|us|ms|s)$' ||
                die "$STUDY_RUNS:$n: overhead '$o' is not a duration such as 20us"
        done
        case $SEEN in *" $1/$2/$3:"*)
            prev=${SEEN#* "$1/$2/$3:"}
            die "$STUDY_RUNS:$n: '$1 $2 $3' is listed twice (also line ${prev%% *}); put all its overheads on one line" ;;
        esac
        SEEN="$SEEN$1/$2/$3:$n "
        PLAN="$PLAN$1 $2 $3 $4
"
    done <"$STUDY_RUNS"
    [ -n "$PLAN" ] || die "STUDY_RUNS=$STUDY_RUNS lists no sweep"
    # The lists the collection orders its outputs by: the study's order, then any others.
    pick() { # canonical-list words-of-the-plan
        local out="" w
        for w in $1; do case " $(echo $2) " in *" $w "*) out="$out $w" ;; esac; done
        for w in $2; do case " $out " in *" $w "*) ;; *) out="$out $w" ;; esac; done
        echo $out
    }
    SYSTEMS=$(pick "$STUDY_ALL_SYSTEMS" "$(echo "$PLAN" | awk '{ print $1 }')")
    PLACEMENTS=$(pick "$STUDY_ALL_PLACEMENTS" "$(echo "$PLAN" | awk '{ print $2 }')")
    MIXES=$(pick "$STUDY_ALL_MIXES" "$(echo "$PLAN" | awk '{ print $3 }')")
else
    for s in $SYSTEMS; do for p in $PLACEMENTS; do
        [ -f "$ROOT/scenarios/$s-$p.toml" ] || die "no system scenario scenarios/$s-$p.toml (STUDY_SYSTEMS / STUDY_PLACEMENTS)"
    done; done
    for m in $MIXES; do
        [ -f "$ROOT/scenarios/study/$m.toml" ] || die "no mix scenarios/study/$m.toml (STUDY_MIXES)"
    done
    PLAN=$(for sys in $SYSTEMS; do
        case $sys in edison*) o=$OVH_DRAGONFLY ;; *) o=$OVH_FATTREE ;; esac
        for mix in $MIXES; do for pl in $PLACEMENTS; do echo "$sys $pl $mix $o"; done; done
    done)
fi
if [ "$CONTROLS" = only ]; then
    CO=0
    for m in $MIXES; do [ "$(grep -c '^\[\[jobs\]\]' "$ROOT/scenarios/study/$m.toml")" -ge 2 ] && CO=$((CO + 1)); done
    [ "$CO" -gt 0 ] || die "STUDY_CONTROLS=only: none of the mixes ($MIXES) has two or more jobs, so there is no control run to make (STUDY_MIXES)"
fi

if [ "$SLURM" = collect ]; then
    [ -f "$OUT/slurm-points.txt" ] ||
        die "$OUT/slurm-points.txt is missing: plan the matrix there first with STUDY_SLURM=plan"
elif [ -e "$OUT" ] && [ -n "$(ls -A "$OUT" 2>/dev/null)" ]; then
    die "$OUT exists and is not empty; give a new output directory"
fi
STUDY_ARCHIVE_DIR=${STUDY_ARCHIVE:-}
if [ -n "$STUDY_ARCHIVE_DIR" ] && [ -e "$STUDY_ARCHIVE_DIR" ] && [ -n "$(ls -A "$STUDY_ARCHIVE_DIR" 2>/dev/null)" ]; then
    die "STUDY_ARCHIVE=$STUDY_ARCHIVE_DIR exists and is not empty; give a new archive directory"
fi
mkdir -p "$OUT/scenarios" "$OUT/runs" "$OUT/figures/timelines"
OUT=$(cd "$OUT" && pwd)
if [ -n "$STUDY_ARCHIVE_DIR" ]; then
    mkdir -p "$STUDY_ARCHIVE_DIR/runs"
    STUDY_ARCHIVE_DIR=$(cd "$STUDY_ARCHIVE_DIR" && pwd)
    study_provenance "by study/reproduce-study.sh (STUDY_ARCHIVE), each sweep as it ended" "$OUT" >"$STUDY_ARCHIVE_DIR/provenance.txt"
    echo "scale: $SCALE; network model: $NET_MODEL; SSD model: $SSD_MODEL; packet size: $PACKET; VC buffer: ${VC_BUFFER:-scenario default}; unit size: ${UNIT_SIZE:-one packet}" >>"$STUDY_ARCHIVE_DIR/provenance.txt"
    echo "GLIBC_TUNABLES: ${GLIBC_TUNABLES:-(unset)}" >>"$STUDY_ARCHIVE_DIR/provenance.txt"
fi
START=$(date +%s)
echo "bbsim: $("$BBSIM" --version); scale: $SCALE; network model: $NET_MODEL; packet size: $PACKET; unit size: ${UNIT_SIZE:-one packet}; SSD model: $SSD_MODEL; output: $OUT"

# Per-job lines "index source" of a mix file, in job order.
jobs_of() {
    awk '/^\[\[jobs\]\]/ { n++ } n > 0 && /^source[ ]*=/ { s = $0; sub(/^[^=]*=[ ]*"/, "", s); sub(/".*$/, "", s); print n - 1, s }' "$1"
}

# Overrides shared by every run of a system at this scale (the Edison-like machine shrinks in
# smoke mode; its global placement then has 128 servers on the 32 free routers).
system_sets() { # system placement
    SETS=(--set "simulation.packet_size=$PACKET" --set "network.model=$NET_MODEL")
    SETS+=(--set "burst_buffer.ssd_model=$SSD_MODEL")
    # The applications' own phases (figure (c) takes the first): 60 s is longer than the
    # pauses inside an S3D or HACC phase and shorter than their computation between phases;
    # the automatic gap would split HACC's phases where its ranks write seconds apart.
    SETS+=(--set "outputs.phase_gap=60s")
    [ -z "$VC_BUFFER" ] || SETS+=(--set "network.vc_buffer=$VC_BUFFER")
    [ -z "$UNIT_SIZE" ] || SETS+=(--set "simulation.unit_size=$UNIT_SIZE")
    if [ "$SCALE" = smoke ] && [ "$1" = edison ]; then
        SETS+=(--set network.groups=3 --set network.nodes=1024)
        [ "$2" = global ] && SETS+=(--set burst_buffer.servers=128)
    fi
    return 0
}

# Smoke-scale workload overrides for the jobs of mix file $1 (appended to SETS).
smoke_sets() {
    [ "$SCALE" = smoke ] || return 0
    while read -r j src; do
        case $src in
        ior) SETS+=(--set "jobs.$j.ranks=12" --set "jobs.$j.block_size=4MiB") ;;
        preset) SETS+=(--set "jobs.$j.ranks=48" --set "jobs.$j.bytes_per_rank=4MB") ;;
        *) die "$1: job $j has source $src; the study's mixes use preset and ior jobs" ;;
        esac
    done <<EOF
$(jobs_of "$1")
EOF
}

compose() { # system placement mix -> path of the composed scenario
    local f="$OUT/scenarios/$1-$2-$3.toml"
    {
        echo "# Composed by study/reproduce-study.sh: the machine of scenarios/$1-$2.toml"
        echo "# with the jobs of scenarios/study/$3.toml, and the run's packet size (and STUDY_VC_BUFFER, STUDY_UNIT_SIZE) written in."
        echo "# The script also passes --set network.model=$NET_MODEL --set burst_buffer.ssd_model=$SSD_MODEL"
        echo "# --set outputs.phase_gap=60s"
        echo "# (and, with STUDY_SCALE=smoke, the smoke overrides): pass those too to rerun it as the"
        echo "# script did."
        echo
        echo "include = \"$ROOT/scenarios/$1-$2.toml\""
        echo
        echo "name = \"study-$3-$1-$2\""
        echo
        echo "[simulation]"
        echo "packet_size = \"$PACKET\""
        [ -z "$UNIT_SIZE" ] || echo "unit_size = \"$UNIT_SIZE\""
        if [ -n "$VC_BUFFER" ]; then
            echo
            echo "[network]"
            echo "vc_buffer = \"$VC_BUFFER\""
        fi
        echo
        # The mix's jobs replace the system file's.
        sed -n '/^\[\[jobs\]\]/,$p' "$ROOT/scenarios/study/$3.toml"
    } >"$f"
    echo "$f"
}

# One sweep of SCENARIO into DIR with the given options, as STUDY_SLURM says: run here; plan
# it for the Slurm array (status 3: nothing ran, nothing to draw); or gather the points the
# array ran into DIR's sweep.csv and run directories.
study_sweep() {
    local scn=$1 dir=$2 rc=0 n k
    shift 2
    case $SLURM in
    0) "$BBSIM" sweep "$scn" --quiet "${BEAT[@]}" --jobs "$JOBS" --out "$dir" "$@" >"$dir.log" 2>&1 ;;
    plan)
        "$BBSIM" sweep "$scn" --quiet --plan "$dir" "$@" >"$dir.log" 2>&1 || return 1
        n=$(grep -c '"overrides"' "$dir/plan.json")
        for ((k = 0; k < n; k++)); do echo "$dir $k"; done >>"$OUT/slurm-points.txt"
        return 3
        ;;
    collect)
        "$BBSIM" sweep --quiet --collect "$dir" >"$dir.log" 2>&1 || rc=$?
        if [ -d "$dir/runs" ]; then
            mv "$dir"/runs/* "$dir"/ 2>/dev/null || true
            rmdir "$dir/runs" 2>/dev/null || true
        fi
        return "$rc"
        ;;
    esac
}

# Runs one sweep of the matrix (study_sweep on the composed scenario $scn into DIR with the
# options after LABEL) and reports it: 0 when it ran, 3 when it was only planned ("LABEL:
# planned"), 1 when it failed (archived, listed in $OUT/failed.txt, the tail of its log shown).
# Every sweep started is a line of $OUT/sweeps.txt. (Files, not variables: sweeps may run in
# background subshells, and a line this short is appended whole.)
matrix_sweep() { # dir label options...
    local dir=$1 label=$2 rc=0
    shift 2
    echo "$label" >>"$OUT/sweeps.txt"
    study_sweep "$scn" "$dir" "$@" || rc=$?
    case $rc in
    0) return 0 ;;
    3)
        echo "$label: planned"
        return 3
        ;;
    esac
    study_archive_sweep "$dir" "${dir##*/}"
    echo "${dir##*/}" >>"$OUT/failed.txt"
    echo "FAILED $label (see $dir.log):" >&2
    tail -n 5 "$dir.log" >&2
    return 1
}

# One line of the plan: the sweep of system $1, placement $2, mix $3 over overheads $4, its
# timeline figure and archive, and with STUDY_CONTROLS its control sweep.
plan_line() {
    local sys=$1 pl=$2 mix=$3 OVH=$4
    local MID MIXFILE scn dir njobs t0 rc=0 run title k
    local -a APART
    [ -n "$sys" ] || return 0
    MID=$(echo "$OVH" | awk -F, '{ print (NF >= 2 ? $2 : $1) }')
    MIXFILE=$ROOT/scenarios/study/$mix.toml
    scn=$(compose "$sys" "$pl" "$mix")
    system_sets "$sys" "$pl"
    smoke_sets "$MIXFILE"
    dir="$OUT/runs/$sys-$pl-$mix"
    njobs=$(jobs_of "$MIXFILE" | wc -l)
    if [ "$CONTROLS" = only ]; then
        # Only the control runs: a mix of one job has none.
        [ "$njobs" -ge 2 ] || return 0
    else
        t0=$(date +%s)
        rc=0
        matrix_sweep "$dir" "$sys $pl $mix" --vary "burst_buffer.ssd.op_overhead=$OVH" \
            "${SETS[@]}" || rc=$?
        if [ "$rc" = 3 ]; then
            [ "$CONTROLS" = 1 ] && [ "$njobs" -ge 2 ] || return 0
        elif [ "$rc" != 0 ]; then
            return 0
        fi
    fi
    if [ "$CONTROLS" != only ] && [ "$rc" != 3 ]; then
        run=$(ls -d "$dir"/run-*_op_overhead="$MID" 2>/dev/null | head -n 1)
        if [ -n "$run" ]; then
            title="$(echo "$mix" | tr 'a-z-' 'A-Z+'), $sys, $pl, $MID/op"
            "$BBSIM" plot timeline "$run" --title "$title" --window "$WINDOW" \
                --out "$OUT/figures/timelines/$mix-$sys-$pl.svg" >/dev/null ||
                die "drawing the timeline of $run failed"
        fi
        [ "$KEEP" = 1 ] || rm -f "$dir"/run-*/timeline.csv
        study_archive_sweep "$dir" "$sys-$pl-$mix"
        echo "$sys $pl $mix: $(($(date +%s) - t0)) s"
        [ "$CONTROLS" = 1 ] && [ "$njobs" -ge 2 ] || return 0
    fi
    # The control: every job on its nodes of the mix, each 10^6 s after the previous, the first
    # one at a token size (its control is its run alone, which the mix of one job makes).
    APART=()
    for ((k = 1; k < njobs; k++)); do APART+=(--set "jobs.$k.start=$((k * 1000000))s"); done
    case $(jobs_of "$MIXFILE" | awk 'NR == 1 { print $2 }') in
    preset) APART+=(--set jobs.0.bytes_per_rank=1MB) ;;
    ior) APART+=(--set jobs.0.block_size=1MiB --set jobs.0.transfer_size=1MiB) ;;
    *) die "$MIXFILE: the first job's source is neither preset nor ior; no token size for its control" ;;
    esac
    t0=$(date +%s)
    matrix_sweep "$dir+control" "$sys $pl $mix control" \
        --vary "burst_buffer.ssd.op_overhead=$OVH" "${SETS[@]}" "${APART[@]}" || return 0
    [ "$KEEP" = 1 ] || rm -f "$dir+control"/run-*/timeline.csv
    study_archive_sweep "$dir+control" "$sys-$pl-$mix+control"
    echo "$sys $pl $mix control: $(($(date +%s) - t0)) s"
}

# Sweeps at once: STUDY_JOBS runs share the cores as whole sweeps, one run at a time each, so
# that no core idles while a sweep's last run finishes (a sweep has 2-3 runs); a plan of
# fewer sweeps than STUDY_JOBS gives each sweep its share of them. Planning for Slurm runs
# nothing and appends to one list, so it goes one sweep at a time.
NSWEEPS=$(echo "$PLAN" | grep -c .)
PARALLEL=$JOBS
[ "$NSWEEPS" -ge "$PARALLEL" ] || PARALLEL=$NSWEEPS
[ "$SLURM" = 0 ] || PARALLEL=1
# Waiting for whichever sweep ends first needs bash 4.3 (wait -n); older shells run one sweep
# at a time with all STUDY_JOBS runs in it, as before.
if [ "${BASH_VERSINFO[0]}" -lt 4 ] || { [ "${BASH_VERSINFO[0]}" -eq 4 ] && [ "${BASH_VERSINFO[1]}" -lt 3 ]; }; then
    PARALLEL=1
fi
[ "$PARALLEL" -ge 1 ] || PARALLEL=1
JOBS=$((JOBS / PARALLEL))
: >"$OUT/sweeps.txt"
: >"$OUT/failed.txt"
: >"$OUT/stopped.txt"
while read -r sys pl mix OVH <&3; do
    [ -n "$sys" ] || continue
    if [ "$PARALLEL" = 1 ]; then
        plan_line "$sys" "$pl" "$mix" "$OVH"
    else
        while [ "$(jobs -pr | wc -l)" -ge "$PARALLEL" ]; do wait -n || true; done
        # A sweep's subshell that stops (die) is listed, and the script stops after the others.
        { (plan_line "$sys" "$pl" "$mix" "$OVH") || echo "$sys $pl $mix" >>"$OUT/stopped.txt"; } 3<&- &
    fi
done 3<<PLAN_END
$PLAN
PLAN_END
wait
SWEEPS=$(wc -l <"$OUT/sweeps.txt")
FAILED=$(tr '\n' ' ' <"$OUT/failed.txt" | sed 's/ *$//; s/^./ &/')
[ ! -s "$OUT/stopped.txt" ] || die "stopped by an error in the sweeps of: $(tr '\n' ';' <"$OUT/stopped.txt" | sed 's/;$//')"
rm -f "$OUT/stopped.txt"

if [ "$SLURM" = plan ]; then
    [ -z "$FAILED" ] || die "planning failed for:$FAILED"
    POINTS=$(wc -l <"$OUT/slurm-points.txt")
    mkdir -p "$OUT/slurm-logs"
    {
        echo "#!/bin/bash"
        echo "# The study's matrix as one Slurm array: task i runs line i + 1 of slurm-points.txt"
        echo "# (a sweep's plan directory and a point of it). Written by study/reproduce-study.sh."
        echo "#SBATCH --job-name=bbsim-study"
        echo "#SBATCH --array=0-$((POINTS - 1))"
        echo "#SBATCH --output=$OUT/slurm-logs/%A_%a.out"
        echo "#SBATCH --ntasks=1"
        echo "set -eu"
        echo "read -r plan point < <(sed -n \"\$((SLURM_ARRAY_TASK_ID + 1))p\" '$OUT/slurm-points.txt')"
        echo "exec '$BBSIM' sweep --quiet${BEAT[*]:+ ${BEAT[*]}} --point \"\$point\" \"\$plan\""
    } >"$OUT/study.sbatch"
    echo "planned $SWEEPS sweeps, $POINTS points: $OUT/study.sbatch"
    if [ "${STUDY_SLURM_SUBMIT:-0}" = 1 ]; then
        # shellcheck disable=SC2086 # STUDY_SLURM_ARGS holds several sbatch options
        job=$(sbatch --parsable ${STUDY_SLURM_ARGS:-} "$OUT/study.sbatch") || die "sbatch failed"
        echo "submitted as Slurm job $job"
    else
        echo "submit it with: sbatch ${STUDY_SLURM_ARGS:-}$([ -n "${STUDY_SLURM_ARGS:-}" ] && echo " ")$OUT/study.sbatch"
    fi
    echo "then gather the results with the same settings and STUDY_SLURM=collect $0 $OUT"
    exit 0
fi

study_collect

ELAPSED=$(($(date +%s) - START))
RUNS=$(($(wc -l <"$OUT/sweep.csv") - 1))
echo "scale $SCALE: $SWEEPS sweeps, $RUNS runs, $ELAPSED s wall ($(date -u +%Y-%m-%dT%H:%M:%SZ), $("$BBSIM" --version))" >"$OUT/timing.txt"
cat "$OUT/timing.txt"
echo "figures in $OUT/figures, results in $OUT/sweep.csv and $OUT/jobs.csv"
[ -z "$FAILED" ] || die "failed sweeps:$FAILED"
exit 0
}
