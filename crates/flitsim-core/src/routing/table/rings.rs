//! Dateline nodes per ring around failed links: flitsim's placement for the XT table
//! routing (Abts07, section 2.2, routes around failures by next-hop rules but describes
//! one dateline node per dimension; keys in `docs/papers.md`). With one node per
//! dimension the rules' detours join a broken ring up again and close a dependency cycle
//! across the two VCs of a class; a ring with a failed link gets its own dateline node
//! just past the failure instead, which the tables can express since they hold a VC
//! rule per entry. Table generation reads each ring's node from [`ring_datelines`] and,
//! in such a ring, counts a segment that uses a failed link
//! ([`uses_failed_link`]) as crossing.

use crate::topology::Topology;

/// Where each ring's dateline node is: the dimension's (one node per dimension, as the
/// XT's section 3 describes), or, in a ring whose links have failed, just past the
/// failure ([`ring_datelines`]).
#[derive(serde::Deserialize, serde::Serialize, Clone, Copy, Debug, Default, PartialEq, Eq, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RingDatelines {
    /// Every ring of a dimension has its dimension's dateline node (`dateline`), as the
    /// paper's XT: around failures the rules' detours can close a broken ring again.
    Dimension,
    /// A ring with a failed link has its dateline node just past the failure (the node
    /// after the first run of failed `+` links), so no packet crosses it along the ring:
    /// a packet whose segment in the ring uses a failed link or ends at that node starts
    /// the ring on VC0, and every hop out of that node, detours and re-entries included,
    /// is on VC1. Rings without failures keep their dimension's node, so routes without
    /// failures are the same as under `dimension`.
    #[default]
    AtFailures,
}

/// The dateline coordinate of every router's ring, `[router * ndims + dim]`, and whether
/// that ring has a failed link: `dateline[dim]`, or under [`RingDatelines::AtFailures`]
/// in a torus ring with a failed `+` link the node just past the end of the first run of
/// failed links.
pub fn ring_datelines(topo: &Topology, dateline: &[u32], mode: RingDatelines) -> (Vec<u32>, Vec<bool>) {
    let nd = topo.ndims();
    let mut at = Vec::with_capacity(topo.num_routers as usize * nd);
    let mut failed = Vec::with_capacity(topo.num_routers as usize * nd);
    let mut c = vec![0u32; nd];
    for r in 0..topo.num_routers {
        c.copy_from_slice(topo.coords(r));
        for d in 0..nd {
            let mut node = dateline[d];
            let mut broken_ring = false;
            if mode == RingDatelines::AtFailures && topo.wrap[d] {
                let k = topo.dims[d];
                let mut ring = c.clone();
                let mut broken = |x: u32| {
                    ring[d] = x;
                    topo.out_channel[(topo.router_at(&ring) * topo.ports + 2 * d as u32) as usize] == crate::topology::NONE
                };
                if let Some(x) = (0..k).find(|&x| broken(x) && !broken((x + 1) % k)) {
                    node = (x + 1) % k;
                    broken_ring = true;
                }
            }
            at.push(node);
            failed.push(broken_ring);
        }
    }
    (at, failed)
}

/// Does the straight segment along dimension `dim` from router `r` to coordinate `t`, in
/// direction `plus`, use a failed link?
pub(super) fn uses_failed_link(topo: &Topology, r: u32, dim: usize, t: u32, plus: bool) -> bool {
    let k = topo.dims[dim];
    let mut c = topo.coords(r).to_vec();
    while c[dim] != t {
        let x = topo.router_at(&c);
        if topo.out_channel[(x * topo.ports + 2 * dim as u32 + (!plus) as u32) as usize] == crate::topology::NONE {
            return true;
        }
        c[dim] = if plus { (c[dim] + 1) % k } else { (c[dim] + k - 1) % k };
    }
    false
}
