#!/usr/bin/env bash
# The evidence for the torus routing defaults: the saturation throughput (`flitsim
# saturation`: the highest load at which every measured packet arrives and mean latency
# stays within 3x zero-load) of every combination of routing.ties, routing.dateline_class
# and router.vc_allocator, on an 8x8 and a 4x4x4 torus (64 nodes each) with 1-, 4- and
# 16-flit packets, uniform traffic, otherwise flitsim's default router (4 VCs x 8 flits,
# 1-cycle stages and links). Prints a Markdown table; experiments/validation/booksim/README.md
# holds its output.
# Usage: scripts/torus_policies.sh   (about 5 minutes on one core; FLITSIM=path uses
# that binary instead of building one)
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${FLITSIM:-}" ]; then
    cargo build --release --locked --quiet -p flitsim-cli
fi
bin=${FLITSIM:-target/release/flitsim}
printf '| torus | flits | VC allocator | dateline class |'
for ties in plus random source_parity destination_parity; do printf ' %s |' "$ties"; done
printf '\n|---|---|---|---|---|---|---|---|\n'
for dims in "[8, 8]" "[4, 4, 4]"; do
    for size in 1 4 16; do
        for va in separable_input_first islip; do
            for class in at_wrap at_entry; do
                printf '| %s | %s | %s | %s |' "$dims" "$size" "$va" "$class"
                for ties in plus random source_parity destination_parity; do
                    sat=$("$bin" saturation --json \
                        -s "topology.dims=$dims" -s traffic.packet_size="$size" \
                        -s router.vc_allocator="$va" -s routing.dateline_class="$class" -s routing.ties="$ties" \
                        -s sim.warmup=5000 -s sim.measure=10000 | sed 's/.*"saturation":\([0-9.]*\).*/\1/')
                    printf ' %s |' "$sat"
                done
                printf '\n'
            done
        done
    done
done
