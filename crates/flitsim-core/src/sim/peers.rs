//! Peers: how one partition of a run reaches the partitions stepped by other processes
//! (MPI ranks, [`super::distributed`]). The core knows only this trait; the transport
//! (Open MPI through the `mpi` crate) lives in the command-line tool, behind its `mpi`
//! feature, so the core builds and tests without an MPI installation.
//!
//! Every method is collective: every process calls it, in the same order, with its own
//! contribution, and each gets the same answer. The engine calls them only at points
//! every process reaches in the same cycle with the same control flow (its decisions
//! depend only on values these calls made global).

/// The processes of one run. `Send + Sync` so that a simulation stays movable between
/// threads; a transport that must be called from one thread (MPI without thread
/// support) is used only from the thread that steps the simulation.
pub trait Peers: Send + Sync {
    /// This process's index, `0..size()`; process 0 writes the report.
    fn rank(&self) -> usize;
    /// How many processes share the run.
    fn size(&self) -> usize;
    /// All-to-all of one cycle's outboxes: `to[k]` goes to process `k` and `from[k]`
    /// receives what process `k` sent this one (both have `size()` entries; this
    /// process's own `to` entry is not sent and its `from` entry is left empty). Every
    /// pair exchanges, an empty box too. The buffers are reused from cycle to cycle.
    fn exchange(&self, to: &[Vec<u8>], from: &mut [Vec<u8>]);
    /// Element-wise sum over the processes, in place.
    fn sum(&self, v: &mut [u64]);
    /// Element-wise maximum over the processes, in place.
    fn max(&self, v: &mut [u64]);
    /// Process 0 receives every process's bytes, its own included, in process order;
    /// the others get `None`.
    fn gather(&self, mine: &[u8]) -> Option<Vec<Vec<u8>>>;
}

/// A run of one process: every collective is the identity. For tests of the
/// distributed engine's bookkeeping without MPI.
pub struct Alone;

impl Peers for Alone {
    fn rank(&self) -> usize {
        0
    }
    fn size(&self) -> usize {
        1
    }
    fn exchange(&self, _to: &[Vec<u8>], _from: &mut [Vec<u8>]) {}
    fn sum(&self, _v: &mut [u64]) {}
    fn max(&self, _v: &mut [u64]) {}
    fn gather(&self, mine: &[u8]) -> Option<Vec<Vec<u8>>> {
        Some(vec![mine.to_vec()])
    }
}
