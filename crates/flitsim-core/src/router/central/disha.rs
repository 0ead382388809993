//! Disha progressive deadlock recovery (Anjan & Pinkston, ISCA 1995), as the self-tuned
//! congestion-control paper uses it (section 5.1: "the Disha progressive deadlock
//! recovery scheme with a time-out of 8 cycles"; section 5.2.1: "Disha deadlock recovery
//! requires that a packet obtain exclusive access to the deadlock-free path").
//!
//! - **Detection**: a header at the front of a network input VC that has been waiting for
//!   an output VC for `routing.timeout` cycles since it became routable is presumed
//!   deadlocked.
//! - **Exclusive access**: one token circulates over all routers in router order, one
//!   router per `router.token_hop` cycles (Disha-sequential). When it is at a router with a
//!   presumed-deadlocked header (the longest-waiting one; ties to the lowest lane), that
//!   packet captures it.
//! - **Recovery**: the captured header leaves on the deadlock-buffer lane (lane `V`) of
//!   its minimal dimension-order output, and from router to router through the deadlock
//!   buffers to its destination; its other flits follow over the VCs they already hold.
//!   Deadlock-buffer flits take the switch and the link before any other flit.
//! - **Release**: when the recovering packet's tail enters its destination's delivery
//!   channel the token resumes its circuit from the router after the one that captured it.
//!
//! Partitioned ([`crate::router::crossing`]): every partition holds a copy of the token
//! and moves it on as every other does. Only the partition owning the router it is at
//! decides a capture (or that it waits there), and only the partition delivering the
//! recovering packet releases it; that partition sends the token's new state with its
//! outbox, and every other takes it before the next cycle. At most one partition decides
//! anything about the token in a cycle (one packet holds it at a time, and a capture and
//! a release in the same cycle happen at the same router), so the copies stay the
//! one-partition token.

use super::{state, CentralRouters, FREE};
use crate::link::{Channels, End};
use crate::packet::PacketArena;
use crate::routing::adaptive::Adaptive;
use crate::topology::Topology;

/// The recovery token.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Token {
    /// Router it is at (free) or was captured at (held).
    pub at: u32,
    /// Held by a recovering packet.
    pub held: bool,
    /// Cycle at which a free token moves on.
    pub next_move: u64,
    /// Routers on its circuit.
    pub routers: u32,
}

impl Token {
    /// The recovering packet's tail left router `r` into the delivery channel: the token
    /// is free again and moves on from the router that captured it.
    pub(super) fn release(&mut self, now: u64, hop: u32) {
        debug_assert!(self.held, "deadlock-buffer packet delivered without the token");
        self.held = false;
        self.at = if self.at + 1 == self.routers { 0 } else { self.at + 1 };
        self.next_move = now + hop as u64;
    }
}

impl CentralRouters {
    /// Once per cycle before the routers step: a free token at a router with a presumed
    /// deadlocked header is captured; otherwise it moves on when its hop time is up.
    pub(super) fn token_step(&mut self, now: u64, topo: &Topology, routing: &Adaptive, packets: &PacketArena) {
        if self.token.held {
            return;
        }
        let r = self.token.at;
        let here = (self.span.0..self.span.1).contains(&r);
        if let Some(li) = here.then(|| self.deadlocked_header(r, now, routing.timeout)).flatten() {
            let (p_n, l_n, depth) = (self.ports as usize, self.lanes as usize, self.depth as usize);
            let base = r as usize * p_n * l_n;
            let st = self.ivc[base + li];
            let f = self.buf[(base + li) * depth + st.head as usize];
            let dst = packets.get(f.pid).dst;
            let o = if routing.dest_router(dst) == r {
                routing.dest_port(dst)
            } else {
                routing.escape_route(topo, r, (li / l_n) as u32, 0, dst).port as u32
            };
            let db = self.vcs as usize;
            // The previous recovering packet's credits may still be returning: the token
            // waits here until the lane is free.
            if self.out[base + o as usize * l_n + db].owner == FREE {
                self.grant(r, li, o as usize, db);
                self.token.held = true;
                self.counters.recoveries += 1;
            }
            self.crossing.token = Some(self.token);
            return;
        }
        if now >= self.token.next_move {
            self.token.at = if r + 1 == topo.num_routers { 0 } else { r + 1 };
            self.token.next_move = now + self.cfg.token_hop as u64;
        }
    }

    /// Check mode: recovery is serialized, as Disha's exclusive access requires. Every
    /// flit on a deadlock-buffer lane (in an input lane, or on a link between routers)
    /// belongs to one packet, and while any is there, or a deadlock-buffer output lane is
    /// held, the token is held. `None` when that holds, else what broke it.
    pub fn check_recovery(&self, ch: &Channels) -> Option<String> {
        let (p_n, l_n, depth, db) = (self.ports as usize, self.lanes as usize, self.depth as usize, self.vcs as usize);
        let mut pid: Option<u32> = None;
        let mut one = |p: u32, at: &dyn Fn() -> String| -> Option<String> {
            match pid {
                Some(q) if q != p => Some(format!("two packets on deadlock-buffer lanes at once: {q} and {p} ({})", at())),
                _ => {
                    pid = Some(p);
                    None
                }
            }
        };
        let routers = self.ivc.len() / (p_n * l_n);
        let mut lane_held = false;
        for r in 0..routers {
            for p in 0..p_n {
                let li = (r * p_n + p) * l_n + db;
                let st = self.ivc[li];
                for i in 0..st.len as usize {
                    let f = self.buf[li * depth + (st.head as usize + i) % depth];
                    if let Some(e) = one(f.pid, &|| format!("router {r} input port {p}")) {
                        return Some(e);
                    }
                }
                let owner = self.out[li].owner;
                lane_held |= owner != FREE && owner != super::DRAINING;
            }
        }
        for c in 0..ch.len() {
            if !matches!(ch.dst[c], End::Router { .. }) {
                continue;
            }
            for f in ch.flits.iter(c).filter(|f| f.vc as usize == db) {
                if let Some(e) = one(f.flit.pid, &|| format!("channel {c}")) {
                    return Some(e);
                }
            }
        }
        if (pid.is_some() || lane_held) && !self.token.held {
            return Some(format!(
                "packet {pid:?} on the deadlock-buffer lanes (an output lane held: {lane_held}) while the recovery token is free"
            ));
        }
        None
    }

    /// The network input VC of router `r` whose header has waited longest, if at least
    /// `timeout` cycles since it became routable.
    fn deadlocked_header(&self, r: u32, now: u64, timeout: u32) -> Option<usize> {
        if self.waiting[r as usize] == 0 {
            return None;
        }
        let (p_n, l_n) = (self.ports as usize, self.lanes as usize);
        let base = r as usize * p_n * l_n;
        let now32 = now as u32;
        let mut best: Option<(usize, u32)> = None;
        for p in 0..self.network_ports as usize {
            for v in 0..self.vcs as usize {
                let li = p * l_n + v;
                let st = &self.ivc[base + li];
                if st.state != state::WAIT {
                    continue;
                }
                let waited = now32.wrapping_sub(st.since) as i32;
                if waited >= timeout as i32 && best.is_none_or(|(_, w)| waited as u32 > w) {
                    best = Some((li, waited as u32));
                }
            }
        }
        best.map(|(li, _)| li)
    }
}
