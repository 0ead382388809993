//! Property tests: for random packet streams, link timings and every error model, every
//! packet is delivered exactly once and in order, none is lost or duplicated, and the
//! counters agree with what was pushed and with each other. The expected values come
//! from the input (packet list, sizes), not from the code.

use proptest::prelude::*;

use super::tests::drive;
use super::*;
use crate::link::errors::{BurstParams, Lanes, SyncLoss};

/// The error models exercised, by number.
const MODELS: usize = 8;

fn model(m: usize, sync_start: u64, sync_len: u64, lanes: u8, script: &[u64]) -> ErrorParams {
    let lanes = [Lanes::Data, Lanes::Control, Lanes::Both][lanes as usize % 3];
    let mut e = ErrorParams::default();
    match m {
        0 => {}
        1 => e.ber = 1e-4,
        // Very high: 6% of flits and 11% of control packets hit.
        2 => e.ber = 1e-3,
        3 => e.burst = Some(BurstParams { mean_gap: 300.0, mean_len: 25.0, ber: 0.05 }),
        4 => e.sync_loss = vec![SyncLoss { start: sync_start, duration: sync_len, lanes }],
        // Lost and corrupted control packets only.
        5 => e.ctrl_loss = 0.4,
        6 => {
            e.corrupt_data_at = script.to_vec();
            e.corrupt_ctrl_at = script.iter().map(|t| t + 3).collect();
        }
        _ => {
            e.ber = 3e-4;
            e.ctrl_loss = 0.2;
            e.burst = Some(BurstParams { mean_gap: 500.0, mean_len: 10.0, ber: 0.1 });
            e.sync_loss = vec![SyncLoss { start: sync_start, duration: sync_len, lanes }];
            e.corrupt_data_at = script.to_vec();
        }
    }
    e
}

