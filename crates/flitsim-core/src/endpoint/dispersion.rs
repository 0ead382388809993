//! Route selection at the NIC by sensing back-pressure: the adaptive and probing adaptive
//! dispersive routing of Geoffray and Hoefler (`papers/clos-adaptive-routing.txt`,
//! sections 4.2 and 4.3) for up*/down* source routes on fat trees.
//!
//! A NIC keeps one current route per destination (initially the static table's) and
//! counts the packets to that destination that flow control stopped ("the NIC firmware
//! knows when the back-pressure flow control is stopping outgoing traffic"): a packet is
//! *blocked* if in any cycle while it was being sent the NIC had a flit to send and no
//! credit (the STOP of Myrinet's STOP/GO), or no VC for its head.
//!
//! * **Adaptive** (4.2): once the blocked packets since the last route change exceed the
//!   *dispersion threshold* (4.2.1), each further blocked packet changes the route, with
//!   the *dispersion probability* (4.2.2), to a uniformly random other route; the count
//!   restarts at each change.
//! * **Probing adaptive** (4.3): instead of changing blindly, the NIC probes a random
//!   alternate route and switches (with the dispersion probability) only if the probe
//!   found it unused; a probe that found it in use makes the next blocked packet probe
//!   another. Once every other route has failed a probe twice since the last change
//!   (section 4.3: "until all possible routes have been probed multiple times"; or after
//!   `probe_limit` failed probes, if given) it is at the local optimum of 4.4.2: it
//!   disperses anyway, to the route of the last failed probe, and its threshold is
//!   doubled until its next change ("temporarily elevating the dispersion threshold
//!   following such forced dispersion").
//!
//! **The probe** is a light packet, one flit, that the NIC sends along the alternate route
//! ahead of its next data packet ([`PROBE_PHASE`] marks it; it is not traffic: it counts
//! in the flit counters but not in packets, throughput or latency). It competes for the
//! links and buffers like any packet. At the destination NIC its latency, timed from its
//! routing at the source switch (so the wait behind the NIC's own blocked data on the
//! first link, which every route shares, does not count), is compared with the zero-load
//! latency of the rest of its route: equal means no switch on the way held it, so the
//! route is unused. **The reply** ([`PROBE_REPLY_PHASE`]) carries that verdict back: a
//! one-flit packet the destination NIC sends to the source ahead of its own next data
//! packet, on its current route to the source, competing like the probe. The source
//! takes the answer when the reply arrives, so the probing time is the round trip the
//! paper describes (section 4.4.1: "the probing time is equivalent to a round-trip
//! time"), waits behind the data packets being sent at both NICs included.
//!
//! Draws come from the NIC's own random stream, so results do not depend on the order
//! NICs are stepped in.

use serde::Serialize;

use crate::error::{Error, Result};
use crate::rng::{fires, threshold, SimRng};

/// The configured scheme: `routing.selection` with its parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DispersionParams {
    /// Probing adaptive (else adaptive).
    pub probing: bool,
    /// Blocked packets tolerated before dispersing.
    pub threshold: u32,
    /// Probability of changing route on sensing contention, as a [`threshold`] of the
    /// RNG.
    pub change: u64,
    /// Failed probes in a row before a forced dispersion; 0: once every other route
    /// failed twice ([`MAX_TRACKED_ROUTES`] routes at most; beyond, twice the count).
    pub probe_limit: u32,
}

/// Most routes per pair whose failed probes are tracked one by one (the default forced
/// dispersion); pairs with more routes force after twice their route count.
pub const MAX_TRACKED_ROUTES: u32 = 256;

/// A set of route numbers below [`MAX_TRACKED_ROUTES`].
type RouteSet = [u64; (MAX_TRACKED_ROUTES / 64) as usize];

/// The `[routing]` fields of the dispersive schemes, as given (defined and documented in
/// [`crate::routing::RoutingConfig::Updown`]).
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct DispersionConfig {
    /// Blocked packets tolerated before dispersing. Default 4 (adaptive), 16 (probing).
    pub threshold: Option<u32>,
    /// Probability in [0, 1] of changing route on sensing contention. Default 0.5
    /// (adaptive), 1 (probing).
    pub probability: Option<f64>,
    /// Probing: failed probes in a row before a forced dispersion, >= 1. Default: once
    /// every other route has failed twice.
    pub probe_limit: Option<u32>,
}

