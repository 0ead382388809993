//! Applications: an MPI program's communication, traced on a real machine, replayed on a
//! simulated fabric. A trace in the ranks text format ([`text`]) or OTF2 is read into a
//! [`program::Program`] (per rank, its MPI calls in order), its collectives are expanded
//! by their algorithms ([`collective`]), and its ranks are placed on the network's
//! endpoints; the result is the message trace the endpoints replay closed loop
//! ([`crate::traffic::trace`]).

pub mod collective;
#[cfg(feature = "otf2")]
pub mod otf2;
pub mod program;

#[cfg(test)]
mod tests;
