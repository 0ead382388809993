//! The SeaStar router performance counters (Table 4 of the aging paper) and the
//! metrics built on them: per port RTR_PERF_VCv_BLOCKED, RTR_PERF_STALLED,
//! RTR_AGE_GROUP0/1 (the age histogram in four 64-wide bins), RTR_PERF_VCv_PKTS and
//! RTR_PERF_VCv_FLITS; the occupancy of Equation 17 (stalled cycles per packet) per port
//! direction; and the queueing delay per dimension.
//!
//! Definitions (the paper describes the registers in one line each):
//! * **VCv_BLOCKED** (input port, VC v): cycles in which VC v's routed head could not
//!   cross the crossbar for lack of room in its staging buffer (its buffer resource).
//! * **STALLED** (input port): cycles in which the port's crossbar input moved nothing
//!   although a routed head was waiting for staging room — "cycles spent waiting at the
//!   head of the crossbar because we could not profitably move a packet through it".
//! * **AGE_GROUP** (output port): the age of each packet as it is handed to the output
//!   (after Procedure 2), binned 0-63, 64-127, 128-191, 192-255. The hardware packs two
//!   32-bit counters per register; here each bin is a 64-bit count.
//! * **VCv_PKTS / VCv_FLITS** (input port): packets (heads) and flits received.
//! * **Queueing delay** (per output dimension): cycles from a head's arrival at a router
//!   to its hand-off to the output, averaged over the hops leaving through that
//!   dimension's ports (`eject` for the processor ports). It includes the router's
//!   zero-load pipeline (routing + crossbar delay).
//!
//! All counters count inside the measurement window only.

use serde::Serialize;

use crate::topology::dim_name;

/// Raw counters of every router.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct PerfCounters {
    ports: u32,
    vcs: u32,
    /// Per `(router, port, vc)`: VCv_BLOCKED.
    pub vc_blocked: Vec<u64>,
    /// Per `(router, port, vc)`: VCv_PKTS.
    pub vc_pkts: Vec<u64>,
    /// Per `(router, port, vc)`: VCv_FLITS.
    pub vc_flits: Vec<u64>,
    /// Per `(router, port)`: STALLED.
    pub stalled: Vec<u64>,
    /// Per `(router, output port)`: the age histogram (AGE_GROUP0 low/high, AGE_GROUP1
    /// low/high).
    pub age_hist: Vec<[u64; 4]>,
    /// Per output dimension (the last entry: ejection): summed queueing cycles.
    pub hop_cycles: Vec<u64>,
    /// Per output dimension: hops counted.
    pub hops: Vec<u64>,
}

/// One port direction summed over all routers.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct PortCounters {
    /// Port name (`+x`, `-x`, ..., `proc` for processor ports).
    pub port: String,
    /// RTR_PERF_VCv_BLOCKED per VC.
    pub vc_blocked: Vec<u64>,
    /// RTR_PERF_STALLED.
    pub stalled: u64,
    /// RTR_AGE_GROUP0/1: ages 0-63, 64-127, 128-191, 192-255 of packets leaving here.
    pub age_groups: [u64; 4],
    /// RTR_PERF_VCv_PKTS per VC.
    pub vc_pkts: Vec<u64>,
    /// RTR_PERF_VCv_FLITS per VC.
    pub vc_flits: Vec<u64>,
    /// Equation 17: stalled cycles per packet received on this port (all VCs).
    pub occupancy: f64,
}

/// Queueing delay of one dimension.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct DimQueueing {
    /// Dimension name (`x`, `y`, `z`, ..., or `eject`).
    pub dim: String,
    /// Hops leaving routers through this dimension's ports.
    pub hops: u64,
    /// Mean cycles from a head's arrival at the router to its hand-off to the output.
    pub mean_cycles: f64,
}

/// The counters in a result.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct CountersReport {
    /// Per port direction.
    pub ports: Vec<PortCounters>,
    /// Per output dimension.
    pub queueing: Vec<DimQueueing>,
    /// The age histogram over all ports (Figure 5 of the paper).
    pub age_groups: [u64; 4],
}

impl PerfCounters {
    /// Add another partition's counters (each partition counts only its own routers;
    /// the per-dimension totals add).
    pub fn merge(&mut self, o: &PerfCounters) {
        let add = |a: &mut Vec<u64>, b: &Vec<u64>| a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
        add(&mut self.vc_blocked, &o.vc_blocked);
        add(&mut self.vc_pkts, &o.vc_pkts);
        add(&mut self.vc_flits, &o.vc_flits);
        add(&mut self.stalled, &o.stalled);
        add(&mut self.hop_cycles, &o.hop_cycles);
        add(&mut self.hops, &o.hops);
        for (a, b) in self.age_hist.iter_mut().zip(&o.age_hist) {
            for k in 0..4 {
                a[k] += b[k];
            }
        }
    }

    /// Zeroed counters for `routers` routers of `ports` ports and `vcs` VCs, with `dims`
    /// queueing classes (network dimensions plus ejection).
    pub fn new(routers: u32, ports: u32, vcs: u32, dims: u32) -> Self {
        let nv = (routers * ports * vcs) as usize;
        let np = (routers * ports) as usize;
        PerfCounters {
            ports,
            vcs,
            vc_blocked: vec![0; nv],
            vc_pkts: vec![0; nv],
            vc_flits: vec![0; nv],
            stalled: vec![0; np],
            age_hist: vec![[0; 4]; np],
            hop_cycles: vec![0; dims as usize],
            hops: vec![0; dims as usize],
        }
    }

    /// Sum over routers per port direction; `port_name(p)` names port `p`.
    pub fn report(&self, port_name: impl Fn(u32) -> String) -> CountersReport {
        let (p_n, v_n) = (self.ports as usize, self.vcs as usize);
        let routers = self.stalled.len() / p_n.max(1);
        let ports = (0..p_n)
            .map(|p| {
                let mut c = PortCounters {
                    port: port_name(p as u32),
                    vc_blocked: vec![0; v_n],
                    stalled: 0,
                    age_groups: [0; 4],
                    vc_pkts: vec![0; v_n],
                    vc_flits: vec![0; v_n],
                    occupancy: 0.0,
                };
                for r in 0..routers {
                    let rp = r * p_n + p;
                    c.stalled += self.stalled[rp];
                    for b in 0..4 {
                        c.age_groups[b] += self.age_hist[rp][b];
                    }
                    for v in 0..v_n {
                        c.vc_blocked[v] += self.vc_blocked[rp * v_n + v];
                        c.vc_pkts[v] += self.vc_pkts[rp * v_n + v];
                        c.vc_flits[v] += self.vc_flits[rp * v_n + v];
                    }
                }
                let pkts: u64 = c.vc_pkts.iter().sum();
                c.occupancy = if pkts == 0 { 0.0 } else { c.stalled as f64 / pkts as f64 };
                c
            })
            .collect();
        let nd = self.hops.len();
        let queueing = (0..nd)
            .map(|d| DimQueueing {
                dim: if d + 1 == nd { "eject".into() } else { dim_name(d) },
                hops: self.hops[d],
                mean_cycles: if self.hops[d] == 0 { 0.0 } else { self.hop_cycles[d] as f64 / self.hops[d] as f64 },
            })
            .collect();
        let mut age_groups = [0u64; 4];
        for h in &self.age_hist {
            for b in 0..4 {
                age_groups[b] += h[b];
            }
        }
        CountersReport { ports, queueing, age_groups }
    }
}
