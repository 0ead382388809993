#!/usr/bin/env bash
# The one-thread bound of docs/reference/performance.md: per round, one BookSim2 run
# of the comparison case (its config is `flitsim bench`'s, in
# crates/flitsim-cli/src/booksim.rs), then the hand-specialised probe
# (crates/flitsim-core/examples/lean_bound.rs) and flitsim's two comparison cases, three
# runs each (medians), with each one's speed-up over that BookSim2 run.
# Usage: scripts/probe_vs_booksim.sh BOOKSIM2_BINARY [ROUNDS, default 5]
# About 20 s a round. Needs GNU time (/usr/bin/time) and bc.
set -euo pipefail
if [ $# -lt 1 ] || [ ! -x "$1" ]; then
    echo "usage: $0 BOOKSIM2_BINARY [ROUNDS] (the path of a built BookSim2 'booksim')" >&2
    exit 2
fi
booksim=$(realpath "$1")
rounds=${2:-5}
cd "$(dirname "$0")/.."
cargo build --release --locked --quiet -p flitsim-cli
cargo build --release --locked --quiet -p flitsim-core --example lean_bound
bin=target/release/flitsim
probe=target/release/examples/lean_bound
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The config string of booksim.rs, between its opening and closing quotes.
sed -n '/^pub const CONFIG: &str = "\\$/,/^";$/p' crates/flitsim-cli/src/booksim.rs | sed '1d;$d' > "$work/case.cfg"
median3() { sort -n | sed -n 2p; }
ratio() { echo "$1 / $2" | bc -l | cut -c1-5; }
for r in $(seq "$rounds"); do
    # (BookSim2's main returns -1 on success: its status says nothing; its output does.)
    (cd "$work" && /usr/bin/time -f '%e' -o time.txt "$booksim" case.cfg > out.txt 2>&1) || true
    grep -q 'Time taken is' "$work/out.txt" || { echo "BookSim2 failed:" >&2; tail "$work/out.txt" >&2; exit 1; }
    b=$(tail -1 "$work/time.txt")
    p=$(for _ in 1 2 3; do "$probe" | sed -n 's/.* in \([0-9.]*\)s.*/\1/p'; done | median3)
    one=$("$bin" bench --case booksim-mesh8x8 --repeat 3 | sed 's/.*"seconds":\([0-9.]*\).*/\1/')
    two=$("$bin" bench --case booksim-mesh8x8-2t --repeat 3 | sed 's/.*"seconds":\([0-9.]*\).*/\1/')
    echo "round $r $(date -u +%H:%M:%S) UTC: BookSim2 ${b} s | probe ${p} s, $(ratio "$b" "$p")x | flitsim 1 thread ${one} s, $(ratio "$b" "$one")x | 2 threads ${two} s, $(ratio "$b" "$two")x"
done
