//! The dragonfly (Kim, Dally, Scott and Abts, "Technology-Driven, Highly-Scalable
//! Dragonfly Topology", ISCA 2008): `g` groups of `a` routers; the routers of a group are
//! fully connected by local channels; each router has `h` global channels to other
//! groups and `p` endpoints. The paper's balanced dragonfly has `a = 2p = 2h`, and with
//! `g = a h + 1` groups every pair of groups is joined by exactly one global link.
//!
//! **Numbering.** Router `r = G a + i` is router `i` of group `G`; its coordinates are
//! `(i, G)` (dimension 0 = the router within its group, dimension 1 = the group), so
//! coordinate traffic patterns read naturally: `neighbor` sends every node of group `G`
//! to group `G + 1`, the paper's adversarial pattern. Endpoint `e` is on router `e / p`.
//!
//! **Ports.** `0 .. a-1`: local channel `j` of router `i` goes to router
//! `(i + j + 1) mod a` of the group (and arrives there on local port `a - 2 - j`);
//! `a-1 .. a-1+h`: global ports; then the `p` endpoint ports. Local channels are
//! dimension 0 and global channels dimension 1, so `channel.dim_latency = [local,
//! global]` sets the two wire lengths.
//!
//! **Global links** (the "consecutive" arrangement): group `G`'s global link
//! `k = i h + j` (router `i`, global port `j`) goes to group
//! `G + 1 + (k mod (g-1))` (mod `g`), as copy `k div (g-1)` of the links between the
//! two groups; it arrives as link `k' = (k div (g-1)) (g-1) + g - 2 - (k mod (g-1))`.
//! Every group has the same pattern shifted, so rotating the groups is a symmetry of the
//! network. `g - 1` must divide `a h`: every pair of groups then has `a h / (g-1)` links.

use super::{ChannelDesc, Shape, Topology, TopologySummary, NONE};
use crate::error::{Error, Result};

/// Largest dragonfly the engine builds (routers).
pub const MAX_ROUTERS: u64 = 1 << 20;

/// The shape of a dragonfly: `a`, `p`, `h`, `g` of the paper.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dragonfly {
    /// Routers per group.
    pub a: u32,
    /// Endpoints per router.
    pub p: u32,
    /// Global channels per router.
    pub h: u32,
    /// Groups.
    pub g: u32,
}

impl Dragonfly {
    /// Validate the four parameters (`path` is the config key, "topology").
    pub fn new(a: u32, p: u32, h: u32, g: Option<u32>, path: &str) -> Result<Self> {
        if !(1..=63).contains(&a) {
            return Err(Error::config(format!("{path}.group_routers"), format!("{a} routers per group is not supported; use 1..=63")));
        }
        if !(1..=32).contains(&p) {
            return Err(Error::config(format!("{path}.concentration"), format!("{p} endpoints per router is not supported; use 1..=32")));
        }
        if !(1..=63).contains(&h) {
            return Err(Error::config(
                format!("{path}.global_ports"),
                format!("{h} global channels per router is not supported; use 1..=63"),
            ));
        }
        let links = a * h;
        let g = g.unwrap_or(links + 1);
        if g < 2 || g > links + 1 {
            return Err(Error::config(
                format!("{path}.groups"),
                format!("{g} groups cannot be wired: a group's {links} global links (group_routers x global_ports) reach 1..={links} other groups; use 2..={}", links + 1),
            ));
        }
        if !links.is_multiple_of(g - 1) {
            let fits: Vec<String> = (2..=links + 1).filter(|x| links.is_multiple_of(x - 1)).map(|x| x.to_string()).collect();
            return Err(Error::config(
                format!("{path}.groups"),
                format!(
                    "with {g} groups a group's {links} global links do not divide evenly among the {} others; use one of {}",
                    g - 1,
                    fits.join(", ")
                ),
            ));
        }
        let ports = a - 1 + h + p;
        if ports > 64 {
            return Err(Error::config(
                format!("{path}.group_routers"),
                format!("routers would have {ports} ports ((group_routers - 1) + global_ports + concentration); at most 64 are supported"),
            ));
        }
        if u64::from(a) * u64::from(g) > MAX_ROUTERS {
            return Err(Error::config(
                format!("{path}.groups"),
                format!("{} routers is more than the {MAX_ROUTERS} supported; use fewer groups", u64::from(a) * u64::from(g)),
            ));
        }
        Ok(Dragonfly { a, p, h, g })
    }

    /// Routers.
    pub fn routers(&self) -> u32 {
        self.a * self.g
    }

    /// Network ports per router: `a - 1` local, then `h` global.
    pub fn net_ports(&self) -> u32 {
        self.a - 1 + self.h
    }

    /// Global links between each pair of groups.
    pub fn links_per_pair(&self) -> u32 {
        self.a * self.h / (self.g - 1)
    }

