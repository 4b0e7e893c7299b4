#!/usr/bin/env bash
# srun as kernelscope's GPU runner, against a real single-node Slurm cluster started here:
# munged, slurmctld and slurmd (Debian's slurm-wlm 22.05), configured in a temporary
# directory, run as root without systemd, stopped at the end. The job's program is the fake
# GPU runner (tests/gpu/fake/fake-gpu-runner.py), which answers with H200 recordings.
#
# Checks: a run whose request and result pass through srun's stdin and stdout; a sweep whose
# configurations, and a profile whose kernels, run as parallel job steps of one allocation
# (salloc); a cancelled run whose
# job step is gone afterwards (srun forwards the signal kernelscope's process-group kill
# sends, and the step is cancelled).
#
# usage: slurm-runner-test.sh KERNELSCOPE SOURCE_DIR
# Exit 77 (skipped) only where the Slurm packages are not installed and cannot be.
set -uo pipefail
KS=$(realpath "$1")
SRC=$(realpath "$2")
for tool in slurmctld slurmd munged mungekey srun salloc squeue scancel; do
  if ! command -v "$tool" >/dev/null; then
    echo "SKIP: $tool is not installed (scripts/setup.sh installs slurmctld, slurmd, slurm-client and munge)"
    exit 77
  fi
done
if [ "$(id -u)" != 0 ]; then
  echo "SKIP: a Slurm cluster of one's own needs root here (slurmd runs jobs as their user)"
  exit 77
fi
T=$(mktemp -d /tmp/ks-slurm.XXXXXX)
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
  sleep 1
  for p in "${PIDS[@]}"; do kill -9 "$p" 2>/dev/null; done
  rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
