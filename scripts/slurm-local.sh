#!/usr/bin/env bash
# A one-node Slurm cluster on this machine, for testing bbsim's Slurm sweeps.
#
#   scripts/slurm-local.sh install      # Slurm and munge from the distribution (apt, as root)
#   scripts/slurm-local.sh start DIR    # start munged, slurmctld and slurmd; print SLURM_CONF
#   scripts/slurm-local.sh stop DIR     # stop the daemons started with DIR
#
# The daemons run as the calling user (root in CI) with their configuration, state, spool
# and logs under DIR, on ports chosen from the calling process id, so a second cluster
# started from another DIR does not collide with the first. Needs root for munged's key.
set -euo pipefail

cmd=${1:-}
dir=${2:-}

die() {
    echo "slurm-local.sh: $*" >&2
    exit 1
}

case "$cmd" in
install)
    if command -v slurmctld >/dev/null && command -v slurmd >/dev/null \
        && command -v sbatch >/dev/null && command -v munged >/dev/null; then
        exit 0
    fi
    command -v apt-get >/dev/null || die "apt-get not found: install Slurm (slurm-wlm) and munge by hand"
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo -n"
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q slurm-wlm munge >/dev/null \
        || die "could not install slurm-wlm and munge with apt-get (root or passwordless sudo needed)"
    ;;
start)
    [ -n "$dir" ] || die "usage: $0 start DIR"
    for b in slurmctld slurmd sbatch squeue munged; do
        command -v "$b" >/dev/null || die "$b not found: run '$0 install' (Debian packages slurm-wlm and munge)"
    done
    mkdir -p "$dir"/state "$dir"/spool "$dir"/log "$dir"/run
    dir=$(cd "$dir" && pwd)
    host=$(hostname -s)
    cpus=$(nproc)
    mem=$(($(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024 / 2))
    port=$((20000 + ($$ % 2000) * 2))
    user=$(id -un)
    cat >"$dir/slurm.conf" <<EOF
ClusterName=bbsim-local
SlurmctldHost=$host
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
SlurmUser=$user
SlurmdUser=$user
SlurmctldPidFile=$dir/run/slurmctld.pid
SlurmdPidFile=$dir/run/slurmd.pid
SlurmdSpoolDir=$dir/spool
StateSaveLocation=$dir/state
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
NodeName=$host CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=local Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
    if ! munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
        mkdir -p /run/munge /var/log/munge /var/lib/munge
        [ -s /etc/munge/munge.key ] || die "/etc/munge/munge.key is missing (reinstall munge)"
        if id munge >/dev/null 2>&1; then
            chown -R munge:munge /run/munge /var/log/munge /var/lib/munge /etc/munge
            runuser -u munge -- /usr/sbin/munged || die "munged did not start"
        else
            /usr/sbin/munged --force || die "munged did not start"
        fi
    fi
    export SLURM_CONF="$dir/slurm.conf"
    slurmctld -f "$SLURM_CONF" || die "slurmctld did not start (see $dir/log/slurmctld.log)"
    slurmd -f "$SLURM_CONF" || die "slurmd did not start (see $dir/log/slurmd.log)"
    for _ in $(seq 1 60); do
        if [ "$(sinfo -h -o %T 2>/dev/null | head -1)" = "idle" ]; then
            echo "$SLURM_CONF"
            exit 0
        fi
        sleep 0.5
    done
    die "the node did not become idle within 30 s (see $dir/log/)"
    ;;
stop)
    [ -n "$dir" ] || die "usage: $0 stop DIR"
    for p in "$dir"/run/slurmd.pid "$dir"/run/slurmctld.pid; do
        [ -s "$p" ] && kill "$(cat "$p")" 2>/dev/null || true
    done
    ;;
*)
    die "usage: $0 install | start DIR | stop DIR"
    ;;
esac
