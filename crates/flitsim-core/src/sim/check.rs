//! Check mode: flit and credit conservation and buffer bounds, verified every cycle, and
//! the router family's own invariants ([`RouterFamily::check`]).

use super::Simulation;
use crate::error::{Error, Result};
use crate::link::End;
use crate::router::RouterFamily;

/// Verify all invariants after a cycle; the first violation becomes an error.
pub fn verify(sim: &Simulation) -> Result<()> {
    let now = sim.now;
    let bad = |message: String| Err(Error::Invariant { cycle: now, message });
    let r = &sim.routers;
    let ch = &sim.channels;
    let v_n = r.vcs() as usize;
    // Flit conservation.
    // (Metapacket flits share the links but are not the network's packets.)
    let in_channels: u64 = ch.flits.total() - r.foreign_flits_in_channels();
    let in_buffers: u64 = r.total_buffered();
    let ctr = &sim.counters;
    if ctr.flits_injected != ctr.flits_ejected + ctr.flits_lost + in_channels + in_buffers {
        return bad(format!(
            "flit conservation: injected {} != ejected {} + in channels {} + in buffers {}",
            ctr.flits_injected, ctr.flits_ejected, in_channels, in_buffers
        ));
    }
    // Credit conservation per (channel, vc) into a router input buffer, buffer bounds.
    let depth = r.depth();
    // The family's own invariants (crosspoint entries, Disha's one recovering packet,
    // output VC ownership).
    if let Some(message) = r.check(ch) {
        return bad(message);
    }
    for c in 0..ch.len() {
        let End::Router { router: dr, port: dp } = ch.dst[c] else {
            continue;
        };
        // (Crosspoint switches count whole-packet entries, not flit credits, between
        // switches; STOP/GO sends symbols, not credits: only the buffer bound holds there.)
        let credits = r.conserves_credits(matches!(ch.src[c], End::Endpoint(_)));
        for w in 0..v_n {
            let upstream_credits = match ch.src[c] {
                End::Router { router, port } => r.out_credits(router, port, w as u32),
                End::Endpoint(e) => sim.endpoints.credits[e as usize * v_n + w],
                End::None => continue,
            };
            let flying = ch.flits.iter(c).filter(|f| f.vc as usize == w).count() as u32;
            let buffered = r.input_len(dr, dp, w as u32);
            let returning = ch.credits.iter(c).filter(|k| k.vc() as usize == w).count() as u32;
            if buffered > depth {
                return bad(format!("buffer overflow at router {dr} port {dp} vc{w}: {buffered} > {depth}"));
            }
            if credits && upstream_credits + flying + buffered + returning != depth {
                return bad(format!("credit conservation on channel {c} vc{w}: credits {upstream_credits} + in flight {flying} + buffered {buffered} + returning {returning} != depth {depth}"));
            }
        }
    }
    Ok(())
}
