#!/usr/bin/env bash
# Run every test: unit, integration, golden, property tests and the validation study.
# Needs only a Rust toolchain (https://rustup.rs); cargo fetches the dependencies.
set -euo pipefail
cd "$(dirname "$0")"
cargo test --workspace --locked "$@"
