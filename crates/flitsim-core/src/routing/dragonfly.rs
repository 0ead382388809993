//! Routing on a dragonfly (Kim, Dally, Scott and Abts, ISCA 2008, section 4): minimal
//! and Valiant, with VC classes that keep both deadlock-free.
//!
//! * **Minimal** (MIN): within a group one local hop; to another group a local hop to
//!   the router holding a global link to the destination group (none when the router
//!   holds one), the global hop, and a local hop to the destination router (none when
//!   the link lands on it): at most 3 hops ([`crate::topology::dragonfly::minimal_port`]).
//! * **Valiant** (VAL): the source router sends the packet minimally to a random
//!   intermediate group, then minimally to its destination: at most 5 hops and 2
//!   global hops. The intermediate group is drawn per packet from (seed, source,
//!   packet number) and carried in the header (`route` = group + 1 until the packet
//!   reaches that group); an intermediate that is the source's or the destination's
//!   own group leaves the packet minimal.
//! * **UGAL** (UGAL-L, the paper's section 4): at the source router each packet draws
//!   an intermediate group as for Valiant and then takes the minimal route or the
//!   Valiant one, whichever has the smaller product of the queue at its first output
//!   port and its hop count (`q_m H_m <= q_nm H_nm`: minimal, ties included). The
//!   queue is what the router's credit counters know: the flits sent down the port and
//!   not yet credited back, over all its VCs ([`PortQueues`]). So it routes minimally
//!   while the minimal queue is short, and spreads over other groups when it grows.
//!
//! **VC classes.** A packet's class is the number of global channels it has crossed:
//! it moves up one class at each global hop and never down. Within a class a packet
//! takes at most one local hop and then a global one (or leaves), so every channel
//! dependency goes from a local channel to a global channel of the same class, or to a
//! channel of a higher class: the dependency graph is acyclic. MIN needs 2 classes,
//! VAL 3; the router's VCs are split into that many nearly equal ranges (class `c` =
//! VCs `[c V / C, (c + 1) V / C)`), and the tool's channel dependency check proves it
//! (`flitsim routes CONFIG --check`).

use serde::{Deserialize, Serialize};

use super::Candidate;
pub use super::{NoQueues, PortQueues};
use crate::error::{Error, Result};
use crate::packet::Packet;
use crate::rng::mix64;
use crate::topology::dragonfly::{minimal_hops, minimal_port, Dragonfly};
use crate::topology::Topology;

/// Which routes a dragonfly's packets take.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Default, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum DragonflyPath {
    /// Minimal routes (at most one global hop); 2 VC classes.
    #[default]
    Minimal,
    /// Valiant: minimal to a random intermediate group, then minimal to the destination;
    /// 3 VC classes.
    Valiant,
    /// UGAL-L: per packet, minimal or Valiant by the source router's output queues and
    /// the two routes' hop counts; 3 VC classes.
    Ugal,
}

impl DragonflyPath {
    /// VC classes the routes need.
    pub fn classes(self) -> u32 {
        match self {
            DragonflyPath::Minimal => 2,
            DragonflyPath::Valiant | DragonflyPath::Ugal => 3,
        }
    }
}

/// A built dragonfly routing function.
#[derive(Clone, Debug)]
pub struct DragonflyRouting {
    df: Dragonfly,
    path: DragonflyPath,
    /// Per VC: its class.
    class_of: [u8; 64],
    /// Per class: its VC range.
    range: [(u8, u8); 3],
    /// Key of the intermediate-group draws (from the run seed).
    key: u64,
}

impl DragonflyRouting {
    /// Routing on `topo` (a dragonfly) with `vcs` VCs per port; `path` is the config key.
    pub fn new(topo: &Topology, path_kind: DragonflyPath, vcs: u32, seed: u64, path: &str) -> Result<Self> {
        let Some(df) = topo.dragonfly else {
            return Err(Error::config(
                format!("{path}.type"),
                "dragonfly routing needs a dragonfly topology (topology.type = \"dragonfly\")",
            ));
        };
        let classes = path_kind.classes();
        if vcs < classes {
            let name = match path_kind {
                DragonflyPath::Minimal => "minimal",
                DragonflyPath::Valiant => "valiant",
                DragonflyPath::Ugal => "ugal",
            };
            return Err(Error::config(
                "router.vcs",
                format!("{vcs} VCs cannot hold the {classes} classes {name} dragonfly routes need to be deadlock-free (one per global hop, plus one); use vcs >= {classes}"),
            ));
        }
        let mut range = [(0u8, 0u8); 3];
        let mut class_of = [0u8; 64];
        for c in 0..classes {
            let (lo, hi) = (c * vcs / classes, (c + 1) * vcs / classes);
            range[c as usize] = (lo as u8, hi as u8);
            for v in lo..hi {
                class_of[v as usize] = c as u8;
            }
        }
        Ok(DragonflyRouting { df, path: path_kind, class_of, range, key: mix64(seed ^ 0xd7a9_0f1e_5eed_0001) })
    }

    /// The VC range of class `c`.
    pub fn class_range(&self, c: u32) -> (u8, u8) {
        self.range[c as usize]
    }

    /// The class of a packet that arrived on `in_port`/`in_vc`: its VC's class, one more
    /// after a global channel, 0 from the endpoint.
    #[inline]
    fn class(&self, in_port: u32, in_vc: u32) -> u32 {
        if in_port >= self.df.net_ports() {
            0
        } else {
            u32::from(self.class_of[in_vc as usize & 63]) + u32::from(self.df.is_global(in_port))
        }
    }

