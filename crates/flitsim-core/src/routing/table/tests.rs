use super::*;
use crate::topology::TopologyConfig;

#[test]
fn automatic_dateline_on_a_region_edge() {
    // One region: no choice to make.
    assert_eq!(auto_x_dateline(11, 21, 1), None);
    // kx = 10, 4 planes per region: regions x 0-3, 4-7, 8-9; no single-plane region:
    // the right edge of the first region.
    assert_eq!(auto_x_dateline(10, 4, 3), Some(3));
    // kx = 9, 4 planes per region: regions 0-3, 4-7, 8: the single plane x = 8.
    assert_eq!(auto_x_dateline(9, 4, 3), Some(8));
    // One plane per region: every region is single; the first, x = 0.
    assert_eq!(auto_x_dateline(4, 1, 4), Some(0));
}

fn opts(region_size: u32) -> TableOptions {
    TableOptions { region_size, policy: VcPolicy::Dor, dateline: None, faults: false, ring_datelines: Default::default() }
}

fn torus(dims: &[u32]) -> Topology {
    let cfg: TopologyConfig = toml::from_str(&format!("type = \"torus\"\ndims = {dims:?}")).unwrap();
    Topology::build(&cfg, "topology").unwrap()
}

#[test]
fn tables_are_the_same_on_any_number_of_threads() {
    // Routers' tables are generated in parallel: with failed links (the XT's
    // next-hop rules) and several regions (global tables), every entry must be the
    // one-thread entry.
    let toml = "[topology]\ntype = \"torus\"\ndims = [6, 4, 4]\n[router]\nvcs = 2\n[routing]\ntype = \"table\"\n\
                vc_policy = \"v3\"\nregion_size = 16\ndateline = [5, 3, 3]\n[faults]\nrandom_link_fraction = 0.05\n\
                unroutable = \"skip\"\ncyclic_routes = \"run\"\n";
    let cfg = crate::config::Config::from_toml(toml, &[]).unwrap();
    let on = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        match pool.install(|| cfg.routes().unwrap().1) {
            crate::routing::RoutingFunction::Table(t) => (t.local, t.global),
            _ => unreachable!("table routing"),
        }
    };
    let one = on(1);
    assert!(one.1.iter().any(|e| *e != Entry::default()), "several regions: global entries");
    assert_eq!(one, on(2));
    assert_eq!(one, on(3));
}

#[test]
fn one_region_routes_exactly_like_dor() {
    let t = torus(&[5, 4, 3]);
    let dor = Dor::new(&t, vec![0, 1, 2], true, 4, 2);
    let tab = TableRouting::generate(&dor, &t, &opts(4096), "routing").unwrap();
    for r in 0..t.num_routers {
        for p in 0..t.ports {
            for v in 0..4 {
                for d in 0..t.num_nodes {
                    let want = dor.route(&t, r, p, v, d, 0);
                    // DOR on a hop that continues past the dateline only knows it from
                    // the arrival VC, as the table's KEEP rule does.
                    assert_eq!(tab.route(r, p, v, d), want, "router {r} port {p} vc {v} dest {d}");
                    assert_eq!(tab.lookup(r, p, d).1, Lookup::Local);
                }
            }
        }
    }
}

#[test]
fn tables_that_loop_are_reported() {
    // A 6-ring, one region: node 0 -> node 3 goes 0 -> 1 -> 2 -> 3 by DOR. Make
    // router 2 send it back (-x): the packet ping-pongs between routers 1 and 2 (1
    // still sends +x), a loop the walk must report.
    let t = torus(&[6]);
    let dor = Dor::new(&t, vec![0], true, 2, 1);
    let mut tab = TableRouting::generate(&dor, &t, &opts(4096), "routing").unwrap();
    assert_eq!(tab.path(&t, 0, 3, 0).unwrap().len(), 4);
    let minus = 1; // (port 2 * dim + 1: -x)
    assert_eq!(t.channels[t.out_channel[(2 * t.ports + minus) as usize] as usize].dst_router, 1);
    for p in 0..t.ports {
        let at = ((2 * t.ports + p) * tab.local_len + 3) as usize;
        tab.local[at].port = minus as u8;
    }
    let err = tab.path(&t, 0, 3, 0).unwrap_err().to_string();
    assert!(err.contains("the tables loop: a packet from 0 to 3 does not arrive"), "{err}");
    // Other pairs are untouched: 0 -> 2 still arrives in two hops.
    assert_eq!(tab.path(&t, 0, 2, 0).unwrap().len(), 3);
    // A reused vector holds only the last walk: the loop's hops do not linger.
    let mut hops = Vec::new();
    assert!(tab.path_into(&t, 0, 3, 0, &mut hops).is_err());
    tab.path_into(&t, 0, 2, 0, &mut hops).unwrap();
    assert_eq!(hops, tab.path(&t, 0, 2, 0).unwrap());
}