    /// Group of router `r`.
    #[inline]
    pub fn group(&self, r: u32) -> u32 {
        r / self.a
    }

    /// Index of router `r` within its group.
    #[inline]
    pub fn index(&self, r: u32) -> u32 {
        r % self.a
    }

    /// Is `port` a global port?
    #[inline]
    pub fn is_global(&self, port: u32) -> bool {
        port >= self.a - 1 && port < self.net_ports()
    }

    /// The local port of router index `i` that reaches router index `u` of its group
    /// (`u != i`).
    #[inline]
    pub fn local_port(&self, i: u32, u: u32) -> u32 {
        (u + self.a - i - 1) % self.a
    }

    /// Global link `k` of group `grp`: the group it reaches and the link number there.
    #[inline]
    pub fn global_peer(&self, grp: u32, k: u32) -> (u32, u32) {
        let m = self.g - 1;
        let (copy, off) = (k / m, k % m);
        ((grp + 1 + off) % self.g, copy * m + (m - 1 - off))
    }

    /// The global link (number within group `from`) that copy `copy` of the links from
    /// group `from` to group `to` (`to != from`) is.
    #[inline]
    pub fn link_to(&self, from: u32, to: u32, copy: u32) -> u32 {
        copy * (self.g - 1) + (to + self.g - from - 1) % self.g
    }

    /// The router network port `port` of router `r` leads to.
    #[inline]
    pub fn neighbour(&self, r: u32, port: u32) -> u32 {
        let (grp, i) = (self.group(r), self.index(r));
        if self.is_global(port) {
            let (to, k2) = self.global_peer(grp, i * self.h + port - (self.a - 1));
            to * self.a + self.link_port(k2).0
        } else {
            grp * self.a + (i + port + 1) % self.a
        }
    }

    /// Router index and global port of link `k`.
    #[inline]
    pub fn link_port(&self, k: u32) -> (u32, u32) {
        (k / self.h, self.a - 1 + k % self.h)
    }
}

/// Build the dragonfly network.
pub fn build(df: Dragonfly) -> Result<Topology> {
    let (a, g) = (df.a, df.g);
    let routers = df.routers();
    let np = df.net_ports();
    let ports = np + df.p;
    let mut channels = Vec::new();
    let mut out_channel = vec![NONE; (routers * ports) as usize];
    let mut in_channel = vec![NONE; (routers * ports) as usize];
    let mut add = |c: ChannelDesc, channels: &mut Vec<ChannelDesc>| {
        let id = channels.len() as u32;
        out_channel[(c.src_router * ports + c.src_port) as usize] = id;
        in_channel[(c.dst_router * ports + c.dst_port) as usize] = id;
        channels.push(c);
    };
    for r in 0..routers {
        let (grp, i) = (df.group(r), df.index(r));
        for j in 0..a - 1 {
            let u = (i + j + 1) % a;
            let back = df.local_port(u, i);
            add(
                ChannelDesc { src_router: r, src_port: j, dst_router: grp * a + u, dst_port: back, dim: 0, dir: 1, wrap: false },
                &mut channels,
            );
        }
        for j in 0..df.h {
            let k = i * df.h + j;
            let (to, k2) = df.global_peer(grp, k);
            let (u, port) = df.link_port(k2);
            add(
                ChannelDesc { src_router: r, src_port: a - 1 + j, dst_router: to * a + u, dst_port: port, dim: 1, dir: 1, wrap: false },
                &mut channels,
            );
        }
    }
    let coords = (0..routers).flat_map(|r| [df.index(r), df.group(r)]).collect();
    Ok(Topology {
        shape: Shape::Dragonfly,
        dims: vec![a, g],
        wrap: vec![false, false],
        concentration: df.p,
        num_routers: routers,
        num_nodes: routers * df.p,
        ports,
        channels,
        out_channel,
        in_channel,
        net_ports: np,
        kautz: None,
        fat_tree: None,
        dragonfly: Some(df),
        hyperx: None,
        graph: None,
        coords,
    })
}

/// Hops of the minimal route from router `s` to router `t` ([`minimal_port`] hop by
/// hop): 0 on one router, 1 within a group, and between groups a local hop to a router
/// holding a global link to the destination group (none when `s` holds one), the global
/// hop, and a local hop from where it lands (none when that is `t`): at most 3.
pub fn minimal_hops(df: &Dragonfly, s: u32, t: u32) -> u32 {
    let mut at = s;
    let mut hops = 0;
    while at != t {
        at = df.neighbour(at, minimal_port(df, at, t));
        hops += 1;
    }
    hops
}