impl DispersionParams {
    /// The NICs' dispersive scheme `routing` selects (`selection = "adaptive"` or
    /// `"probing"` of up*/down* routing) with its parameters, if it selects one; errors
    /// name `{path}.field`.
    pub fn of_routing(routing: &crate::routing::RoutingConfig, path: &str) -> Result<Option<Self>> {
        use crate::routing::updown_net::Selection;
        let crate::routing::RoutingConfig::Updown { selection, threshold, probability, probe_limit, .. } = *routing else {
            return Ok(None);
        };
        let cfg = DispersionConfig { threshold, probability, probe_limit };
        let params = match selection {
            Selection::Adaptive | Selection::Probing => Self::build(&cfg, selection == Selection::Probing, path)?,
            _ if threshold.is_some() || probability.is_some() || probe_limit.is_some() => {
                return Err(Error::config(
                    format!("{path}.selection"),
                    "threshold, probability and probe_limit are parameters of the dispersive schemes; use selection = \"adaptive\" or \"probing\", or remove them",
                ))
            }
            _ => return Ok(None),
        };
        if selection == Selection::Adaptive && probe_limit.is_some() {
            return Err(Error::config(
                format!("{path}.probe_limit"),
                "only the probing scheme probes; use selection = \"probing\", or remove probe_limit",
            ));
        }
        Ok(Some(params))
    }

    /// Validate; `probing` selects the scheme's defaults (the paper's Figures 4 and 5).
    pub fn build(cfg: &DispersionConfig, probing: bool, path: &str) -> Result<Self> {
        let p = cfg.probability.unwrap_or(if probing { 1.0 } else { 0.5 });
        if !(0.0..=1.0).contains(&p) {
            return Err(Error::config(format!("{path}.probability"), format!("dispersion probability {p} must be in [0, 1]")));
        }
        if cfg.probe_limit == Some(0) {
            return Err(Error::config(format!("{path}.probe_limit"), "a limit of 0 failed probes would never probe; give at least 1"));
        }
        Ok(DispersionParams {
            probing,
            threshold: cfg.threshold.unwrap_or(if probing { 16 } else { 4 }),
            change: threshold(p),
            probe_limit: cfg.probe_limit.unwrap_or(0),
        })
    }
}

/// The `phase` field of a probe packet (never a traffic phase).
pub const PROBE_PHASE: u32 = u32::MAX;

/// The `phase` field of a probe's reply packet (never a traffic phase). The reply's
/// `hop_start` is the probed route's number, its `seq` 1 if the probe found the route
/// unused, else 0.
pub const PROBE_REPLY_PHASE: u32 = u32::MAX - 1;

/// Is `phase` a probe's or a reply's (control packets, not traffic)?
#[inline]
pub fn is_probing(phase: u32) -> bool {
    phase >= PROBE_REPLY_PHASE
}

/// A probe on its way.
#[derive(Clone, Copy, Debug)]
struct Probe {
    route: u32,
    /// Cycle it was queued at the NIC.
    sent_at: u64,
    /// Cycle its answer arrived (`u64::MAX` until the reply arrived).
    answer_at: u64,
    /// Found the route unused.
    free: bool,
}

/// One destination's route state at a NIC.
#[derive(Clone, Copy, Debug)]
struct Pair {
    dst: u32,
    route: u32,
    blocked: u32,
    failed_probes: u32,
    /// Routes whose probe failed once, and twice or more, since the last change.
    failed_once: RouteSet,
    failed_twice: RouteSet,
    /// Threshold doubled after a forced dispersion, until the next change.
    elevated: bool,
    probe: Option<Probe>,
}

/// What the NIC should do after a packet was sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Nothing.
    Keep,
    /// Probe route `r` (probing scheme): the caller queues a probe packet and calls
    /// [`NicRoutes::probe_sent`].
    Probe(u32),
}

/// Counters of the dispersive schemes, over all NICs and the whole run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct DispersionCounters {
    /// Packets the NICs sent whose sending flow control stopped at least once.
    pub blocked_packets: u64,
    /// Route changes.
    pub route_changes: u64,
    /// Probes sent.
    pub probes: u64,
    /// Replies sent (one per probe that reached its destination).
    #[serde(default)]
    pub replies: u64,
    /// Probe answers the NICs took, and the sum of their round trips in cycles (from
    /// queueing the probe to the reply's arrival): the probing time of section 4.4.1.
    #[serde(default)]
    pub answers: u64,
    #[serde(default)]
    pub round_trip_cycles: u64,
    /// Probes that found their route unused.
    pub probes_free: u64,
    /// Dispersions forced after `probe_limit` failed probes.
    pub forced: u64,
    /// Cycle of the last route change (0 if none): how long the scheme took to settle.
    pub last_change: u64,
}

