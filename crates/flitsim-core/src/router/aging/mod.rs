//! SeaStar age-based output arbitration (Cray XT; AbtsWeisser07, section 2.3; keys in
//! `docs/papers.md`).
//!
//! * [`clock`]: the per-router age clock and the three procedures of section 2.3 —
//!   Procedure 1 on packet receipt at an input port, Procedure 2 (age calculation at the
//!   head of an output staging buffer, and the hand-off), Procedure 3 (age clock
//!   management every cycle) — bit-exact on the 11-bit header age field.
//! * [`params`]: derivation of the aging parameters from the topology (section 3:
//!   Equations 4-16, the per-dimension biases, T_bias and the age clock period), used by
//!   `flitsim aging-params`.
//!
//! The buffered-crossbar router ([`crate::router::buffered`]) uses the clock and applies
//! the arbitration policy (AGE_RR_SELECT, round-robin and age pointers per output).

pub mod clock;
pub mod params;
