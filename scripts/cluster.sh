#!/usr/bin/env bash
# An emulated cluster on this one machine, for multi-host tests (needs root).
#
# Each of H hosts is a network namespace with a veth link on a private bridge (its own
# address), its own UTS namespace (its own host name) and its own time namespace whose
# CLOCK_MONOTONIC is ahead by STEP seconds × host index, and its own CPU set. A long-lived
# anchor process holds each host's namespaces; `agent` enters them, which is what Open MPI's
# rsh launcher and MPICH hydra's ssh launcher call instead of ssh.
#
#   scripts/cluster.sh up [-H HOSTS] [-c CORES_PER_HOST] [-s STEP_SECONDS]
#   scripts/cluster.sh run [-n RANKS_PER_HOST] [--mpi openmpi|mpich] [--] EXE ARGS...
#   scripts/cluster.sh agent HOST COMMAND...      (the launcher agent)
#   scripts/cluster.sh status | check | down
#   scripts/cluster.sh slurm up|exec|status|check|down ...   (Slurm on these hosts:
#                                                 scripts/slurm-cluster.sh)
#
# `check` exits 0 when this machine permits the namespaces (tests skip otherwise).
# State lives in $DELAYBENCH_CLUSTER_DIR (default /tmp/delaybench-cluster).
set -euo pipefail

STATE="${DELAYBENCH_CLUSTER_DIR:-/tmp/delaybench-cluster}"
SUBNET=10.213.0
BRIDGE=dbc-br0
SELF="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/$(basename "${BASH_SOURCE[0]}")"

say() { echo "cluster: $*" >&2; }
die() { say "$*"; exit 1; }

host_ip() { echo "$SUBNET.$(($1 + 1))"; }

# Host index of an address or a host name (dbc-hostN).
host_index() {
    local h="$1" i
    for i in $(seq 0 $(($(cat "$STATE/hosts") - 1))); do
        if [ "$h" = "$(host_ip "$i")" ] || [ "$h" = "dbc-host$i" ]; then
            echo "$i"
            return 0
        fi
    done
    return 1
}

cmd_check() {
    [ "$(id -u)" -eq 0 ] || { say "needs root"; return 1; }
    for tool in ip unshare nsenter taskset; do
        command -v "$tool" >/dev/null || { say "needs $tool"; return 1; }
    done
    # A throwaway network + UTS + time + mount namespace proves the kernel and sandbox allow
    # them. The mount namespace is for `ip netns exec`, which makes / a slave mount: in a plain
    # chroot, whose / is no mount point, that fails ("mount --make-rslave /": Invalid argument).
    unshare --net --uts --time --mount --monotonic 1000 --fork true 2>/dev/null ||
        { say "this machine does not permit network/UTS/time/mount namespaces (or / is no mount point, as in a chroot)"; return 1; }
}

cmd_up() {
    local hosts=2 cores=1 step=1000 opt
    while getopts "H:c:s:" opt; do
        case "$opt" in
            H) hosts="$OPTARG" ;;
            c) cores="$OPTARG" ;;
            s) step="$OPTARG" ;;
            *) die "usage: cluster.sh up [-H HOSTS] [-c CORES_PER_HOST] [-s STEP_SECONDS]" ;;
        esac
    done
    cmd_check || die "cannot build the emulated cluster here"
    [ -e "$STATE/hosts" ] && cmd_down
    mkdir -p "$STATE"
    local ncpu i first cpus
    ncpu=$(nproc --all)
    ip link add "$BRIDGE" type bridge
    ip addr add "$SUBNET.254/24" dev "$BRIDGE"
    ip link set "$BRIDGE" up
    : >"$STATE/hostfile"
    for i in $(seq 0 $((hosts - 1))); do
        ip netns add "dbc-h$i"
        ip link add "dbc-v$i" type veth peer name eth0 netns "dbc-h$i"
        ip link set "dbc-v$i" master "$BRIDGE" up
        ip -n "dbc-h$i" addr add "$(host_ip "$i")/24" dev eth0
        ip -n "dbc-h$i" link set eth0 up
        ip -n "dbc-h$i" link set lo up
        # Cores wrap round when hosts × cores exceeds the machine: hosts then share cores.
        first=$(((i * cores) % ncpu))
        cpus=$(seq -s, "$first" $((first + cores - 1)) | tr ',' '\n' | awk -v n="$ncpu" '{print $1 % n}' | paste -sd,)
        echo "$cpus" >"$STATE/cpus$i"
        # The anchor: its namespaces are the host's; the agent enters them.
        ip netns exec "dbc-h$i" unshare --uts --time --monotonic $((i * step)) --fork -- \
            sh -c "echo \$\$ >'$STATE/anchor$i'; hostname dbc-host$i; exec sleep infinity" \
            </dev/null >/dev/null 2>&1 &
        echo "$(host_ip "$i") slots=$cores" >>"$STATE/hostfile"
    done
    # Launchers want one executable for the agent (hydra's -launcher-exec takes no arguments).
    printf '#!/bin/sh\nexec "%s" agent "$@"\n' "$SELF" >"$STATE/agent"
    chmod +x "$STATE/agent"
    echo "$hosts" >"$STATE/hosts"
    echo "$step" >"$STATE/step"
    echo "$cores" >"$STATE/cores"
    for i in $(seq 0 $((hosts - 1))); do
        for _ in $(seq 50); do [ -s "$STATE/anchor$i" ] && break; sleep 0.1; done
        [ -s "$STATE/anchor$i" ] || die "host $i did not start"
    done
    cmd_status
}

