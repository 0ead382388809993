//! The saturation verdict: is the network past its saturation point at this load, and why.
//!
//! A run is reported as saturated when any of these holds (each gives one reason):
//!
//! 1. **Throughput**: accepted throughput (mean over all destinations) is below
//!    `offered · (1 − accepted_tolerance)`. Never fires when nothing was offered.
//! 2. **Drain**: some measured packets were still undelivered when the drain stopped
//!    (BookSim's "drain timeout").
//! 3. **Latency**: the mean packet latency (creation to delivery, so it includes source
//!    queueing) is above `latency_limit` cycles (BookSim's `latency_thres` idea).
//! 4. **Source queues**: the packets waiting in source queues grew over the measurement
//!    window by more than `max(10, 5% of the measured packets)` — the offered load is not
//!    being absorbed, even if the window was too short for (1)–(3) to show it.

use super::{FinishInfo, StatsConfig};

/// Source-queue growth (packets) always tolerated over a window, however few packets.
pub const QUEUE_GROWTH_MIN: u64 = 10;

/// Source-queue growth tolerated as a fraction of the measured packets.
pub const QUEUE_GROWTH_FRACTION: f64 = 0.05;

/// Human-readable reasons this run is saturated; empty means not saturated.
///
/// `offered` and `accepted_mean` are in flits/node/cycle, `mean_latency` is the mean
/// packet latency in cycles.
pub fn verdict(cfg: &StatsConfig, offered: f64, accepted_mean: f64, mean_latency: f64, info: &FinishInfo) -> Vec<String> {
    let mut reasons = Vec::new();

    if offered > 0.0 && accepted_mean < offered * (1.0 - cfg.accepted_tolerance) {
        reasons.push(format!(
            "accepted throughput {} is below offered {} (tolerance {}%)",
            fmt_rate(accepted_mean),
            fmt_rate(offered),
            fmt_trimmed(cfg.accepted_tolerance * 100.0, 3),
        ));
    }

    if info.measured_outstanding > 0 {
        reasons.push(format!(
            "{} of {} measured packets were still undelivered after a drain of {} cycles",
            info.measured_outstanding, info.measured_created, info.drain_cycles,
        ));
    }

    if mean_latency > cfg.latency_limit {
        reasons.push(format!(
            "mean packet latency {} cycles is above the limit of {} cycles (stats.latency_limit)",
            fmt_trimmed(mean_latency, 1),
            fmt_trimmed(cfg.latency_limit, 1),
        ));
    }

    let growth = info.source_queue_at_end.saturating_sub(info.source_queue_at_start);
    let allowed = queue_growth_allowed(info.measured_created);
    if growth > allowed {
        reasons.push(format!(
            "source queues grew by {growth} packets over the measurement window (from {} to {}), \
             more than the {allowed} allowed (max of {QUEUE_GROWTH_MIN} and 5% of {} measured packets)",
            info.source_queue_at_start, info.source_queue_at_end, info.measured_created,
        ));
    }

    if info.in_network > 0 && info.stalled_for > info.quiet_cycles.max(STALL_MIN) {
        reasons.push(format!(
            "stalled, likely deadlocked: no flit moved in the last {} cycles (since cycle {}) with {} flits in the \
             network, while a flit waits at most {} cycles between two moves here unless a link is down or \
             replaying; the run ended before the watchdog (sim.watchdog = {}) ran out, which would stop it \
             naming the blocked channels",
            info.stalled_for,
            info.cycles - info.stalled_for,
            info.in_network,
            info.quiet_cycles,
            info.watchdog,
        ));
    }

    reasons
}

/// Shortest stall at the end of a run reported as one (cycles), whatever the network's
/// own longest wait: link-level retry waits for control packets and replays.
pub const STALL_MIN: u64 = 100;

/// Source-queue growth (packets) tolerated over a window that measured `measured` packets.
pub fn queue_growth_allowed(measured: u64) -> u64 {
    let fraction = (measured as f64 * QUEUE_GROWTH_FRACTION).ceil() as u64;
    fraction.max(QUEUE_GROWTH_MIN)
}

/// A rate with at least 3 decimals and at least 3 significant digits (0.412, 0.0412).
fn fmt_rate(x: f64) -> String {
    let decimals = if x > 0.0 && x < 0.1 { (2 - x.log10().floor() as i32).clamp(3, 12) } else { 3 };
    format!("{x:.prec$}", prec = decimals as usize)
}

