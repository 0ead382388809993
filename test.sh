#!/usr/bin/env bash
# Run every test: the Rust workspace (unit, integration, golden, property tests and the
# validation study), then the Python package's tests.
# Needs a Rust toolchain (https://rustup.rs) and Python >= 3.11 with venv; cargo and pip
# fetch the dependencies. Arguments go to `cargo test`.
set -euo pipefail
cd "$(dirname "$0")"
SECONDS=0

# Runs across MPI processes (the command-line tool's `mpi` feature) need an MPI library
# and mpirun (Debian's Open MPI) and, to build the bindings, libclang: installed when
# missing and we are root; otherwise the MPI tests are left out and say why.
have_mpi() {
    # (the unversioned libclang*.so link comes with libclang-dev, as do the headers bindgen needs)
    command -v mpirun >/dev/null 2>&1 && command -v mpicc >/dev/null 2>&1 && ldconfig -p 2>/dev/null | grep -q 'libclang[-0-9.]*\.so ('
}
if ! have_mpi && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "== installing Open MPI and libclang (runs across processes) =="
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends openmpi-bin libopenmpi-dev libclang-dev >/dev/null
fi
# OTF2 traces (the `otf2` feature: reading archives, `flitsim trace record` and its tracer)
# need the OTF2 library and headers: installed when missing and we are root; otherwise
# those tests are left out and say why.
have_otf2() {
    # (-lotf2: Debian's libotf2-trace-dev links libotf2.so to libopen-trace-format2)
    [ -f /usr/include/otf2/otf2.h ] && { compgen -G '/usr/lib/*/libotf2.so' >/dev/null || compgen -G /usr/lib/libotf2.so >/dev/null; }
}
if ! have_otf2 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "== installing the OTF2 library (application traces) =="
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends libotf2-trace-dev >/dev/null
fi
features=()
py_features=()
cli_features=()
if have_mpi; then
    cli_features+=(flitsim-cli/mpi)
else
    echo "note: Open MPI or libclang is missing and this is not root: the runs across processes are not tested (apt-get install openmpi-bin libopenmpi-dev libclang-dev)"
fi
if have_otf2; then
    cli_features+=(flitsim-cli/otf2)
    # The Python module is built with the engine's same features (compiled once).
    py_features=(--features otf2)
else
    echo "note: the OTF2 library is missing and this is not root: reading and recording OTF2 traces is not tested (apt-get install libotf2-trace-dev)"
fi
if [ ${#cli_features[@]} -gt 0 ]; then
    features=(--features "$(IFS=,; echo "${cli_features[*]}")")
fi
# Property tests draw their cases from a fixed seed, so a run is reproducible (the same
# cases on every machine); PROPTEST_RNG_SEED=$RANDOM explores others, and FUZZ_CASES
# deepens the config fuzz (e.g. 40000, ~4 minutes; see README).
export PROPTEST_RNG_SEED=${PROPTEST_RNG_SEED:-20261126}
# Every cargo command here selects the whole workspace and the Python module is built with
# the same features, so Cargo resolves each dependency alike and the engine is compiled once
# (for all three: the tests, the command line and the Python module).
# Formatting first (seconds): rustfmt.toml's settings, as `cargo fmt --all` writes them.
if ! cargo fmt --version >/dev/null 2>&1 && command -v rustup >/dev/null 2>&1; then
    rustup component add rustfmt || true
fi
if cargo fmt --version >/dev/null 2>&1; then
    cargo fmt --all --check || { echo "error: the code is not formatted: run cargo fmt --all" >&2; exit 1; }
else
    echo "note: rustfmt is missing and could not be installed: the format check is left out"
fi
# Lints next (a check build, a few minutes fresh): clippy's warnings are errors.
if ! cargo clippy --version >/dev/null 2>&1 && command -v rustup >/dev/null 2>&1; then
    rustup component add clippy || true
fi
if cargo clippy --version >/dev/null 2>&1; then
    cargo clippy --workspace --all-targets --locked "${features[@]}" -- -D warnings
else
    echo "note: clippy is missing and could not be installed: the lint check is left out"
fi
cargo test --workspace --locked "${features[@]}" "$@"

# The Python package (python/, crates/flitsim-py) in the virtualenv .venv: the pinned
# development requirements, the package built and installed (editable) by maturin, pytest.
# Every relative link in the Markdown pages resolves (seconds; the standard library only).
python3 scripts/check_links.py
# The engine's top-level modules import each other without a cycle.
python3 scripts/check_module_cycles.py
echo "== Python package: .venv, maturin develop, pytest =="
python=${PYTHON:-python3}
venv=.venv
if [ ! -x "$venv/bin/python" ]; then
    "$python" -m venv "$venv"
fi
# Install the pinned requirements when they changed (a hash of the file beside them).
stamp="$venv/.requirements-dev.sha256"
want=$(sha256sum python/requirements-dev.txt | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null || true)" != "$want" ]; then
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r python/requirements-dev.txt
    echo "$want" >"$stamp"
fi
# The report test opens HTML in headless Chromium (Debian's package): install it when
# missing and we are root; otherwise that test skips and says why.
if ! command -v chromium >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "== installing chromium (headless browser for the report test) =="
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null
    else
        echo "note: chromium is missing and this is not root: the HTML report's browser test will skip (apt-get install chromium)"
    fi
fi
# The dev profile: the test profile's settings, so maturin reuses the engine `cargo test`
# built and compiles only the bindings (maturin's `--profile test` would build a test harness).
VIRTUAL_ENV="$PWD/$venv" "$venv/bin/maturin" develop --locked --quiet "${py_features[@]}"
# The Python tests compare reports with the `flitsim` command's: the test-profile build
# `cargo test` just made (target/debug/flitsim; this only makes sure it is in place).
cargo build --workspace --bins --locked --quiet --profile test "${features[@]}"
target_dir=$(cargo metadata --format-version 1 --no-deps | "$venv/bin/python" -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')
FLITSIM_BIN="$target_dir/debug/flitsim" "$venv/bin/python" -m pytest python/tests -q

if have_mpi; then
    # Without the feature, a run started by mpirun is refused with the fix (this rebuilds
    # only the command line).
    echo "== the command line without the mpi feature =="
    # (with the otf2 feature when it is on, so the engine is not compiled again)
    if have_otf2; then
        cargo test --workspace --locked --test mpi --features flitsim-cli/otf2
    else
        cargo test --workspace --locked --test mpi
    fi
fi
echo "== all tests passed in $((SECONDS / 60)) min $((SECONDS % 60)) s =="