cmd_status() {
    [ -e "$STATE/hosts" ] || { say "no emulated cluster is up"; return 1; }
    local i pid
    for i in $(seq 0 $(($(cat "$STATE/hosts") - 1))); do
        pid=$(cat "$STATE/anchor$i")
        kill -0 "$pid" 2>/dev/null || die "host $i: anchor $pid is gone; run down, then up"
        echo "host $i: $(nsenter -t "$pid" --uts hostname) $(host_ip "$i") cpus $(cat "$STATE/cpus$i")" \
            "CLOCK_MONOTONIC +$((i * $(cat "$STATE/step"))) s" \
            "(uptime there: $(nsenter -t "$pid" --time cut -d' ' -f1 /proc/uptime) s)"
    done
}

cmd_down() {
    local i
    if [ -e "$STATE/hosts" ]; then
        for i in $(seq 0 $(($(cat "$STATE/hosts") - 1))); do
            [ -s "$STATE/anchor$i" ] && kill "$(cat "$STATE/anchor$i")" 2>/dev/null || true
        done
    fi
    for ns in $(ip netns list 2>/dev/null | awk '/^dbc-h[0-9]+/{print $1}'); do
        ip netns pids "$ns" 2>/dev/null | xargs -r kill -9 2>/dev/null || true
        ip netns delete "$ns"
    done
    ip link delete "$BRIDGE" 2>/dev/null || true
    rm -rf "$STATE"
}

# Runs COMMAND on HOST inside its namespaces and CPU set, as ssh would. Launchers pass the
# remote command as one or several words of shell text.
cmd_agent() {
    # ssh options a launcher may pass before the host (hydra: none; Open MPI: none by default).
    while [ $# -gt 0 ] && [[ "$1" == -* ]]; do shift; done
    [ $# -ge 2 ] || die "usage: cluster.sh agent HOST COMMAND..."
    local host="$1" i pid
    shift
    i=$(host_index "$host") || die "agent: unknown host $host"
    pid=$(cat "$STATE/anchor$i")
    exec nsenter -t "$pid" --net --uts --time -- taskset -c "$(cat "$STATE/cpus$i")" \
        sh -c "cd '$PWD' 2>/dev/null; $*"
}

# Launches EXE on every host with the chosen MPI's launcher and the agent above.
cmd_run() {
    local per_host=1 mpi="${DELAYBENCH_MPI_FLAVOR:-openmpi}"
    while [ $# -gt 0 ]; do
        case "$1" in
            -n) per_host="$2"; shift 2 ;;
            --mpi) mpi="$2"; shift 2 ;;
            --) shift; break ;;
            *) break ;;
        esac
    done
    [ $# -ge 1 ] || die "usage: cluster.sh run [-n RANKS_PER_HOST] [--mpi openmpi|mpich] [--] EXE ARGS..."
    cmd_status >/dev/null
    local hosts np list i
    hosts=$(cat "$STATE/hosts")
    np=$((hosts * per_host))
    list=$(for i in $(seq 0 $((hosts - 1))); do echo "$(host_ip "$i"):$per_host"; done | paste -sd,)
    case "$mpi" in
        openmpi)
            local launcher="${DELAYBENCH_MPIEXEC:-mpirun}"
            [[ "$launcher" == *mpich* ]] && launcher=mpirun.openmpi
            exec "$launcher" --allow-run-as-root --oversubscribe -np "$np" --host "$list" \
                --mca plm rsh --mca plm_rsh_agent "$STATE/agent" \
                --mca btl tcp,self,vader --mca btl_tcp_if_include "$SUBNET.0/24" \
                --mca oob_tcp_if_include "$SUBNET.0/24" --bind-to none "$@"
            ;;
        mpich)
            local launcher="${DELAYBENCH_MPIEXEC:-mpiexec.mpich}"
            [[ "$launcher" == *openmpi* || "$launcher" == mpirun ]] && launcher=mpiexec.mpich
            # MPICH's UCX netmod finds shared memory between the namespaces (one kernel):
            # TCP only, so that messages between emulated hosts cross the veth links.
            exec "$launcher" -launcher ssh -launcher-exec "$STATE/agent" -hosts "$list" \
                -iface "$BRIDGE" -genv UCX_TLS tcp,self -genv UCX_NET_DEVICES eth0 \
                -genv FI_PROVIDER tcp -n "$np" "$@"
            ;;
        *) die "--mpi $mpi: expected openmpi or mpich" ;;
    esac
}

case "${1:-}" in
    up) shift; cmd_up "$@" ;;
    down) cmd_down ;;
    status) cmd_status ;;
    check) cmd_check ;;
    agent) shift; cmd_agent "$@" ;;
    run) shift; cmd_run "$@" ;;
    slurm) shift; exec "$(dirname "$SELF")/slurm-cluster.sh" "$@" ;;
    *) die "usage: cluster.sh up|run|agent|status|check|down|slurm (see the top of this script)" ;;
esac
