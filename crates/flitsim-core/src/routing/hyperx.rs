//! Routing on a HyperX (Ahn et al., SC 2009; not among the project's papers, so built
//! from the routes' standard definitions): dimension-order, Valiant and UGAL-L routes,
//! with VC classes that keep each deadlock-free.
//!
//! * **Dimension order** (`dor`, the paper's DOR baseline): correct the differing
//!   coordinates in dimension order, x first, each in **one** hop (a dimension is a
//!   complete graph): at most `L` hops. Of the `K_k` parallel links the copy
//!   `src mod K_k` is taken (the source endpoint's id), so a pair's packets stay in
//!   order, a router's endpoints spread over the copies, and uniform traffic spreads
//!   evenly over them whenever `K_k` divides `T * S_0 * ... * S_{k-1}` (the sources
//!   whose routes cross a dimension-`k` link are that many consecutive ids).
//! * **Valiant** (`valiant`): dimension order to an intermediate router drawn per packet
//!   (from the seed, the source and the packet number, uniform over all routers), then
//!   dimension order to the destination: at most `2 L` hops. The intermediate rides in
//!   the header (`route` = router + 1 until the packet reaches it); a draw that falls on
//!   the source's or the destination's router leaves the packet minimal.
//! * **UGAL** (`ugal`, UGAL-L): at the source router each packet draws an intermediate as
//!   for Valiant and takes the Valiant route only when the minimal one's first output
//!   queue times its hops exceeds the Valiant one's (`q_m H_m > q_nm H_nm`; ties
//!   minimal), the queues as the router's credit counters know them ([`PortQueues`]).
//!
//! **VC classes.** Dimension order crosses dimensions in increasing order, so a channel
//! of dimension `k` only ever waits on channels of higher dimensions: the channel
//! dependency graph is acyclic with one class (every VC). Valiant and UGAL route
//! minimally or to the intermediate in class 0 (the lower half of the VCs) and from the
//! intermediate on in class 1 (the upper half): two dimension-ordered phases, the class
//! only rising. The tool's dependency check proves both (`flitsim routes CONFIG
//! --check`).

use serde::{Deserialize, Serialize};
use std::sync::Arc;

use super::{Candidate, PortQueues};
use crate::error::{Error, Result};
use crate::packet::Packet;
use crate::rng::mix64;
use crate::topology::hyperx::HyperX;
use crate::topology::Topology;

/// Which routes a HyperX's packets take.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Default, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum HyperXPath {
    /// Dimension order, minimal; 1 VC class.
    #[default]
    Dor,
    /// Valiant: dimension order to a random intermediate router, then to the
    /// destination; 2 VC classes.
    Valiant,
    /// UGAL-L: per packet at the source, minimal or Valiant by the output queues and the
    /// routes' hop counts; 2 VC classes.
    Ugal,
}

impl HyperXPath {
    /// VC classes the routes need.
    pub fn classes(self) -> u32 {
        match self {
            HyperXPath::Dor => 1,
            HyperXPath::Valiant | HyperXPath::Ugal => 2,
        }
    }

    fn name(self) -> &'static str {
        match self {
            HyperXPath::Dor => "dor",
            HyperXPath::Valiant => "valiant",
            HyperXPath::Ugal => "ugal",
        }
    }
}

/// A built HyperX routing function.
#[derive(Clone, Debug)]
pub struct HyperXRouting {
    hx: Arc<HyperX>,
    path: HyperXPath,
    /// Per class: its VC range.
    range: [(u8, u8); 2],
    /// First VC of class 1 (VCs at or above it are class 1).
    upper: u32,
    /// Key of the intermediate-router draws (from the run seed).
    key: u64,
}

impl HyperXRouting {
    /// Routing on `topo` (a HyperX) with `vcs` VCs per port; `path` is the config key.
    pub fn new(topo: &Topology, kind: HyperXPath, vcs: u32, seed: u64, path: &str) -> Result<Self> {
        let Some(hx) = topo.hyperx.clone() else {
            return Err(Error::config(format!("{path}.type"), "HyperX routing needs a HyperX topology (topology.type = \"hyperx\")"));
        };
        let classes = kind.classes();
        if vcs < classes {
            return Err(Error::config(
                "router.vcs",
                format!("{vcs} VC cannot hold the {classes} classes {} HyperX routes need to be deadlock-free (one per phase); use vcs >= {classes}", kind.name()),
            ));
        }
        let range = if classes == 1 { [(0, vcs as u8), (0, vcs as u8)] } else { [(0, (vcs / 2) as u8), ((vcs / 2) as u8, vcs as u8)] };
        let upper = if classes == 1 { u32::MAX } else { vcs / 2 };
        Ok(HyperXRouting { hx, path: kind, range, upper, key: mix64(seed ^ 0x4e7b_e1f0_0c1a_5eed) })
    }

    /// The VC range of class `c`.
    pub fn class_range(&self, c: u32) -> (u8, u8) {
        self.range[c as usize & 1]
    }

    #[inline]
    fn candidate(&self, port: u32, class: u32) -> Candidate {
        let (lo, hi) = self.range[class as usize & 1];
        Candidate { port: port as u8, vc_lo: lo, vc_hi: hi }
    }

    /// The class of a packet that arrived on `in_port`/`in_vc` (0 from the endpoint).
    #[inline]
    fn class(&self, in_port: u32, in_vc: u32) -> u32 {
        u32::from(in_port < self.hx.net_ports() && in_vc >= self.upper)
    }