impl DispersionCounters {
    /// Add another partition's counts (the last change: the later one).
    pub fn merge(&mut self, o: &DispersionCounters) {
        self.blocked_packets += o.blocked_packets;
        self.route_changes += o.route_changes;
        self.probes += o.probes;
        self.replies += o.replies;
        self.answers += o.answers;
        self.round_trip_cycles += o.round_trip_cycles;
        self.probes_free += o.probes_free;
        self.forced += o.forced;
        self.last_change = self.last_change.max(o.last_change);
    }
}

/// One NIC's routes, per destination it has sent to.
#[derive(Clone, Debug, Default)]
pub struct NicRoutes {
    pairs: Vec<Pair>,
}

impl NicRoutes {
    fn pair(&mut self, dst: u32, initial: u32) -> &mut Pair {
        let i = match self.pairs.iter().position(|p| p.dst == dst) {
            Some(i) => i,
            None => {
                self.pairs.push(Pair {
                    dst,
                    route: initial,
                    blocked: 0,
                    failed_probes: 0,
                    failed_once: RouteSet::default(),
                    failed_twice: RouteSet::default(),
                    elevated: false,
                    probe: None,
                });
                self.pairs.len() - 1
            }
        };
        &mut self.pairs[i]
    }

    /// The route for the next packet to `dst` (`initial`: the static table's route, for
    /// a destination not seen before). Takes a probe's answer that has arrived by `now`.
    #[inline]
    #[allow(clippy::too_many_arguments)]
    pub fn route(
        &mut self,
        dst: u32,
        initial: u32,
        now: u64,
        p: &DispersionParams,
        count: u32,
        rng: &mut SimRng,
        c: &mut DispersionCounters,
    ) -> u32 {
        let pair = self.pair(dst, initial);
        if let Some(probe) = pair.probe.filter(|q| q.answer_at <= now) {
            pair.probe = None;
            c.answers += 1;
            c.round_trip_cycles += probe.answer_at - probe.sent_at;
            if probe.free {
                c.probes_free += 1;
                if fires(rng, p.change) {
                    Self::switch(pair, probe.route, now, c);
                }
            } else {
                pair.failed_probes += 1;
                let at_limit = if p.probe_limit != 0 {
                    pair.failed_probes >= p.probe_limit
                } else if count > MAX_TRACKED_ROUTES {
                    pair.failed_probes >= 2 * count
                } else {
                    let (w, b) = ((probe.route / 64) as usize, probe.route % 64);
                    if pair.failed_once[w] >> b & 1 == 1 {
                        pair.failed_twice[w] |= 1 << b;
                    }
                    pair.failed_once[w] |= 1 << b;
                    (0..count).all(|r| r == pair.route || pair.failed_twice[(r / 64) as usize] >> (r % 64) & 1 == 1)
                };
                if at_limit {
                    // The local optimum (4.4.2): disperse anyway, and hold the next
                    // dispersion back so that this NIC loses the next battle.
                    c.forced += 1;
                    Self::switch(pair, probe.route, now, c);
                    pair.elevated = true;
                }
            }
        }
        pair.route
    }

    fn switch(pair: &mut Pair, route: u32, now: u64, c: &mut DispersionCounters) {
        if route != pair.route {
            c.route_changes += 1;
            c.last_change = now;
        }
        pair.route = route;
        pair.blocked = 0;
        pair.failed_probes = 0;
        pair.failed_once = RouteSet::default();
        pair.failed_twice = RouteSet::default();
        pair.elevated = false;
    }

