#!/usr/bin/env bash
# tests/slurm/slurm_sweep.sh BINARY: `pcie-arbsim sweep --backend slurm` against a real Slurm
# (issue 15): a one-node cluster (munged, slurmctld, slurmd from Debian's packages, on free
# loopback ports, all state in a temporary directory) brought up here and taken down at the
# end. Checks, each against the local backend's output for the same spec:
#   1. an array of 3 tasks x 2 points gives the same summary.csv and tidy tables;
#   2. a sweep whose follower is killed (SIGKILL) while its array runs, then run again, follows
#      the array it left (no second submission) and gives the same summary;
#   3. a point whose array task is cancelled before it runs is submitted again, and the sweep
#      still gives the same summary (two arrays in jobs.json).
# Exit 77 (ctest: skipped) where Slurm cannot start: not root, or the packages missing
# (scripts/install-deps installs them).
set -euo pipefail
bin=$(readlink -f "$1")
src=$(cd "$(dirname "$0")/../.." && pwd)
for prog in munged slurmctld slurmd sbatch squeue scancel; do
  command -v "$prog" >/dev/null || { echo "SKIP: $prog not installed (scripts/install-deps)"; exit 77; }
done
[ "$(id -u)" -eq 0 ] || { echo "SKIP: slurmd needs root here"; exit 77; }

work=$(mktemp -d /tmp/arbsim_slurm_XXXXXX)
chmod 755 "$work"
cleanup() {
  for pid in "$work"/slurmd.pid "$work"/slurmctld.pid "$work"/munge/munged.pid; do
    [ -s "$pid" ] && kill "$(cat "$pid")" 2>/dev/null || true
  done
  sleep 1
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; for l in "$work"/*.log "$work"/munge/*.log; do echo "== $l"; tail -20 "$l"; done; exit 1; }

# ---- a one-node cluster -----------------------------------------------------------------
ports=$(/usr/bin/python3 -c '
import socket
ss = [socket.socket() for _ in range(2)]
for s in ss: s.bind(("127.0.0.1", 0))
print(*[s.getsockname()[1] for s in ss])')
read -r ctld_port slurmd_port <<<"$ports"
host=$(hostname -s)
mkdir -p "$work/state" "$work/spool" "$work/munge"
chown munge:munge "$work/munge"
cat >"$work/slurm.conf" <<EOF
ClusterName=arbsimtest
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$work/munge/munge.socket
CredType=cred/munge
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/builtin
SchedulerParameters=sched_interval=1
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
ReturnToService=2
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF=$work/slurm.conf
runuser -u munge -- munged --socket="$work/munge/munge.socket" --pid-file="$work/munge/munged.pid" \
  --log-file="$work/munge/munged.log" --seed-file="$work/munge/seed" || { echo "SKIP: munged does not start"; exit 77; }
slurmctld -f "$SLURM_CONF" || fail "slurmctld does not start"
slurmd -f "$SLURM_CONF" || fail "slurmd does not start"
for _ in $(seq 60); do
  sinfo -h -o %t 2>/dev/null | grep -q idle && break
  sleep 0.5
done
sinfo -h -o %t | grep -q idle || fail "the node never became idle: $(sinfo 2>&1)"
echo "cluster up: $host, slurmctld on $ctld_port, slurmd on $slurmd_port"

# ---- the sweep ------------------------------------------------------------------------
cd "$work"
cat >base.yaml <<EOF
platform: $src/configs/platforms/seed000_fig2.yaml
sim: {log_level: warn, time_ns: 200000}
apps: [{name: s, type: stream, gpu: gpu0, size: {fixed: 64KiB}, count: 40}]
EOF
cat >spec.yaml <<'EOF'
base: base.yaml
product:
  sim.seed: [1, 2, 3]
  driver.policy: [rr, priority_s]
EOF
same_outputs() {  # same_outputs A B: summary.csv and every tidy table identical
  cmp "$1/summary.csv" "$2/summary.csv" || fail "$2/summary.csv differs from $1's: $(diff "$1/summary.csv" "$2/summary.csv" | head -5)"
  for t in "$1"/tables/*.csv; do cmp "$t" "$2/tables/$(basename "$t")" || fail "$2: $(basename "$t") differs"; done
}
jobs_in() { /usr/bin/python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["jobs"]))' "$1/slurm/jobs.json"; }
wait_for() { for _ in $(seq 200); do [ -e "$1" ] && return 0; sleep 0.05; done; fail "$1 never appeared"; }

"$bin" sweep spec.yaml --out local -j 2 >/dev/null 2>local.err || fail "local sweep: $(cat local.err)"
[ "$(grep -c ',ok,' local/summary.csv)" -eq 6 ] || fail "local sweep: not 6 points ok"

# 1. Same results from the array.
"$bin" sweep spec.yaml --out one --backend slurm --points-per-task 2 --poll 0.2 >/dev/null 2>one.err ||
  fail "slurm sweep: $(cat one.err)"
grep -q "3 array tasks of up to 2 points" one.err || fail "not 3 tasks of 2 points: $(cat one.err)"
same_outputs local one
echo "$SECONDS s: 1. array of 3 x 2 points: summary.csv and the $(ls local/tables | wc -l) tidy tables identical to the local backend's"

# 2. The follower killed while its array runs (one task at a time); run again: it follows.
"$bin" sweep spec.yaml --out killed --backend slurm -j 1 --poll 0.2 >/dev/null 2>killed.err &
follower=$!
wait_for killed/slurm/jobs.json
kill -KILL "$follower"
wait "$follower" 2>/dev/null || true
"$bin" sweep spec.yaml --out killed --backend slurm -j 1 --poll 0.2 >/dev/null 2>resumed.err ||
  fail "resumed sweep: $(cat resumed.err)"
[ "$(jobs_in killed)" -eq 1 ] || fail "the resumed sweep submitted again: $(cat killed/slurm/jobs.json)"
same_outputs local killed
if grep -q "following Slurm job" resumed.err; then how="followed the array still queued"; else how="found it finished"; fi
echo "$SECONDS s: 2. killed and resumed: one array, summary identical ($how)"

# 3. A task cancelled before it runs: its point is submitted again.
"$bin" sweep spec.yaml --out lost --backend slurm -j 1 --poll 0.2 >/dev/null 2>lost.err &
follower=$!
wait_for lost/slurm/jobs.json
job=$(/usr/bin/python3 -c 'import json; print(json.load(open("lost/slurm/jobs.json"))["jobs"][0]["id"])')
scancel "${job}_5"
wait "$follower" || fail "sweep with a cancelled task: $(cat lost.err)"
[ "$(jobs_in lost)" -eq 2 ] || fail "the lost point was not submitted again: $(cat lost/slurm/jobs.json)"
grep -q "submitting again 1 lost or killed points" lost.err || fail "no resubmission message: $(cat lost.err)"
same_outputs local lost
echo "$SECONDS s: 3. task 5 cancelled: point r0006 submitted again in a second array, summary identical"