#[test]
fn regions_of_yz_planes_route_every_pair_minimally() {
    // 4x4x4 torus, regions of 16 nodes = one YZ plane each: 4 regions. The global
    // table moves in x to the destination's plane, then the local table routes y, z.
    let t = torus(&[4, 4, 4]);
    let dor = Dor::new(&t, vec![0, 1, 2], true, 2, 1);
    let tab = TableRouting::generate(&dor, &t, &opts(16), "routing").unwrap();
    assert_eq!(tab.regions(), (16, 4));
    for s in 0..t.num_nodes {
        for d in 0..t.num_nodes {
            let path = tab.path(&t, s, d, 0).unwrap();
            assert_eq!(path.len() as u32 - 1, t.node_distance(s, d), "{s} -> {d}");
            // Global lookups exactly while the packet is outside the destination's plane.
            for h in &path {
                let outside = t.coords(h.router)[0] != t.coords(t.router_of(d))[0];
                assert_eq!(h.table == Some(Lookup::Global), outside, "{s} -> {d} at router {}", h.router);
            }
            // The x hops come first: once y or z moved, x never does again.
            let dims: Vec<u32> = path[..path.len() - 1].iter().map(|h| h.port / 2).collect();
            assert!(dims.windows(2).all(|w| w[0] <= w[1]), "{s} -> {d}: {dims:?}");
        }
    }
    // XT ids put x slowest: node (x=1, y=0, z=0) is id 16.
    assert_eq!(tab.xt_nid(t.router_at(&[1, 0, 0])), 16);
}

#[test]
fn region_sizes_must_be_powers_of_two_and_whole_planes() {
    let t = torus(&[4, 4, 4]);
    let dor = Dor::new(&t, vec![0, 1, 2], true, 2, 1);
    let e = TableRouting::generate(&dor, &t, &opts(24), "routing").unwrap_err().to_string();
    assert!(e.contains("routing.region_size") && e.contains("power of two"), "{e}");
    let e = TableRouting::generate(&dor, &t, &opts(8), "routing").unwrap_err().to_string();
    assert!(e.contains("whole number of YZ planes") && e.contains("16 nodes each"), "{e}");
    assert!(TableRouting::generate(&dor, &t, &opts(32), "routing").is_ok());
}

#[test]
fn a_broken_ring_has_its_dateline_just_past_the_failure() {
    use super::{ring_datelines, RingDatelines};
    use crate::topology::NONE;
    // A 4x4x4 torus; router r = x + 4 y + 16 z; port 2 d is +d, 2 d + 1 is -d.
    let mut topo = torus(&[4, 4, 4]);
    let fail = |topo: &mut Topology, r: u32, p: u32| {
        let c = topo.out_channel[(r * topo.ports + p) as usize];
        let back = topo.channels[c as usize];
        topo.out_channel[(r * topo.ports + p) as usize] = NONE;
        topo.out_channel[(back.dst_router * topo.ports + (p ^ 1)) as usize] = NONE;
    };
    // The +z link of (1,1,0) (router 5), both ways: ring (1,1,*) in z breaks between z = 0
    // and z = 1, so its dateline node is z = 1.
    fail(&mut topo, 5, 4);
    // Router (2,0,2) = 34 fails, and with it two + links of each ring through it: its x
    // and z rings' datelines are at 3 (after 1 -> 2 and 2 -> 3), its y ring's at 1 (after
    // 3 -> 0 and 0 -> 1).
    for p in 0..6 {
        if topo.out_channel[(34 * topo.ports + p) as usize] != NONE {
            fail(&mut topo, 34, p);
        }
    }
    let defaults = [0, 0, 0];
    let (at, failed) = ring_datelines(&topo, &defaults, RingDatelines::AtFailures);
    let nd = 3;
    for r in 0..topo.num_routers {
        let c = topo.coords(r).to_vec();
        let (x, y, z) = (c[0], c[1], c[2]);
        let want = [
            if (y, z) == (0, 2) { 3 } else { 0 },
            if (x, z) == (2, 2) { 1 } else { 0 },
            if (x, y) == (1, 1) {
                1
            } else if (x, y) == (2, 0) {
                3
            } else {
                0
            },
        ];
        let broken = [(y, z) == (0, 2), (x, z) == (2, 2), (x, y) == (1, 1) || (x, y) == (2, 0)];
        for d in 0..nd {
            assert_eq!(at[r as usize * nd + d], want[d], "router {c:?} dim {d}");
            assert_eq!(failed[r as usize * nd + d], broken[d], "router {c:?} dim {d}");
        }
    }
    // One node per dimension: every ring at the dimension's node, none marked.
    let (at, failed) = ring_datelines(&topo, &defaults, RingDatelines::Dimension);
    assert!(at.chunks(3).all(|c| c == defaults) && failed.iter().all(|&f| !f));
}