fail() {
  echo "FAIL: $*"
  for f in "$T"/log/*; do echo "--- $f"; tail -20 "$f"; done
  exit 1
}
mkdir -p "$T"/{log,state,spool,munge}
chmod 700 "$T/munge"
mungekey --create --keyfile="$T/munge/munge.key" >/dev/null 2>&1 || fail "mungekey"
chmod 400 "$T/munge/munge.key"
munged --key-file="$T/munge/munge.key" --socket="$T/munge/socket" --pid-file="$T/munge/pid" \
  --log-file="$T/log/munged.log" --seed-file="$T/munge/seed" --force || fail "munged did not start"
PIDS+=("$(cat "$T/munge/pid")")

HOST=$(hostname -s)
# Ports from this process's id, so that two checkouts' tests do not meet.
BASE=$((20000 + ($$ % 20000)))
cat >"$T/slurm.conf" <<CONF
ClusterName=kstest
SlurmctldHost=$HOST
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$BASE
SlurmdPort=$((BASE + 1))
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$T/munge/socket
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool
SlurmctldPidFile=$T/slurmctld.pid
SlurmdPidFile=$T/slurmd.pid
SlurmctldLogFile=$T/log/slurmctld.log
SlurmdLogFile=$T/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
MpiDefault=none
ReturnToService=2
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SlurmctldTimeout=30
SlurmdTimeout=30
KillWait=2
NodeName=$HOST CPUs=$(nproc) State=UNKNOWN
PartitionName=debug Nodes=$HOST Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4
CONF
export SLURM_CONF="$T/slurm.conf"
slurmctld -f "$SLURM_CONF" -i || fail "slurmctld did not start"
slurmd -f "$SLURM_CONF" || fail "slurmd did not start"
sleep 1
PIDS+=("$(cat "$T/slurmctld.pid" 2>/dev/null)" "$(cat "$T/slurmd.pid" 2>/dev/null)")
for _ in $(seq 60); do
  sinfo -h -o %T 2>/dev/null | grep -qE '^(idle|mixed|allocated)' && break
  sleep 0.5
done
sinfo -h -o %T | grep -qE '^(idle|mixed|allocated)' || fail "the node did not come up: $(sinfo 2>&1)"
echo "Slurm is up: $(sinfo -h -o '%P %T %N')"

cd "$SRC"
FAKE="$SRC/tests/gpu/fake/fake-gpu-runner.py"
REC="$SRC/tests/golden/gpu"

# 1. A run through srun: request in, result out, unchanged.
out=$(timeout 120 "$KS" run examples/saxpy.rs --runner "srun --time=5 --ntasks=1 $FAKE --mode run --save-request $T/seen.req $REC/saxpy.run.result" 2>&1) ||
  fail "run through srun: $out"
echo "$out" | grep -q "saxpy on NVIDIA H200" || fail "run through srun said: $out"
"$KS" run examples/saxpy.rs --save-request "$T/sent.req" >/dev/null || fail "--save-request"
cmp -s "$T/sent.req" "$T/seen.req" || fail "the request that reached the job differs from the one sent"
echo "ok: a run through srun, the request passed unchanged"

# 2. A sweep as parallel job steps of one allocation.
out=$(timeout 120 salloc --ntasks="$(nproc)" --time=5 --job-name=ks-sweep "$KS" run examples/saxpy.rs \
  --sweep block=64,128,256 --spec 'grid = ceil(n / block)' --jobs 3 \
  --runner "srun --ntasks=1 --exact $FAKE --mode run $REC/sweep/saxpy.block{block}.run.result" 2>&1) ||
  fail "sweep through srun: $out"
echo "$out" | grep -q "fastest: block = 256" || fail "sweep through srun said: $out"
echo "ok: a sweep as parallel job steps"

# 2b. A profile of every kernel of a file as parallel job steps of one allocation.
out=$(timeout 120 salloc --ntasks="$(nproc)" --time=5 --job-name=ks-kernels "$KS" profile \
  tests/fixtures/gpu/two_matmuls.rs --all-kernels --jobs 2 \
  --runner "srun --ntasks=1 --exact $FAKE --mode profile $REC/{kernel}.profile.result" 2>&1) ||
  fail "profile of several kernels through srun: $out"
echo "$out" | grep -q "matmul_naive on NVIDIA H200" && echo "$out" | grep -q "matmul_tiled on NVIDIA H200" ||
  fail "profile of several kernels through srun said: $out"
echo "ok: a profile of several kernels as parallel job steps"

# 3. A cancelled run: kernelscope kills its runner's process group (as a timeout or the
# editor's cancel does); srun passes the signal on and the job step ends.
"$KS" run examples/saxpy.rs --timeout 8 \
  --runner "srun --time=5 --ntasks=1 --job-name=ks-cancel $FAKE --hang $T/hang.pids $REC/saxpy.run.result" \
  >"$T/cancel.out" 2>&1 &
KSPID=$!
for _ in $(seq 40); do [ -f "$T/hang.pids" ] && break; sleep 0.5; done
[ -f "$T/hang.pids" ] || fail "the hanging job never started: $(cat "$T/cancel.out")"
squeue -h -n ks-cancel -o %i | grep -q . || fail "no ks-cancel job while it hangs"
wait $KSPID
grep -q "timed out\|gave up\|did not answer\|time" "$T/cancel.out" || fail "the timed-out run said: $(cat "$T/cancel.out")"
for _ in $(seq 20); do
  squeue -h -n ks-cancel -o %i | grep -q . || break
  sleep 0.5
done
squeue -h -n ks-cancel -o %i | grep -q . && fail "the job is still there after the run was cancelled: $(squeue)"
read -r fakepid sleeppid <"$T/hang.pids"
# slurmd kills the step's processes as it ends it: give it a moment on a loaded machine.
for _ in $(seq 20); do
  kill -0 "$fakepid" 2>/dev/null || kill -0 "$sleeppid" 2>/dev/null || break
  sleep 0.5
done
kill -0 "$fakepid" 2>/dev/null && fail "the job's program is still running"
kill -0 "$sleeppid" 2>/dev/null && fail "the job's child is still running"
echo "ok: a cancelled run cancels its job step"
echo PASS
