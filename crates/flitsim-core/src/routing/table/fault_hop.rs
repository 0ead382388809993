//! The Cray XT's next-hop rules around failed links (Abts07, section 2.2; keys in
//! `docs/papers.md`), from which table generation
//! builds every entry when links have failed.

use crate::topology::Topology;

/// The next hop of the Cray XT's fault-tolerant routing (section 2.2 of the VC-assignment
/// paper) from router `r`, where the packet arrived on `in_port`, toward router `t`;
/// `router_region` gives each router's region. Dimension-order x, y, z with these rules
/// (a link is unavailable when it failed or, at a mesh edge, does not exist):
///
/// * **x wanted** (2.2.2): if the x link is unavailable, take y+, else z+. If it is
///   available but the node across has neither y+ nor z+, and the link enters the
///   destination's region, or the packet is in its region with y already right, take z+
///   here instead (it could be boxed in over there).
/// * **y wanted** (2.2.3): if the y link is unavailable, take z+ (else the opposite y).
///   If it is available but the next node would want z+ and its z+ is unavailable, take
///   z+ here instead.
/// * **z wanted** (2.2.4): z+ unavailable: y+, else y-. z- wanted: follow the z- path to
///   the destination; if any link on it is unavailable, go z+, the long way round.
/// * Never a 180-degree turn (back out of the input port). Dimensions past z: DOR.
/// * **Dateline restriction** (2.2.1, 2.2.2): the z+ detours of the x rule "must not
///   cross a dateline": they are not taken out of the z dateline node of the ring
///   (leaving it along z+ crosses it), since after a dateline the packet may not
///   route in a higher dimension (x) again.
///
/// `dateline` holds the dateline coordinate of every router's ring, `[router * ndims +
/// dim]` ([`super::ring_datelines`]). `None` when no rule gives an available hop.
pub fn fault_hop(topo: &Topology, r: u32, in_port: u32, t: u32, router_region: &[u32], dateline: &[u32]) -> Option<u32> {
    no_u_turn(topo, in_port, fault_choice(topo, r, t, router_region, dateline))
}

/// The hop [`fault_hop`]'s rules choose from `r` toward `t` before the 180-degree-turn
/// check, which alone depends on the input port: table generation works it out once
/// per (router, target router) and applies [`no_u_turn`] per input port.
pub fn fault_choice(topo: &Topology, r: u32, t: u32, router_region: &[u32], dateline: &[u32]) -> Option<u32> {
    let np = topo.network_ports();
    if r == t {
        return Some(np); // the first processor port (the caller ejects to the node)
    }
    let nd = topo.ndims();
    let has = |r: u32, dim: usize, plus: bool| -> bool {
        dim < nd && topo.out_channel[(r * topo.ports + 2 * dim as u32 + (!plus) as u32) as usize] != crate::topology::NONE
    };
    // A z+ detour of the x rule: available, and not across the z dateline.
    let detour = |r: u32, dim: usize, plus: bool| -> bool {
        has(r, dim, plus) && !(topo.wrap[dim] && dateline[r as usize * nd + dim] == topo.coords(r)[dim])
    };
    let port = |dim: usize, plus: bool| 2 * dim as u32 + (!plus) as u32;
    let next = |r: u32, dim: usize, plus: bool| -> u32 {
        let c = topo.out_channel[(r * topo.ports + port(dim, plus)) as usize];
        topo.channels[c as usize].dst_router
    };
    // The DOR direction from router a toward t: the first dimension that differs and
    // the minimal direction (ties +).
    let want = |a: u32| -> Option<(usize, bool)> {
        let (ca, ct) = (topo.coords(a), topo.coords(t));
        (0..nd).find(|&d| ca[d] != ct[d]).map(|d| {
            let k = topo.dims[d];
            let plus = if topo.wrap[d] {
                let fwd = (ct[d] + k - ca[d]) % k;
                fwd <= k - fwd
            } else {
                ct[d] > ca[d]
            };
            (d, plus)
        })
    };
    let (d, plus) = want(r)?;
    let choice = match d {
        0 => {
            if has(r, 0, plus) {
                let n = next(r, 0, plus);
                let boxed = !has(n, 1, true) && !has(n, 2, true);
                let into_region =
                    router_region[n as usize] == router_region[t as usize] && router_region[r as usize] != router_region[t as usize];
                let same_y = router_region[r as usize] == router_region[t as usize] && topo.coords(r).get(1) == topo.coords(t).get(1);
                if boxed && detour(r, 2, true) && (into_region || same_y) {
                    port(2, true)
                } else {
                    port(0, plus)
                }
            } else if has(r, 1, true) {
                port(1, true)
            } else if detour(r, 2, true) {
                port(2, true)
            } else {
                return None;
            }
        }
        1 => {
            if has(r, 1, plus) {
                let n = next(r, 1, plus);
                if want(n) == Some((2, true)) && !has(n, 2, true) && has(r, 2, true) {
                    port(2, true)
                } else {
                    port(1, plus)
                }
            } else if has(r, 2, true) {
                port(2, true)
            } else if has(r, 1, !plus) {
                port(1, !plus)
            } else {
                return None;
            }
        }
        2 if plus => {
            if has(r, 2, true) {
                port(2, true)
            } else if has(r, 1, true) {
                port(1, true)
            } else if has(r, 1, false) {
                port(1, false)
            } else {
                return None;
            }
        }
        2 => {
            // z-: the whole z- path to the destination's z must be available.
            let (tz, k) = (topo.coords(t)[2], topo.dims[2]);
            let mut x = r;
            let mut clear = true;
            while topo.coords(x)[2] != tz {
                if !has(x, 2, false) {
                    clear = false;
                    break;
                }
                x = next(x, 2, false);
                let _ = k;
            }
            if clear {
                port(2, false)
            } else if has(r, 2, true) && topo.wrap[2] {
                port(2, true)
            } else {
                return None;
            }
        }
        _ => {
            if has(r, d, plus) {
                port(d, plus)
            } else {
                return None;
            }
        }
    };
    Some(choice)
}

/// A [`fault_choice`] for a packet that arrived on `in_port`: never a 180-degree turn
/// (back out of the input port).
#[inline]
pub fn no_u_turn(topo: &Topology, in_port: u32, choice: Option<u32>) -> Option<u32> {
    choice.filter(|&c| !(in_port < topo.network_ports() && c == in_port))
}
