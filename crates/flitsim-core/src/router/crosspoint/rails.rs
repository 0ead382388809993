//! Multi-rail route choice for the crosspoint switch's sources (SiCortex section 6.1):
//! the node-disjoint routes of each pair, around failed links, cached per pair.

use crate::routing::source::SourceRouting;

/// Multi-rail routes (SiCortex section 6.1: long messages "split into three separate
/// streams and sent multi-rail fashion over completely independent paths"): packet `seq`
/// of a pair takes rail `seq mod rails` among the pair's node-disjoint routes, shortest
/// first. Packets of a pair may then arrive out of order (the receiver reassembles; the
/// run counts them in `counters.packets_reordered`).
///
/// Around failed links (and the links of failed nodes) the rails are the disjoint routes
/// of the surviving graph (by Menger's theorem as many as survive, at least `d - 1`
/// after one failure), rebuilt when the routes change at a `[[faults.at]]` cycle. A
/// route whose VC decrements do not fit the VCs is left out (the node-order rule would
/// need a VC below 0); a pair left with none takes the shortest surviving route, which
/// the routing checked before the run.
#[derive(Clone, Debug)]
pub(super) struct Rails {
    solver: crate::topology::kautz::disjoint::DisjointRoutes,
    /// The failed links `solver` avoids (the routing's, compared by pointer).
    failed: std::sync::Arc<[(u32, u8)]>,
    /// (src, dst) -> the rails' (routing string, starting VC).
    cache: std::collections::HashMap<(u32, u32), Vec<(u64, u32)>>,
}

impl Rails {
    pub(super) fn new(routing: &SourceRouting) -> Self {
        let k = routing.kautz();
        let failed = std::sync::Arc::clone(routing.failed_links());
        let mut faults = crate::topology::kautz::faults::Faults::new(k);
        for &(r, p) in failed.iter() {
            faults.fail_link(r, p).expect("failed links are links of the graph");
        }
        Rails { solver: crate::topology::kautz::disjoint::DisjointRoutes::new(&faults), failed, cache: std::collections::HashMap::new() }
    }

    pub(super) fn pick(&mut self, routing: &SourceRouting, src: u32, dst: u32, seq: u32) -> (u64, u32) {
        if !std::sync::Arc::ptr_eq(&self.failed, routing.failed_links()) {
            *self = Rails::new(routing);
        }
        let Rails { solver, cache, .. } = self;
        let routes = cache.entry((src, dst)).or_insert_with(|| {
            let mut all = solver.routes(src, dst);
            all.retain(|ports| routing.fits(src, ports));
            all.truncate(routing.rails() as usize);
            all.iter().map(|ports| routing.string_of(src, ports)).collect()
        });
        if routes.is_empty() {
            return routing.route_string(src, dst);
        }
        routes[seq as usize % routes.len()]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::routing::RoutingFunction;

    /// The source routing of K(3, 3) with 4 VCs, 3 rails and `faults` appended.
    fn routing(faults: &str) -> SourceRouting {
        let toml = format!(
            "[topology]\ntype = \"kautz\"\ndegree = 3\ndiameter = 3\n[routing]\ntype = \"source\"\nrails = 3\n\
             [router]\ntype = \"crosspoint\"\nvcs = 4\n[traffic]\nload = 0.1\n{faults}"
        );
        let spec = crate::config::Config::from_toml(&toml, &[]).unwrap().validate().unwrap_or_else(|e| panic!("{e}"));
        let RoutingFunction::Source(r) = spec.routing else { panic!("source routing") };
        r
    }

    /// Walk a routing string from `src`: the (router, out-port) of every hop, and where
    /// it ends. Reads only the string and the graph.
    fn walk(r: &SourceRouting, src: u32, mut bits: u64) -> (Vec<(u32, u8)>, u32) {
        let (d, mut at, mut hops) = (r.kautz().degree() as usize, src, Vec::new());
        loop {
            let (here, _) = r.shift(&mut bits);
            if here == d {
                return (hops, at);
            }
            hops.push((at, here as u8));
            at = r.kautz().out_neighbour(at, here as u8);
            assert!(hops.len() < 20, "{src}: the string does not end");
        }
    }

    /// The distinct rails `pick` gives a pair over three consecutive packets.
    fn rails_of(rails: &mut Rails, r: &SourceRouting, s: u32, t: u32) -> Vec<Vec<(u32, u8)>> {
        let mut out: Vec<Vec<(u32, u8)>> = Vec::new();
        for seq in 0..3 {
            let (bits, vc) = rails.pick(r, s, t, seq);
            let (hops, end) = walk(r, s, bits);
            assert_eq!(end, t, "{s} -> {t} rail {seq} ends elsewhere");
            assert!(vc < 4, "{s} -> {t}: starting VC {vc}");
            if !out.contains(&hops) {
                out.push(hops);
            }
        }
        out
    }

    /// Around two failed links every rail avoids them and still ends at its destination;
    /// the rails of a pair stay node-disjoint; a pair whose intact-graph rails never used
    /// a failed link keeps exactly those rails, and every other pair keeps at least one.
    #[test]
    fn rails_route_around_failed_links() {
        let failed = [(5u32, 1u8), (20, 0)];
        let intact = routing("");
        let damaged = routing("[faults]\nlinks = [[5, 1], [20, 0]]\n");
        assert_eq!(&damaged.failed_links()[..], &failed[..]);
        let (mut a, mut b) = (Rails::new(&intact), Rails::new(&damaged));
        let (mut kept, mut affected, mut total) = (0, 0, 0);
        for s in 0..36 {
            for t in (0..36).filter(|&t| t != s) {
                let before = rails_of(&mut a, &intact, s, t);
                assert_eq!(before.len(), 3, "{s} -> {t}: K(3, 3) has 3 disjoint routes per pair");
                let after = rails_of(&mut b, &damaged, s, t);
                for hops in &after {
                    assert!(hops.iter().all(|h| !failed.contains(h)), "{s} -> {t} crosses a failed link: {hops:?}");
                }
                let inner: Vec<u32> = after.iter().flat_map(|h| h.iter().skip(1).map(|&(r, _)| r)).collect();
                let mut dedup = inner.clone();
                dedup.sort_unstable();
                dedup.dedup();
                assert_eq!(dedup.len(), inner.len(), "{s} -> {t}: rails share a switch: {after:?}");
                if before.iter().all(|h| h.iter().all(|x| !failed.contains(x))) {
                    assert_eq!(after, before, "{s} -> {t}: untouched rails changed");
                    kept += 1;
                } else {
                    assert!(!after.is_empty());
                    affected += 1;
                }
                total += after.len();
            }
        }
        assert!(affected > 0 && kept > affected, "kept {kept}, affected {affected}");
        assert!(total > 2 * 36 * 35, "{total} rails over 1260 pairs: most keep 3");
    }
}