    /// A packet to `dst` (whose pair has `count` routes) was sent; `blocked` if flow
    /// control stopped it.
    #[inline]
    #[allow(clippy::too_many_arguments)]
    pub fn sent(
        &mut self,
        dst: u32,
        blocked: bool,
        now: u64,
        p: &DispersionParams,
        count: u32,
        rng: &mut SimRng,
        c: &mut DispersionCounters,
    ) -> Action {
        if !blocked || count < 2 {
            return Action::Keep;
        }
        c.blocked_packets += 1;
        let Some(pair) = self.pairs.iter_mut().find(|q| q.dst == dst) else { return Action::Keep };
        pair.blocked += 1;
        let limit = if pair.elevated { p.threshold.saturating_mul(2).max(1) } else { p.threshold };
        if pair.blocked <= limit || pair.probe.is_some() {
            return Action::Keep;
        }
        // A uniformly random other route.
        let other = |rng: &mut SimRng| {
            let r = crate::rng::below(rng, count - 1);
            if r >= pair.route {
                r + 1
            } else {
                r
            }
        };
        if p.probing {
            return Action::Probe(other(rng));
        }
        if fires(rng, p.change) {
            let r = other(rng);
            Self::switch(pair, r, now, c);
        }
        Action::Keep
    }

    /// The current route to `dst`, if this NIC has sent to it.
    pub fn current(&self, dst: u32) -> Option<u32> {
        self.pairs.iter().find(|q| q.dst == dst).map(|q| q.route)
    }

    /// A probe of route `route` to `dst` was queued at cycle `now`.
    pub fn probe_sent(&mut self, dst: u32, route: u32, now: u64, c: &mut DispersionCounters) {
        c.probes += 1;
        if let Some(pair) = self.pairs.iter_mut().find(|q| q.dst == dst) {
            pair.probe = Some(Probe { route, sent_at: now, answer_at: u64::MAX, free: false });
        }
    }

