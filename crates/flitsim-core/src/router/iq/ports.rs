//! The wiring of the input-queued routers' ports: the rings of the channels into and out
//! of each port and who is at their far ends, so that the step looks nothing up; and
//! sending a credit upstream over it.

use super::arrivals::Arrive;
use crate::link::{Channels, CreditWire, Ring};
use crate::topology::NONE;

/// Wiring of one router port: the channels into and out of it (their rings, so that the
/// step looks nothing up) and who is at their far ends.
#[derive(Clone, Copy, Debug)]
pub(super) struct PortWiring {
    /// Flit ring of the channel arriving at the input (unused when there is none).
    pub(super) in_flits: Ring,
    /// Credit ring of that channel: credits for the input's buffer go upstream on it.
    pub(super) in_credits: Ring,
    /// Flit ring of the channel leaving the output.
    pub(super) out_flits: Ring,
    /// Credit ring of that channel: credits for the downstream buffer come back on it.
    pub(super) out_credits: Ring,
    /// Router upstream of the input (it receives this port's credits), or the sink id
    /// (the number of routers: an endpoint, or nothing), whose arrivals no router reads;
    /// once the routers are built, its row for credits ([`super::arrivals::Arrivals::row`]).
    pub(super) up_router: u32,
    /// Router downstream of the output, or the sink id (an endpoint, or an unconnected
    /// mesh edge); once built, its row for flits.
    pub(super) down_router: u32,
    /// The far ends' bits in the arrival calendar's due set: the router, the sink, or
    /// an endpoint's bit ([`super::arrivals::Calendar`]).
    pub(super) up_due: u32,
    pub(super) down_due: u32,
    /// Cycles from switch grant to arrival at the far end of the output channel (switch
    /// stages + wire).
    pub(super) flit_delay: u32,
    /// The upstream router's output port driving the input channel.
    pub(super) up_port: u8,
    /// Input port on the downstream router.
    pub(super) down_port: u8,
    /// The output channel goes to a router of another partition ([`super::crossing`]).
    pub(super) cross_out: bool,
    /// The input channel comes from a router of another partition (its credits cross).
    pub(super) cross_in: bool,
}

pub(super) const UNWIRED: PortWiring = PortWiring {
    in_flits: Ring::UNUSED,
    in_credits: Ring::UNUSED,
    out_flits: Ring::UNUSED,
    out_credits: Ring::UNUSED,
    up_router: NONE,
    down_router: NONE,
    up_due: NONE,
    down_due: NONE,
    flit_delay: 0,
    up_port: 0,
    down_port: 0,
    cross_out: false,
    cross_in: false,
};

/// Send a credit for input `inp`'s VC `vc` upstream, arriving at cycle `arrive` (to
/// another partition's router through `crossing`).
#[inline(always)]
pub(super) fn send_credit<A: Arrive>(
    arr: &mut A,
    inp: &PortWiring,
    vc: u32,
    arrive: u64,
    ch: &mut Channels,
    crossing: &mut crate::router::crossing::Crossings,
) {
    if inp.cross_in {
        crossing.credits.push(crate::router::crossing::CrossCredit {
            arrive,
            ring: inp.in_credits,
            row: inp.up_router,
            port: inp.up_port,
            entry: CreditWire::new(arrive, vc),
        });
    } else {
        ch.credits.push_in(inp.in_credits, arrive, CreditWire::new(arrive, vc));
        arr.notify_row(inp.up_router, inp.up_due, inp.up_port as u32, arrive);
    }
}

/// STOP/GO (`router.stop_go`, one VC per port): of the input ports `touched` (those that
/// received or sent a flit this cycle, the only ones that can have crossed a mark), one
/// whose buffer reached the STOP mark sends STOP upstream, and one drained to the GO mark
/// after a STOP sends GO; `stopped` holds the ports whose last symbol was STOP. The
/// symbols arrive at cycle `arrive`.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(super) fn stop_go_symbols<A: Arrive>(
    arr: &mut A,
    sg: crate::flow::StopGo,
    mut touched: u64,
    ivc: &[super::InputVc; super::VIEW],
    stopped: &mut u64,
    wiring: &[PortWiring; super::VIEW],
    arrive: u64,
    ch: &mut Channels,
    crossing: &mut crate::router::crossing::Crossings,
) {
    while touched != 0 {
        let p = crate::router::allocator::take_lowest(&mut touched);
        let (n, bit) = (ivc[p & 63].len as u32, 1u64 << p);
        let symbol = if *stopped & bit == 0 && n >= sg.stop {
            crate::flow::STOP
        } else if *stopped & bit != 0 && n <= sg.go {
            crate::flow::GO
        } else {
            continue;
        };
        *stopped ^= bit;
        send_credit(arr, &wiring[p & 63], symbol, arrive, ch, crossing);
    }
}
