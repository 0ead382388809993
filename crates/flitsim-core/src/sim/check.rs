//! Check mode: flit and credit conservation and buffer bounds, verified every cycle, and
//! the routers' own invariants (crosspoint entries, Disha's one recovering packet).

use super::Simulation;
use crate::error::{Error, Result};
use crate::link::End;
use crate::router::iq::{state, FREE};
use crate::router::Routers;

/// Verify all invariants after a cycle; the first violation becomes an error.
pub fn verify(sim: &Simulation) -> Result<()> {
    let now = sim.now;
    let bad = |message: String| Err(Error::Invariant { cycle: now, message });
    let r = &sim.routers;
    let ch = &sim.channels;
    let (p_n, v_n) = (r.ports() as usize, r.vcs() as usize);
    // Flit conservation.
    // (Metapacket flits share the links but are not the network's packets.)
    let meta = match r {
        Routers::Central(c) => c.meta_flits_in_channels(),
        _ => 0,
    };
    let in_channels: u64 = ch.flits.total() - meta;
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
    let crosspoint = matches!(r, Routers::Crosspoint(_));
    let stop_go = matches!(r, Routers::Iq(x) if x.config().stop_go.is_some());
    if let Routers::Crosspoint(x) = r {
        if let Some(message) = x.check_entries() {
            return bad(message);
        }
    }
    if let Routers::Central(c) = r {
        if let Some(message) = c.check_recovery(ch) {
            return bad(message);
        }
    }
    for c in 0..ch.len() {
        let End::Router { router: dr, port: dp } = ch.dst[c] else {
            continue;
        };
        // Crosspoint switches count whole-packet entries, not flit credits, between
        // switches (checked above); their DMA queues take flit credits like any buffer.
        if crosspoint && !matches!(ch.src[c], End::Endpoint(_)) {
            continue;
        }
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
            // (STOP/GO sends symbols, not credits: only the buffer bound holds there.)
            if !stop_go && upstream_credits + flying + buffered + returning != depth {
                return bad(format!("credit conservation on channel {c} vc{w}: credits {upstream_credits} + in flight {flying} + buffered {buffered} + returning {returning} != depth {depth}"));
            }
        }
    }
    // Output VC ownership is consistent with input VC state.
    let Routers::Iq(r) = r else { return Ok(()) };
    for (o, owner) in r.out.iter().map(|ov| ov.owner).enumerate() {
        if owner == FREE {
            continue;
        }
        let router = o / (p_n * v_n);
        let out_port = (o / v_n) % p_n;
        let w = o % v_n;
        let iv = &r.ivc[router * p_n * v_n + owner as usize];
        if iv.state != state::ACTIVE || iv.port as usize != out_port || iv.out_vc as usize != w {
            return bad(format!("output VC {out_port}/vc{w} of router {router} owned by input VC {owner} which is not active on it"));
        }
    }
    Ok(())
}
