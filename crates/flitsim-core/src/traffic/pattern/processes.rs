//! Processes paired at random: the high-contention experiment of the SiCortex paper
//! (`papers/sicortex-kautz-fabric.txt`, section 6.1: "the average unidirectional message
//! bandwidth across 2500 randomly assigned pairs of processors ... while all processors
//! are exchanging messages").
//!
//! Every node hosts `per_node` processes, process `q` of node `s` having the id
//! `s * per_node + q`. Of the `per_node * N` processes, `active` (an even number) take
//! part: a uniformly random subset, matched into uniformly random pairs (a Fisher-Yates
//! shuffle of all process ids, the first `active` of it paired two by two). Each active
//! process streams to its partner and its partner to it, so a node carries one stream per
//! active process, to the node of that process's partner (itself, when both processes of
//! a pair share a node: that stream never enters the network). A node's DMA engine serves
//! its active processes round robin: its `k`-th packet (or message) is its
//! `(k mod a)`-th active process's, in process order, where `a` is the node's active
//! count. A node with no active process sends nothing.

use crate::error::{Error, Result};
use crate::rng::{below, domain, stream};

/// The built pairing: per node, the partner node of each of its active processes.
#[derive(Clone, Debug)]
pub(crate) struct ProcessPairs {
    /// `start[s]..start[s + 1]` indexes node `s`'s active processes in `partner_node`.
    start: Box<[u32]>,
    /// Partner's node of each active process, node by node, in process order.
    partner_node: Box<[u32]>,
}

/// Stream index of the pairing draws within the pattern domain (the random permutation
/// uses 0), so the two patterns do not share draws under one seed.
const STREAM: u64 = 2;

/// Most processes in a pairing (2^26: its tables then take at most 512 MiB).
const MAX_PROCESSES: u64 = 1 << 26;

impl ProcessPairs {
    /// Validate and draw the pairing of `per_node` processes on each of `n` nodes, `active`
    /// of them taking part (default: all). `path` is the pattern table's key path.
    pub(crate) fn build(n: u32, per_node: u32, active: Option<u32>, seed: u64, path: &str) -> Result<Self> {
        if per_node == 0 {
            return Err(Error::config(
                format!("{path}.per_node"),
                "is 0: every node needs at least one process; use per_node >= 1 (the SC5832 has 6)",
            ));
        }
        let total = u64::from(n) * u64::from(per_node);
        if total > MAX_PROCESSES {
            return Err(Error::config(format!("{path}.per_node"), format!("{n} nodes x {per_node} processes is {total}, more than the {MAX_PROCESSES} processes a pairing may hold; use fewer per node")));
        }
        let total = total as u32;
        let active_path = format!("{path}.active");
        let active = match active {
            Some(a) if a > total => {
                return Err(Error::config(
                    active_path,
                    format!("{a} active processes, but the {n} nodes host only {total} ({per_node} each); use at most {total}"),
                ));
            }
            Some(a) => a,
            None if !total.is_multiple_of(2) => {
                return Err(Error::config(
                    active_path,
                    format!("all {total} processes ({n} nodes x {per_node}) cannot be paired one-to-one, an odd number; give an even `active` count, e.g. {}", total - 1),
                ));
            }
            None => total,
        };
        if active < 2 || active % 2 != 0 {
            return Err(Error::config(
                active_path,
                format!("{active} active processes cannot be paired one-to-one; give an even number >= 2"),
            ));
        }
        let mut ids: Vec<u32> = (0..total).collect();
        let mut rng = stream(seed, domain::PATTERN, STREAM);
        for i in (1..total).rev() {
            let j = below(&mut rng, i + 1);
            ids.swap(i as usize, j as usize);
        }
        // partner[process] = partner process, or u32::MAX when the process is idle.
        let mut partner = vec![u32::MAX; total as usize];
        for pair in ids[..active as usize].chunks_exact(2) {
            partner[pair[0] as usize] = pair[1];
            partner[pair[1] as usize] = pair[0];
        }
        let mut start = Vec::with_capacity(n as usize + 1);
        let mut partner_node = Vec::with_capacity(active as usize);
        start.push(0);
        for node_procs in partner.chunks_exact(per_node as usize) {
            partner_node.extend(node_procs.iter().filter(|&&q| q != u32::MAX).map(|&q| q / per_node));
            start.push(partner_node.len() as u32);
        }
        Ok(ProcessPairs { start: start.into(), partner_node: partner_node.into() })
    }

    /// Does node `src` host an active process?
    #[inline]
    pub(crate) fn is_source(&self, src: u32) -> bool {
        self.start[src as usize + 1] > self.start[src as usize]
    }

    /// Active processes on node `src`.
    #[inline]
    pub(crate) fn active_at(&self, src: u32) -> u32 {
        self.start[src as usize + 1] - self.start[src as usize]
    }

    /// Destination of node `src`'s `k`-th packet (or message); `src` must be a source.
    #[inline]
    pub(crate) fn dest(&self, src: u32, k: u64) -> u32 {
        let lo = self.start[src as usize];
        self.partner_node[(lo + (k % u64::from(self.active_at(src))) as u32) as usize]
    }
}
