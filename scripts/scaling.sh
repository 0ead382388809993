#!/usr/bin/env bash
# The scaling table of docs/design/scaling.md and docs/reference/performance.md: simulated
# cycles/s, flit-hops/s and peak memory of 11x12x16, 32x32x32 and 64x64x64 tori at 0.1 and
# 0.4 flits/node/cycle (default router and routing, uniform 1-flit packets), on 1 and 2
# threads (set THREADS to choose, e.g. THREADS="1 2 4"), and with PROCS="2" also on that
# many MPI processes (the tool built with --features mpi; peak memory is then mpirun's).
# About 9 minutes on 2 cores. Needs GNU time (/usr/bin/time) and python3.
set -euo pipefail
cd "$(dirname "$0")/.."
features=()
if [ -n "${PROCS:-}" ]; then
    features=(--features mpi)
fi
cargo build --release --locked --quiet -p flitsim-cli "${features[@]}"
bin=target/release/flitsim
out=$(mktemp -d)
threads=${THREADS:-1 2}
runs=""
for t in $threads; do runs="$runs t$t"; done
for p in ${PROCS:-}; do runs="$runs p$p"; done
run() {
    local dims=$1 load=$2 cycles=$3
    for how in $runs; do
    local cmd=("$bin" run -q)
    case $how in
        t*) cmd+=(--threads "${how#t}") ;;
        p*) cmd=(mpirun --allow-run-as-root --oversubscribe -np "${how#p}" "${cmd[@]}") ;;
    esac
    /usr/bin/time -f "%M %e" -o "$out/time" "${cmd[@]}" -o "$out/r.json" --set "topology.dims=$dims" --set "traffic.load=$load" \
        --set sim.warmup=0 --set "sim.measure=$cycles" --set sim.drain_limit=0 --set stats.channel_counters=false
    python3 - "$dims" "$load" "$out" "$how" <<'PY'
import json, sys
dims, load, out, how = sys.argv[1:]
t = how[1:] + (" thr" if how[0] == "t" else " proc")
r = json.load(open(f"{out}/r.json"))
kib, sec = open(f"{out}/time").read().split()
sec = float(sec)
print(f"{dims:12} {r['topology']['nodes']:>8} nodes  load {load}  {t:>7}  {r['cycles']:>5} cycles  {sec:7.1f} s  "
      f"{r['cycles'] / sec:9.1f} cycles/s  {r['counters']['flit_traversals'] / sec / 1e6:5.2f} M flit-hops/s  peak {int(kib) / 1024:7.1f} MiB")
PY
    done
}
run "[11,12,16]" 0.1 1000
run "[11,12,16]" 0.4 1000
run "[32,32,32]" 0.1 1000
run "[32,32,32]" 0.4 1000
run "[64,64,64]" 0.1 1000
run "[64,64,64]" 0.4 200
rm -rf "$out"