    /// The probe of `route` to `dst` found it `free` (or not); the answer is here at
    /// `answer_at`.
    pub fn probe_answer(&mut self, dst: u32, route: u32, free: bool, answer_at: u64) {
        if let Some(Some(p)) = self.pairs.iter_mut().find(|q| q.dst == dst).map(|q| q.probe.as_mut()) {
            if p.route == route {
                p.answer_at = answer_at;
                p.free = free;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::stream;

    fn params(probing: bool, threshold: u32, p: f64, limit: u32) -> DispersionParams {
        DispersionParams::build(
            &DispersionConfig { threshold: Some(threshold), probability: Some(p), probe_limit: Some(limit) },
            probing,
            "routing",
        )
        .unwrap()
    }

    #[test]
    fn adaptive_changes_after_the_threshold_with_certainty_at_probability_one() {
        let p = params(false, 3, 1.0, 1);
        let (mut nic, mut rng, mut c) = (NicRoutes::default(), stream(1, 0, 0), DispersionCounters::default());
        assert_eq!(nic.route(7, 2, 0, &p, 16, &mut rng, &mut c), 2);
        // Unblocked packets never change anything.
        for t in 0..10 {
            assert_eq!(nic.sent(7, false, t, &p, 16, &mut rng, &mut c), Action::Keep);
        }
        // Blocked packets 1..=3 are tolerated, the 4th changes the route.
        for t in 0..3 {
            nic.sent(7, true, t, &p, 16, &mut rng, &mut c);
            assert_eq!(nic.route(7, 2, t, &p, 16, &mut rng, &mut c), 2);
        }
        nic.sent(7, true, 20, &p, 16, &mut rng, &mut c);
        let r = nic.route(7, 2, 21, &p, 16, &mut rng, &mut c);
        assert!(r != 2 && r < 16);
        assert_eq!((c.blocked_packets, c.route_changes, c.last_change), (4, 1, 20));
    }

    #[test]
    fn adaptive_probability_zero_never_changes_and_one_route_never_disperses() {
        let (mut rng, mut c) = (stream(2, 0, 0), DispersionCounters::default());
        let mut nic = NicRoutes::default();
        nic.route(1, 0, 0, &params(false, 0, 0.0, 1), 4, &mut rng, &mut c);
        for t in 0..100 {
            nic.sent(1, true, t, &params(false, 0, 0.0, 1), 4, &mut rng, &mut c);
        }
        assert_eq!(c.route_changes, 0);
        let mut one = NicRoutes::default();
        one.route(1, 0, 0, &params(false, 0, 1.0, 1), 1, &mut rng, &mut c);
        assert_eq!(one.sent(1, true, 0, &params(false, 0, 1.0, 1), 1, &mut rng, &mut c), Action::Keep);
        assert_eq!(c.blocked_packets, 100);
    }

    #[test]
    fn probing_switches_only_to_a_free_route_and_forces_after_the_limit() {
        let p = params(true, 0, 1.0, 2);
        let (mut nic, mut rng, mut c) = (NicRoutes::default(), stream(3, 0, 0), DispersionCounters::default());
        nic.route(5, 1, 0, &p, 8, &mut rng, &mut c);
        // A blocked packet probes; the probe finds the route busy: no change.
        let Action::Probe(a) = nic.sent(5, true, 0, &p, 8, &mut rng, &mut c) else { panic!("no probe") };
        assert_ne!(a, 1);
        nic.probe_sent(5, a, 0, &mut c);
        nic.probe_answer(5, a, false, 10);
        // While the probe is out no other is sent; before the answer the route holds.
        assert_eq!(nic.sent(5, true, 1, &p, 8, &mut rng, &mut c), Action::Keep);
        assert_eq!(nic.route(5, 1, 9, &p, 8, &mut rng, &mut c), 1);
        assert_eq!(nic.route(5, 1, 10, &p, 8, &mut rng, &mut c), 1);
        // A second busy probe reaches the limit of 2: forced dispersion to it.
        let Action::Probe(b) = nic.sent(5, true, 11, &p, 8, &mut rng, &mut c) else { panic!("no probe") };
        nic.probe_sent(5, b, 11, &mut c);
        nic.probe_answer(5, b, false, 21);
        assert_eq!(nic.route(5, 1, 21, &p, 8, &mut rng, &mut c), b);
        assert_eq!((c.probes, c.probes_free, c.forced), (2, 0, 1));
        // The threshold is now elevated (0 -> 0 doubled, at least 1): one blocked packet
        // is tolerated, the next probes; a free probe switches.
        assert_eq!(nic.sent(5, true, 22, &p, 8, &mut rng, &mut c), Action::Keep);
        let Action::Probe(d) = nic.sent(5, true, 23, &p, 8, &mut rng, &mut c) else { panic!("no probe") };
        nic.probe_sent(5, d, 23, &mut c);
        // An answer for another route (a stale probe) is ignored.
        nic.probe_answer(5, d + 1, false, 24);
        nic.probe_answer(5, d, true, 27);
        assert_eq!(nic.route(5, 1, 27, &p, 8, &mut rng, &mut c), d);
        assert_eq!(c.probes_free, 1);
        // Three answers taken, round trips 10 - 0, 21 - 11 and 27 - 23.
        assert_eq!((c.answers, c.round_trip_cycles), (3, 24));
    }

    /// Without `probe_limit`, the dispersion is forced once every other route has failed
    /// a probe twice: here routes 1, 2, 3 of 4 (the current one is 0), whatever the
    /// order, and a third failure of one route does not stand in for another's second.
    #[test]
    fn probing_forces_once_every_other_route_failed_twice() {
        let p =
            DispersionParams::build(&DispersionConfig { threshold: Some(0), probability: Some(1.0), probe_limit: None }, true, "routing")
                .unwrap();
        let (mut nic, mut rng, mut c) = (NicRoutes::default(), stream(4, 0, 0), DispersionCounters::default());
        nic.route(9, 0, 0, &p, 4, &mut rng, &mut c);
        // Failed probes of these routes in turn; the last completes the second round.
        let order = [1, 1, 1, 2, 3, 3, 2];
        for (t, &r) in order.iter().enumerate() {
            let t = t as u64 * 10;
            assert!(matches!(nic.sent(9, true, t, &p, 4, &mut rng, &mut c), Action::Probe(_)), "probe {t}");
            nic.probe_sent(9, r, t, &mut c);
            nic.probe_answer(9, r, false, t + 5);
            let now = nic.route(9, 0, t + 5, &p, 4, &mut rng, &mut c);
            if t / 10 + 1 < order.len() as u64 {
                assert_eq!((now, c.forced), (0, 0), "forced early, after probe {}", t / 10);
            } else {
                assert_eq!((now, c.forced), (2, 1), "not forced after every route failed twice");
            }
        }
    }

    #[test]
    fn bad_parameters_name_the_field() {
        let e = |cfg: DispersionConfig| DispersionParams::build(&cfg, true, "routing").unwrap_err().to_string();
        assert!(e(DispersionConfig { probability: Some(1.5), ..Default::default() }).contains("routing.probability"));
        assert!(e(DispersionConfig { probe_limit: Some(0), ..Default::default() }).contains("routing.probe_limit"));
    }
}
