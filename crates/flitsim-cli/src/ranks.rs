//! Ranks: one run across processes started by `mpirun`. The transport behind
//! the core's [`flitsim_core::sim::peers::Peers`] is Open MPI (any MPI) through the
//! `mpi` crate, compiled in with this tool's `mpi` feature (`cargo build --release
//! --features mpi`; it needs an MPI library, e.g. Debian's `libopenmpi-dev`, and
//! `libclang-dev` to build). A tool built without it refuses to run under `mpirun` with
//! more than one process, rather than have every process simulate the whole run.

/// Processes the launcher started, from its environment (Open MPI, or an MPICH-style
/// process manager), without initialising MPI: 1 when not started by `mpirun`.
pub fn launched() -> usize {
    ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"].iter().find_map(|v| std::env::var(v).ok().and_then(|s| s.parse().ok())).unwrap_or(1)
}

/// This process's index among those the launcher started (0 when not under `mpirun`):
/// only process 0 prints and writes the report.
pub fn rank() -> usize {
    ["OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"].iter().find_map(|v| std::env::var(v).ok().and_then(|s| s.parse().ok())).unwrap_or(0)
}

/// The peers of this process when started by `mpirun` with more than one process.
#[cfg(feature = "mpi")]
pub fn peers() -> Result<Box<dyn flitsim_core::sim::peers::Peers>, String> {
    let universe = mpi::initialize().ok_or("MPI was already initialised")?;
    let world = universe.world();
    Ok(Box::new(mpi_peers::MpiPeers { world, _universe: universe }))
}

#[cfg(not(feature = "mpi"))]
pub fn peers() -> Result<Box<dyn flitsim_core::sim::peers::Peers>, String> {
    Err(format!(
        "started by mpirun with {} processes, but this flitsim was built without MPI; build it with `cargo build --release --features mpi` (needs an MPI library such as Debian's libopenmpi-dev, and libclang-dev), or run one process with --threads",
        launched()
    ))
}

#[cfg(feature = "mpi")]
mod mpi_peers {
    use flitsim_core::sim::peers::Peers;
    use mpi::collective::SystemOperation;
    use mpi::datatype::{Partition, PartitionMut};
    use mpi::topology::SimpleCommunicator;
    use mpi::traits::*;
    use mpi::Count;

    /// `MPI_COMM_WORLD`; MPI is finalised when this is dropped (with the run's share).
    pub struct MpiPeers {
        pub world: SimpleCommunicator,
        pub _universe: mpi::environment::Universe,
    }

    // SAFETY: MPI is initialised on the main thread, which is the thread that steps the
    // simulation and so the only one that calls these methods (the command runs the
    // simulation on its main thread and never moves it); the handles are never used
    // from two threads.
    unsafe impl Send for MpiPeers {}
    unsafe impl Sync for MpiPeers {}

    /// Where each of the concatenated blocks of `counts` starts.
    fn displacements(counts: &[Count]) -> Vec<Count> {
        counts
            .iter()
            .scan(0, |at, &c| {
                let d = *at;
                *at += c;
                Some(d)
            })
            .collect()
    }

    impl MpiPeers {
        /// Every process's `mine`, concatenated, with each one's length.
        fn all_gather(&self, mine: &[u8]) -> (Vec<u8>, Vec<Count>) {
            let n = self.world.size() as usize;
            let mut counts = vec![0 as Count; n];
            self.world.all_gather_into(&(mine.len() as Count), &mut counts[..]);
            let displs = displacements(&counts);
            let mut all = vec![0u8; counts.iter().map(|&c| c as usize).sum()];
            {
                let mut part = PartitionMut::new(&mut all[..], &counts[..], &displs[..]);
                self.world.all_gather_varcount_into(mine, &mut part);
            }
            (all, counts)
        }
    }

    impl Peers for MpiPeers {
        fn rank(&self) -> usize {
            self.world.rank() as usize
        }
        fn size(&self) -> usize {
            self.world.size() as usize
        }
        fn exchange(&self, to: &[Vec<u8>], from: &mut [Vec<u8>]) {
            // The lengths (MPI_Alltoall), then the bytes (MPI_Alltoallv); this process's
            // own box is not sent.
            let me = self.rank();
            let send_counts: Vec<Count> = to.iter().enumerate().map(|(k, b)| if k == me { 0 } else { b.len() as Count }).collect();
            let mut recv_counts = vec![0 as Count; to.len()];
            self.world.all_to_all_into(&send_counts[..], &mut recv_counts[..]);
            let send: Vec<u8> = to.iter().enumerate().filter(|&(k, _)| k != me).flat_map(|(_, b)| b.iter().copied()).collect();
            let send_displs = displacements(&send_counts);
            let recv_displs = displacements(&recv_counts);
            let mut recv = vec![0u8; recv_counts.iter().map(|&c| c as usize).sum()];
            {
                let part = Partition::new(&send[..], &send_counts[..], &send_displs[..]);
                let mut into = PartitionMut::new(&mut recv[..], &recv_counts[..], &recv_displs[..]);
                self.world.all_to_all_varcount_into(&part, &mut into);
            }
            for ((f, &c), &d) in from.iter_mut().zip(&recv_counts).zip(&recv_displs) {
                f.clear();
                f.extend_from_slice(&recv[d as usize..d as usize + c as usize]);
            }
        }
        fn sum(&self, v: &mut [u64]) {
            let mine = v.to_vec();
            self.world.all_reduce_into(&mine[..], v, SystemOperation::sum());
        }
        fn max(&self, v: &mut [u64]) {
            let mine = v.to_vec();
            self.world.all_reduce_into(&mine[..], v, SystemOperation::max());
        }
        fn gather(&self, mine: &[u8]) -> Option<Vec<Vec<u8>>> {
            let (all, counts) = self.all_gather(mine);
            if self.rank() != 0 {
                return None;
            }
            let mut at = 0;
            Some(
                counts
                    .iter()
                    .map(|&c| {
                        let b = all[at..at + c as usize].to_vec();
                        at += c as usize;
                        b
                    })
                    .collect(),
            )
        }
    }
}