    #[inline]
    fn candidate(&self, port: u32, class: u32) -> Candidate {
        let (lo, hi) = self.range[class.min(2) as usize];
        Candidate { port: port as u8, vc_lo: lo, vc_hi: hi }
    }

    /// The intermediate group packet `seq` from endpoint `src` to endpoint `dst` draws
    /// (Valiant, UGAL), or `None` when it goes minimally (minimal routing, or the draw
    /// fell on the source's or the destination's group).
    pub fn intermediate(&self, src: u32, dst: u32, seq: u32) -> Option<u32> {
        let (p, a) = (self.df.p, self.df.a);
        let (gs, gd) = (src / p / a, dst / p / a);
        let i = (mix64(self.key ^ mix64(u64::from(src) << 32 | u64::from(seq))) % u64::from(self.df.g)) as u32;
        (self.path != DragonflyPath::Minimal && i != gs && i != gd).then_some(i)
    }

    /// Route computation for a head at router `r` arrived on `in_port`/`in_vc`, reading
    /// the header's destination and writing its `route` (one more than the pending
    /// intermediate group, or 0). At the source router (`from_nic`) a Valiant packet
    /// draws its intermediate group, and a UGAL packet too, keeping it only when
    /// `queues` make the Valiant route the better
    /// ([`DragonflyRouting::ugal_prefers_valiant`]); arriving in that group ends the
    /// first phase.
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
        let df = &self.df;
        if self.path != DragonflyPath::Minimal {
            if from_nic {
                let via = self.intermediate(header.src, header.dst, header.seq);
                let via =
                    via.filter(|&i| self.path == DragonflyPath::Valiant || self.ugal_prefers_valiant(r, header.dst / df.p, i, queues));
                header.route = via.map_or(0, |i| u64::from(i) + 1);
            } else if header.route != 0 && u64::from(df.group(r)) + 1 == header.route {
                header.route = 0;
            }
        }
        let t = header.dst / df.p;
        let class = self.class(in_port, in_vc);
        if header.route != 0 {
            let toward = (header.route - 1) as u32 * df.a + df.index(t);
            return self.candidate(minimal_port(df, r, toward), class);
        }
        self.minimal(r, class, header.dst)
    }

    /// UGAL-L's choice at source router `r` for a packet to router `t` that drew
    /// intermediate group `via`: the Valiant route when `q_m H_m > q_nm H_nm`, with `q`
    /// the queue at each route's first output port and `H` its hops (the Valiant route's
    /// to the router where it lands in `via`, then minimal from there).
    pub fn ugal_prefers_valiant<Q: PortQueues>(&self, r: u32, t: u32, via: u32, queues: &Q) -> bool {
        let df = &self.df;
        if r == t {
            return false;
        }
        let toward = via * df.a + df.index(t);
        let (min_port, val_port) = (minimal_port(df, r, t), minimal_port(df, r, toward));
        // Hops to the landing router in `via` (one or two), then on to `t`.
        let (mut at, mut h_val) = (r, 0);
        while df.group(at) != via {
            at = df.neighbour(at, minimal_port(df, at, toward));
            h_val += 1;
        }
        h_val += minimal_hops(df, at, t);
        let h_min = minimal_hops(df, r, t);
        u64::from(queues.used(min_port)) * u64::from(h_min) > u64::from(queues.used(val_port)) * u64::from(h_val)
    }

    /// The minimal candidate at router `r` in class `class` towards endpoint `dst`.
    #[inline]
    fn minimal(&self, r: u32, class: u32, dst: u32) -> Candidate {
        let df = &self.df;
        let t = dst / df.p;
        if r == t {
            return self.candidate(df.net_ports() + dst % df.p, class);
        }
        self.candidate(minimal_port(df, r, t), class)
    }

    /// The route by destination alone: minimal (a Valiant packet's second phase).
    #[inline]
    pub fn route(&self, r: u32, in_port: u32, in_vc: u32, dst: u32) -> Candidate {
        self.minimal(r, self.class(in_port, in_vc), dst)
    }

    /// Every candidate a packet bound for `dst` may be given at router `r` having
    /// arrived on `in_port`/`in_vc`, whatever its intermediate group (the routing
    /// relation the channel dependency check explores). Minimal routing: the one minimal
    /// candidate. Valiant and UGAL, in class 0 (still in the source group): from the endpoint,
    /// the minimal candidate and the first hop towards every other group; after a local
    /// hop the packet is at its destination router or at one holding the global link it
    /// takes (a minimal route's or a first phase's), so: ejection there, or any of the
    /// router's global ports. From class 1 on, the second phase is minimal.
    pub fn for_each_candidate(&self, r: u32, in_port: u32, in_vc: u32, dst: u32, mut f: impl FnMut(Candidate)) {
        let df = &self.df;
        let class = self.class(in_port, in_vc);
        if self.path == DragonflyPath::Minimal || class != 0 {
            return f(self.minimal(r, class, dst));
        }
        let (t, gr) = (dst / df.p, df.group(r));
        if in_port >= df.net_ports() {
            // From the endpoint: minimal, or towards any intermediate group.
            let min = self.minimal(r, class, dst);
            f(min);
            let mut seen = 1u64 << min.port;
            for i in (0..df.g).filter(|&i| i != gr) {
                let port = minimal_port(df, r, i * df.a + df.index(t));
                if seen >> port & 1 == 0 {
                    seen |= 1 << port;
                    f(self.candidate(port, class));
                }
            }
        } else if r == t {
            f(self.minimal(r, class, dst));
        } else {
            for j in 0..df.h {
                f(self.candidate(df.a - 1 + j, class));
            }
        }
    }
}