/// `x` with at most `decimals` decimals and no trailing zeros (5, 2.5, 1234.5).
fn fmt_trimmed(x: f64, decimals: usize) -> String {
    let s = format!("{x:.decimals$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn healthy() -> FinishInfo {
        FinishInfo {
            measured_created: 1200,
            measured_outstanding: 0,
            drain_cycles: 350,
            source_queue_at_start: 3,
            source_queue_at_end: 5,
            cycles: 21_350,
            in_network: 40,
            stalled_for: 0,
            quiet_cycles: 5,
            watchdog: 5000,
        }
    }

    #[test]
    fn healthy_run_is_not_saturated() {
        let cfg = StatsConfig::default();
        assert!(verdict(&cfg, 0.5, 0.49, 42.0, &healthy()).is_empty());
        // Exactly at the tolerance edge is still fine: 0.5 * 0.95 = 0.475.
        assert!(verdict(&cfg, 0.5, 0.475, 42.0, &healthy()).is_empty());
    }

    #[test]
    fn low_acceptance_alone() {
        let cfg = StatsConfig::default();
        let r = verdict(&cfg, 0.5, 0.412, 42.0, &healthy());
        assert_eq!(r, vec!["accepted throughput 0.412 is below offered 0.500 (tolerance 5%)"]);
    }

    #[test]
    fn small_rates_keep_significant_digits() {
        let cfg = StatsConfig::default();
        let r = verdict(&cfg, 0.005, 0.00412, 42.0, &healthy());
        assert_eq!(r, vec!["accepted throughput 0.00412 is below offered 0.00500 (tolerance 5%)"]);
    }

    #[test]
    fn zero_offered_never_saturates_on_throughput() {
        let cfg = StatsConfig { accepted_tolerance: 0.0, ..StatsConfig::default() };
        assert!(verdict(&cfg, 0.0, 0.0, 0.0, &healthy()).is_empty());
    }

    #[test]
    fn undrained_alone() {
        let cfg = StatsConfig::default();
        let info = FinishInfo { measured_outstanding: 37, drain_cycles: 50_000, ..healthy() };
        let r = verdict(&cfg, 0.5, 0.5, 42.0, &info);
        assert_eq!(r, vec!["37 of 1200 measured packets were still undelivered after a drain of 50000 cycles"]);
    }

    #[test]
    fn high_latency_alone() {
        let cfg = StatsConfig::default();
        let r = verdict(&cfg, 0.5, 0.5, 1234.5, &healthy());
        assert_eq!(r, vec!["mean packet latency 1234.5 cycles is above the limit of 1000 cycles (stats.latency_limit)"]);
        assert!(verdict(&cfg, 0.5, 0.5, 1000.0, &healthy()).is_empty());
    }

    #[test]
    fn growing_source_queues_alone() {
        let cfg = StatsConfig::default();
        // 5% of 1200 = 60 packets allowed; growth of 60 is fine, 61 is not.
        let ok = FinishInfo { source_queue_at_start: 10, source_queue_at_end: 70, ..healthy() };
        assert!(verdict(&cfg, 0.5, 0.5, 42.0, &ok).is_empty());
        let bad = FinishInfo { source_queue_at_start: 10, source_queue_at_end: 71, ..healthy() };
        let r = verdict(&cfg, 0.5, 0.5, 42.0, &bad);
        assert_eq!(
            r,
            vec![
                "source queues grew by 61 packets over the measurement window (from 10 to 71), \
                  more than the 60 allowed (max of 10 and 5% of 1200 measured packets)"
            ]
        );
    }

    #[test]
    fn queue_growth_floor_and_shrinking_queues() {
        assert_eq!(queue_growth_allowed(0), 10);
        assert_eq!(queue_growth_allowed(100), 10);
        assert_eq!(queue_growth_allowed(1001), 51);
        let cfg = StatsConfig::default();
        let shrink = FinishInfo { source_queue_at_start: 500, source_queue_at_end: 0, ..healthy() };
        assert!(verdict(&cfg, 0.5, 0.5, 42.0, &shrink).is_empty());
    }

    #[test]
    fn a_stall_at_the_end_is_reported_past_the_longest_wait() {
        let cfg = StatsConfig::default();
        // Quiet 5 cycles, so the floor of 100 applies: 100 idle cycles are not a stall,
        // 101 are; with 150 cycles of quiet allowed, 150 are not.
        let at = |stalled_for, quiet_cycles, in_network| FinishInfo { stalled_for, quiet_cycles, in_network, ..healthy() };
        assert!(verdict(&cfg, 0.5, 0.5, 42.0, &at(100, 5, 40)).is_empty());
        let r = verdict(&cfg, 0.5, 0.5, 42.0, &at(101, 5, 40));
        assert_eq!(r.len(), 1);
        assert!(
            r[0].starts_with("stalled, likely deadlocked: no flit moved in the last 101 cycles (since cycle 21249) with 40 flits"),
            "{}",
            r[0]
        );
        assert!(r[0].contains("sim.watchdog = 5000"), "{}", r[0]);
        assert!(verdict(&cfg, 0.5, 0.5, 42.0, &at(150, 150, 40)).is_empty());
        assert_eq!(verdict(&cfg, 0.5, 0.5, 42.0, &at(151, 150, 40)).len(), 1);
        // An empty network is idle, not stalled.
        assert!(verdict(&cfg, 0.5, 0.5, 42.0, &at(10_000, 5, 0)).is_empty());
    }

    #[test]
    fn all_reasons_together() {
        let cfg = StatsConfig::default();
        let info =
            FinishInfo { measured_outstanding: 1, source_queue_at_start: 0, source_queue_at_end: 1000, stalled_for: 1000, ..healthy() };
        assert_eq!(verdict(&cfg, 0.9, 0.3, 5000.0, &info).len(), 5);
    }
}