prop_compose! {
    fn link_params()(latency in 1u32..8, ctrl_latency in 1u32..24, ctrl_period in 1u32..20, window in 1u32..=15, ack_flits in 1u32..=3) -> RetryParams {
        RetryParams { latency, ctrl_latency, ctrl_period, window, ack_flits, errors: ErrorParams::default() }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn retry_delivers_every_packet_once_in_order(
        sizes in prop::collection::vec(1u16..=20, 1..80),
        base in link_params(),
        m in 0..MODELS,
        sync_start in 0u64..600,
        sync_len in 1u64..400,
        lanes in 0u8..3,
        script in prop::collection::vec(0u64..1500, 0..12),
        early_mask: u32,
        seed: u64,
    ) {
        let mut p = base;
        p.errors = model(m, sync_start, sync_len, lanes, &script);
        let pk: Vec<PacketRef> = sizes.iter().enumerate().map(|(i, &flits)| PacketRef { id: 1000 + i as u32, flits }).collect();
        let r = drive(&p, &pk, seed, 2_000_000, false, |id| early_mask >> (id % 32) & 1 == 1);
        prop_assert!(r.link.is_quiescent(), "did not finish in {} cycles: {:?}", r.end, r.link.stats());
        // Good copies: exactly the pushed ids, each once, in order.
        let good: Vec<u32> = r.log.iter().filter(|d| !d.poisoned).map(|d| d.id).collect();
        prop_assert_eq!(good, pk.iter().map(|p| p.id).collect::<Vec<_>>());
        for d in &r.log {
            prop_assert_eq!(d.flits, sizes[(d.id - 1000) as usize]);
        }
        // Deliveries come in time order; each poisoned copy precedes its good copy.
        prop_assert!(r.log.windows(2).all(|w| w[0].at <= w[1].at));
        for (i, d) in r.log.iter().enumerate().filter(|(_, d)| d.poisoned) {
            prop_assert!(r.log[i + 1..].iter().any(|g| g.id == d.id && !g.poisoned));
        }
        let s = *r.link.stats();
        let (data_hits, ctrl_hits) = r.link.hits();
        let n = pk.len() as u64;
        let flits: u64 = sizes.iter().map(|&f| f as u64).sum();
        prop_assert_eq!((s.pushed, s.sent, s.delivered, s.acked), (n, n, n, n));
        prop_assert_eq!((s.flits_pushed, s.flits_original), (flits, flits));
        // Wire flits = original + replayed + error-ack flits; every one was judged once.
        prop_assert_eq!(s.wire_flits, flits + s.flits_replayed + s.ack_flits);
        prop_assert_eq!(s.wire_flits, data_hits.events);
        prop_assert_eq!(s.flits_corrupted, data_hits.corrupted);
        // Every data packet sent (first time or again) reached the receiver and was
        // delivered, failed its CRC, or was dropped during an error.
        prop_assert_eq!(s.sent + s.packets_replayed, s.delivered + s.crc_errors + s.rx_dropped);
        prop_assert_eq!(s.poisoned as usize, r.log.iter().filter(|d| d.poisoned).count());
        prop_assert!(s.poisoned <= s.crc_errors);
        // Error-acks: each was cleared, found corrupted, or arrived with no error pending.
        prop_assert!(s.error_acks_received + s.error_acks_corrupted <= s.replays);
        prop_assert_eq!(s.ack_flits, s.replays * p.ack_flits as u64);
        // Replays happen exactly when a CRC error happened; without a corrupted flit, none.
        prop_assert_eq!(s.replays > 0, s.crc_errors > 0);
        if data_hits.corrupted == 0 {
            prop_assert_eq!((s.replays, s.flits_replayed, s.crc_errors), (0, 0, 0));
        }
        // Every error-ack clears at most one error; every error was cleared by one.
        prop_assert_eq!(s.error_acks_received, s.crc_errors);
        // Control packets: each sent one is received, lost, or still on the wire.
        prop_assert_eq!(s.ctrl_sent, s.ctrl_received + s.ctrl_lost + r.link.in_flight().1 as u64);
        prop_assert_eq!(s.ctrl_sent, ctrl_hits.events);
        prop_assert_eq!((s.sequence_errors, s.aliased, s.ctrl_inconsistent, s.rx_overflow), (0, 0, 0, 0));
        prop_assert_eq!((s.stranded_lost, s.stranded_unconfirmed), (0, 0));
    }

    #[test]
    fn retry_failure_reports_every_packet_once(
        sizes in prop::collection::vec(1u16..=20, 1..60),
        base in link_params(),
        fail_at in 0u64..800,
        ber in prop::sample::select(vec![0.0, 1e-4, 1e-3]),
        early_mask: u32,
        seed: u64,
    ) {
        // A permanent failure: each packet is delivered (good copy), stranded as lost,
        // or never pushed - exactly one of these - and the stranded "delivered" ones are
        // exactly the delivered ones still unacknowledged.
        let mut p = base;
        p.errors.ber = ber;
        p.errors.fail_at = Some(fail_at);
        let pk: Vec<PacketRef> = sizes.iter().enumerate().map(|(i, &flits)| PacketRef { id: i as u32, flits }).collect();
        let r = drive(&p, &pk, seed, 100_000, false, |id| early_mask >> (id % 32) & 1 == 1);
        let good: Vec<u32> = r.log.iter().filter(|d| !d.poisoned).map(|d| d.id).collect();
        prop_assert_eq!(&good, &(0..good.len() as u32).collect::<Vec<_>>());
        let lost: Vec<u32> = r.stranded.iter().filter(|s| !s.delivered).map(|s| s.packet.id).collect();
        let unconfirmed: Vec<u32> = r.stranded.iter().filter(|s| s.delivered).map(|s| s.packet.id).collect();
        let pushed = r.push_at.len() as u32;
        // Delivered, then lost, then never pushed: a partition of 0..n in order.
        let mut all = good.clone();
        all.extend(&lost);
        all.extend(pushed..pk.len() as u32);
        prop_assert_eq!(all, (0..pk.len() as u32).collect::<Vec<_>>());
        // The unconfirmed ones are the last delivered ones.
        let s = *r.link.stats();
        prop_assert_eq!(&unconfirmed, &good[(s.acked as usize)..].to_vec());
        prop_assert_eq!(s.stranded_lost + s.stranded_unconfirmed, r.stranded.len() as u64);
        // Nothing moves after the failure.
        if r.link.is_failed() {
            prop_assert!(r.log.iter().all(|d| d.at <= fail_at));
        }
    }
}