    /// The dimension-order hop at router `r` towards router `t` (`r != t`), on copy
    /// `key mod K` of the parallel links.
    #[inline]
    pub fn dor_port(&self, r: u32, t: u32, key: u32) -> u32 {
        let hx = &*self.hx;
        let d = (0..hx.ndims()).find(|&d| hx.coord(r, d) != hx.coord(t, d)).expect("r != t");
        hx.port_to(r, d, hx.coord(t, d), key % hx.k[d])
    }

    /// The minimal candidate at `r` for a packet from endpoint `src` to endpoint `dst`.
    #[inline]
    fn minimal(&self, r: u32, src: u32, dst: u32, class: u32) -> Candidate {
        let t = dst / self.hx.t;
        if r == t {
            return self.candidate(self.hx.net_ports() + dst % self.hx.t, class);
        }
        self.candidate(self.dor_port(r, t, src), class)
    }

    /// The intermediate router packet `seq` from endpoint `src` to `dst` draws (Valiant,
    /// UGAL), or `None` when it goes minimally (dimension order, or the draw fell on the
    /// source's or the destination's router).
    pub fn intermediate(&self, src: u32, dst: u32, seq: u32) -> Option<u32> {
        let t = self.hx.t;
        let i = (mix64(self.key ^ mix64(u64::from(src) << 32 | u64::from(seq))) % u64::from(self.hx.routers())) as u32;
        (self.path != HyperXPath::Dor && i != src / t && i != dst / t).then_some(i)
    }

    /// UGAL-L's choice at source router `r` for a packet to endpoint `dst` that drew
    /// intermediate router `via`: Valiant when `q_m H_m > q_nm H_nm`.
    pub fn ugal_prefers_valiant<Q: PortQueues>(&self, r: u32, src: u32, dst: u32, via: u32, queues: &Q) -> bool {
        let hx = &*self.hx;
        let t = dst / hx.t;
        if r == t {
            return false;
        }
        let key = src;
        let (h_min, h_val) = (hx.distance(r, t), hx.distance(r, via) + hx.distance(via, t));
        u64::from(queues.used(self.dor_port(r, t, key))) * u64::from(h_min)
            > u64::from(queues.used(self.dor_port(r, via, key))) * u64::from(h_val)
    }

    /// Route computation for a head at router `r` arrived on `in_port`/`in_vc`, reading
    /// the header and writing its `route` (one more than the pending intermediate router,
    /// or 0). At the source (`from_nic`) Valiant and UGAL packets draw their
    /// intermediate; reaching it moves the packet to class 1.
    #[inline]
    pub fn route_header<Q: PortQueues>(
        &self,
        r: u32,
        in_port: u32,
        in_vc: u32,
        from_nic: bool,
        header: &mut Packet,
        queues: &Q,
    ) -> Candidate {
        let mut class = self.class(in_port, in_vc);
        if self.path != HyperXPath::Dor {
            if from_nic {
                let via = self.intermediate(header.src, header.dst, header.seq);
                let via =
                    via.filter(|&i| self.path == HyperXPath::Valiant || self.ugal_prefers_valiant(r, header.src, header.dst, i, queues));
                header.route = via.map_or(0, |i| u64::from(i) + 1);
            }
            if header.route != 0 {
                let via = (header.route - 1) as u32;
                if via != r {
                    return self.candidate(self.dor_port(r, via, header.src), 0);
                }
                header.route = 0;
                class = 1;
            }
        }
        self.minimal(r, header.src, header.dst, class)
    }

    /// The route by destination alone (as from endpoint 0: the first of parallel links):
    /// the minimal candidate in the arrival's class.
    #[inline]
    pub fn route(&self, r: u32, in_port: u32, in_vc: u32, dst: u32) -> Candidate {
        self.minimal(r, 0, dst, self.class(in_port, in_vc))
    }

    /// Every candidate a packet bound for `dst` may be given at `r` having arrived on
    /// `in_port`/`in_vc`, whatever its source (the copy of parallel links) and its
    /// intermediate: the relation the channel dependency check explores. Class 1, and
    /// dimension order: the minimal hop on every copy. Class 0 from the endpoint: any
    /// network port (each is the first hop towards the router it reaches) or ejection.
    /// Class 0 after a hop in dimension `k`: any port of a higher dimension, ejection,
    /// or (the intermediate reached here) the minimal hop in class 1.
    pub fn for_each_candidate(&self, r: u32, in_port: u32, in_vc: u32, dst: u32, mut f: impl FnMut(Candidate)) {
        let hx = &*self.hx;
        let t = dst / hx.t;
        let np = hx.net_ports();
        let class = self.class(in_port, in_vc);
        let minimal = |class: u32, f: &mut dyn FnMut(Candidate)| {
            if r == t {
                return f(self.candidate(np + dst % hx.t, class));
            }
            let d = (0..hx.ndims()).find(|&d| hx.coord(r, d) != hx.coord(t, d)).expect("r != t");
            for m in 0..hx.k[d] {
                f(self.candidate(hx.port_to(r, d, hx.coord(t, d), m), class));
            }
        };
        if self.path == HyperXPath::Dor || class == 1 {
            return minimal(class, &mut f);
        }
        let first = if in_port >= np { 0 } else { hx.base_of(hx.dim_of_port(in_port) + 1) };
        if r == t {
            f(self.candidate(np + dst % hx.t, 0));
        }
        for port in first..np {
            f(self.candidate(port, 0));
        }
        if in_port < np {
            minimal(1, &mut f);
        }
    }
}