/// The global link (number within the source group) a minimal route from router `s` to
/// router `t` in another group takes: one of `s`'s own links to that group if it has
/// one, otherwise copy [`minimal_copy`] of the group pair's links.
#[inline]
pub fn minimal_link(df: &Dragonfly, s: u32, t: u32) -> u32 {
    let (gs, gt, i) = (df.group(s), df.group(t), df.index(s));
    let q = df.links_per_pair();
    // `s`'s global links are k = i h .. (i+1) h; copy c of the pair's links is
    // c (g-1) + off.
    let off = (gt + df.g - gs - 1) % df.g;
    let m = df.g - 1;
    let first = i * df.h;
    // The first copy c with c m + off >= first.
    let c = if first > off { (first - off).div_ceil(m) } else { 0 };
    if c < q && c * m + off < first + df.h {
        return c * m + off;
    }
    df.link_to(gs, gt, minimal_copy(df, t))
}

/// Which copy of a group pair's global links a minimal route takes when its router has
/// none: chosen by the destination router's index in its group, so routes to different
/// routers spread over the copies, every hop of one route agrees, and rotating the
/// groups maps routes onto routes.
#[inline]
pub fn minimal_copy(df: &Dragonfly, t: u32) -> u32 {
    df.index(t) % df.links_per_pair()
}

/// Summary for `flitsim topo`: minimal-route hops (exact: by the rotation symmetry, the
/// routes from group 0 stand for all), the bisection of the natural cut (half the
/// groups against the other half), and the channel bound of uniform traffic on minimal
/// routes (exact, by the same symmetry).
pub fn summary(t: &Topology) -> TopologySummary {
    let df = t.dragonfly.expect("a dragonfly topology has its shape");
    let (a, g, p) = (df.a, df.g, df.p);
    let routers = df.routers();
    // Hops summed over routes from group 0's routers to every router.
    let mut total = 0u64;
    let mut diameter = 0;
    for s in 0..a {
        for t_r in 0..routers {
            let h = minimal_hops(&df, s, t_r);
            total += u64::from(h);
            diameter = diameter.max(h);
        }
    }
    // Endpoint pairs: each router pair stands for p^2 endpoint pairs.
    let nodes = f64::from(t.num_nodes);
    let pp = f64::from(p) * f64::from(p);
    let sum_all = total as f64 * f64::from(g) * pp;
    let avg_hops = sum_all / (nodes * nodes);
    let avg_distinct = if t.num_nodes > 1 { sum_all / (nodes * (nodes - 1.0)) } else { 0.0 };
    // The natural bisection: groups 0..g/2 against the rest (plus, when g is odd, the
    // middle group's routers split in half: their local channels cross too).
    let half_routers = routers / 2;
    let side = |r: u32| r < half_routers;
    let bisection = t.channels.iter().filter(|c| side(c.src_router) != side(c.dst_router)).count() as u32;
    let bisection_bound = if bisection > 0 { 2.0 * f64::from(bisection) / nodes } else { f64::INFINITY };
    // Channel loads of uniform traffic over minimal routes. Rotating the groups maps
    // routes onto routes, so a channel's load is that of its image in group 0: follow
    // the routes from group 0's routers to every router and add each channel's use to
    // its image (channel ids run router by router, `a - 1 + h` per router).
    let per_group = (a * df.net_ports()) as usize;
    let mut load = vec![0u64; per_group];
    for s in 0..a {
        for d in 0..routers {
            let mut at = s;
            while at != d {
                let port = minimal_port(&df, at, d);
                let c = t.out_channel[(at * t.ports + port) as usize];
                load[c as usize % per_group] += 1;
                at = t.channels[c as usize].dst_router;
            }
        }
    }
    let max_load = load.iter().copied().max().unwrap_or(0) as f64 * pp;
    // x flits/node/cycle to uniform destinations puts x L / N on a channel that L of
    // the N^2 endpoint routes cross.
    let channel_bound = if max_load == 0.0 { 1.0 } else { nodes / max_load };
    TopologySummary {
        description: format!(
            "dragonfly: {g} groups of {a} routers, {} global ports and {p} endpoints per router ({} links per group pair)",
            df.h,
            df.links_per_pair()
        ),
        nodes: t.num_nodes,
        routers,
        router_radix: t.ports,
        channels: t.channels.len() as u32,
        diameter,
        avg_hops,
        avg_hops_distinct: avg_distinct,
        bisection_channels: bisection,
        bisection_note: "routers 0..R/2 against the rest: half the groups against the other half (both directions); minimal-route hops"
            .into(),
        uniform_bisection_bound: bisection_bound.min(1.0),
        uniform_channel_bound: channel_bound.min(1.0),
    }
}

/// The output port of the minimal route at router `at` towards router `d` (`at != d`).
#[inline]
pub fn minimal_port(df: &Dragonfly, at: u32, d: u32) -> u32 {
    let (ga, gd) = (df.group(at), df.group(d));
    if ga == gd {
        return df.local_port(df.index(at), df.index(d));
    }
    let k = minimal_link(df, at, d);
    let (owner, port) = df.link_port(k);
    if owner == df.index(at) {
        port
    } else {
        df.local_port(df.index(at), owner)
    }
}
