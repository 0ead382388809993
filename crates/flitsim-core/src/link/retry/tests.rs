//! Hand-worked timings of the retry protocol. Every expected number below is derived in
//! the comments from the protocol (module doc) and the cycle order of `step`, not read
//! off the code's output.

use super::*;
use crate::link::errors::{BurstParams, Lanes, SyncLoss};

/// What a driven run produced.
pub(super) struct Run {
    pub link: RetryLink,
    /// Good and poisoned deliveries, in the order `rx_pop` gave them.
    pub log: Vec<Delivered>,
    /// Cycle each packet was pushed.
    pub push_at: Vec<u64>,
    pub stranded: Vec<Stranded>,
    /// Cycle after the last one stepped.
    pub end: u64,
}

impl Run {
    pub fn good(&self) -> Vec<(u32, u64)> {
        self.log.iter().filter(|d| !d.poisoned).map(|d| (d.id, d.at)).collect()
    }
    pub fn poisoned(&self) -> Vec<(u32, u64)> {
        self.log.iter().filter(|d| d.poisoned).map(|d| (d.id, d.at)).collect()
    }
}

/// The engine's side of a cycle: push the next packet when the link takes one, step,
/// take every delivery, forward the arriving packet's head early if `early(id)`. Stops
/// when every packet has been pushed and the link is idle, when it has failed, or after
/// `max_cycles`. With `skip_idle`, idle cycles are not stepped at all.
pub(super) fn drive(
    params: &RetryParams,
    packets: &[PacketRef],
    seed: u64,
    max_cycles: u64,
    skip_idle: bool,
    early: impl Fn(u32) -> bool,
) -> Run {
    let mut link = RetryLink::new(params, 7, seed).unwrap();
    let (mut log, mut push_at, mut stranded) = (Vec::new(), Vec::new(), Vec::new());
    let mut now = 0;
    while now < max_cycles {
        if push_at.len() < packets.len() && link.tx_can_accept() {
            link.tx_push(packets[push_at.len()]).unwrap();
            push_at.push(now);
        }
        if !(skip_idle && link.is_quiescent() && link.fail_at().is_none_or(|f| now < f)) {
            link.step(now);
        }
        link.check(now).unwrap();
        while let Some(d) = link.rx_pop() {
            log.push(d);
        }
        if let Some(a) = link.rx_arriving() {
            assert!(a.received >= 1 && a.received < a.flits);
            if early(a.id) {
                assert!(link.rx_forward_early());
            }
        }
        while let Some(s) = link.tx_pop_stranded() {
            stranded.push(s);
        }
        now += 1;
        if link.is_failed() || (push_at.len() == packets.len() && link.is_quiescent()) {
            break;
        }
    }
    Run { link, log, push_at, stranded, end: now }
}

fn packets(sizes: &[u16]) -> Vec<PacketRef> {
    sizes.iter().enumerate().map(|(i, &flits)| PacketRef { id: i as u32, flits }).collect()
}

fn params(latency: u32, ctrl_latency: u32, ctrl_period: u32, window: u32) -> RetryParams {
    RetryParams { latency, ctrl_latency, ctrl_period, window, ..RetryParams::default() }
}

#[test]
fn retry_latency_is_wire_latency_plus_length_minus_one() {
    // The head leaves in the cycle it is pushed, flit i leaves at t + i and arrives at
    // t + i + L; the tail (i = n - 1) is checked and delivered on arrival.
    for (l, n) in [(1u32, 1u16), (1, 4), (3, 4), (7, 20), (2, 1), (1000, 3)] {
        let r = drive(&params(l, 16, 15, 15), &packets(&[n]), 0, 10_000, false, |_| false);
        assert_eq!(r.good(), vec![(0, l as u64 + n as u64 - 1)], "L {l} n {n}");
        assert_eq!(r.link.stats().wire_flits, n as u64);
    }
}

#[test]
fn retry_stream_fills_the_wire_one_flit_per_cycle() {
    // Packets of n flits pushed whenever the link takes one: packet 0 at 0; packet k >= 1
    // is taken in cycle n(k-1) + 1, while packet k-1 is on the wire, and starts at n k.
    // With L = 3 and the default control timing the window (15 x 4 = 60 flits) covers the
    // round trip (tail + 3 + <= 14 to the next control packet + 16 < 40 cycles), so the
    // wire never idles: packet k is delivered at n k + n - 1 + L.
    for n in [4u16, 20] {
        let k_max = 100u64;
        let r = drive(&params(3, 16, 15, 15), &packets(&vec![n; k_max as usize]), 0, 100_000, false, |_| false);
        let n64 = n as u64;
        let expect: Vec<(u32, u64)> = (0..k_max).map(|k| (k as u32, k * n64 + n64 - 1 + 3)).collect();
        assert_eq!(r.good(), expect, "n {n}");
        for (k, &t) in r.push_at.iter().enumerate().skip(1) {
            assert_eq!(t, n64 * (k as u64 - 1) + 1, "push of {k}");
        }
        // Busy every cycle from 0 to the last tail's departure.
        assert_eq!(r.link.stats().wire_flits, k_max * n64);
        assert_eq!(r.link.stats().replay_wire_cycles(), 0);
    }
}

#[test]
fn retry_one_flit_packets_outrun_a_window_of_15() {
    // The same with n = 1: 15 one-flit packets do not cover the round trip. Packet k is
    // pushed and sent at k and accepted at k + 3 while the window lasts (0..14). The
    // control packet sent at 15 says last good = 12 (accepted at 15, before the control
    // packet leaves) and arrives at 31: 13 slots free, packets 15..27 are pushed at
    // 32..44 and delivered at 35..47. The one sent at 30 (last good 14) arrives at 46 and
    // frees 2 slots: packets 28, 29 pushed at 47, 48, delivered at 50, 51.
    let r = drive(&params(3, 16, 15, 15), &packets(&[1; 30]), 0, 100_000, false, |_| false);
    let mut expect: Vec<u64> = (0..15).map(|k| k + 3).collect();
    expect.extend((15..28).map(|k| k - 15 + 35));
    expect.extend([50, 51]);
    assert_eq!(r.good().iter().map(|g| g.1).collect::<Vec<_>>(), expect);
}

#[test]
fn retry_window_limits_throughput_to_the_round_trip() {
    // One-flit packets, control packets every cycle. A window slot is taken by a push in
    // cycle t (sent at t), the packet is accepted at t + L, the control packet sent then
    // reaches the transmitter at t + L + Lc and releases the slot in that step, and the
    // switch sees the room at t + L + Lc + 1: W packets per L + Lc + 1 cycles.
    // W = 2, L = 1, Lc = 1: pushes at 3m and 3m + 1.
    let r = drive(&params(1, 1, 1, 2), &packets(&[1; 20]), 0, 1000, false, |_| false);
    let expect: Vec<u64> = (0..10).flat_map(|m| [3 * m, 3 * m + 1]).collect();
    assert_eq!(r.push_at, expect);
    assert_eq!(r.good().iter().map(|g| g.1).collect::<Vec<_>>(), expect.iter().map(|t| t + 1).collect::<Vec<_>>());
    // W = 3, L = 2, Lc = 3: 3 packets per 6 cycles, pushes at 6m, 6m + 1, 6m + 2.
    let r = drive(&params(2, 3, 1, 3), &packets(&[1; 12]), 0, 1000, false, |_| false);
    let expect: Vec<u64> = (0..4).flat_map(|m| [6 * m, 6 * m + 1, 6 * m + 2]).collect();
    assert_eq!(r.push_at, expect);
}

/// L = 2, Lc = 3, control packets every 4 cycles, 10 packets of 4 flits. Error-free,
/// packet k is pushed at 4k - 3 (k >= 1), sent in [4k, 4k + 3], its tail arrives at
/// 4k + 5; the control packet sent at 4j carries the last packet accepted by then.
fn scenario() -> RetryParams {
    params(2, 3, 4, 15)
}

#[test]
fn retry_single_error_replays_from_the_packet_after_the_last_good() {
    // The flit sent at 9 is packet 2's second flit. Packet 2's tail arrives at 13: CRC
    // error, "error found" set. Packet 1 was accepted at 9 and acknowledged by the
    // control packet sent at 12 (arrives 15, releases 0 and 1; packet 0 went at 11). The
    // control packet sent at 16 has the bit and last good = 1; it arrives at 19, while
    // packet 4 (sent 16..19) is on the wire and packet 5 (pushed 17) waits. Packet 4
    // finishes at 19; at 20 the transmitter goes back to packet 2 and sends the error-ack
    // (20, 21; tail arrives 23: the bit clears); the replay is packets 2, 3, 4 (22..33) -
    // three packets, 12 flits - then packet 5 for the first time (34..37). Packets 3
    // and 4 arrived at 17 and 21 during the error and were dropped. Deliveries: 0 at 5,
    // 1 at 9, 2 at 27, 3 at 31, 4 at 35, 5 at 39; packet 6 is pushed at 35 (5 on the
    // wire) and sent 38..41, 7 at 42, 8 at 46, 9 at 50..53: delivered 43, 47, 51, 55.
    // The control packet sent at 20 still has the bit (arrives 23 < 21 + 2 + 3): ignored;
    // the one sent at 24 has it clear. Wire: 40 + 12 + 2 = 54 flits.
    let mut p = scenario();
    p.errors.corrupt_data_at = vec![9];
    let r = drive(&p, &packets(&[4; 10]), 0, 10_000, false, |_| false);
    let times: Vec<u64> = r.good().iter().map(|g| g.1).collect();
    assert_eq!(times, vec![5, 9, 27, 31, 35, 39, 43, 47, 51, 55]);
    assert_eq!(r.good().iter().map(|g| g.0).collect::<Vec<_>>(), (0..10).collect::<Vec<_>>());
    let s = r.link.stats();
    assert_eq!((s.crc_errors, s.replays, s.ack_timeouts, s.packets_replayed, s.flits_replayed, s.ack_flits), (1, 1, 0, 3, 12, 2));
    assert_eq!((s.rx_dropped, s.error_acks_received, s.wire_flits, s.replay_wire_cycles()), (2, 1, 54, 14));
    assert_eq!(r.push_at, vec![0, 1, 5, 9, 13, 17, 35, 39, 43, 47]);
    assert!(r.poisoned().is_empty());
}

#[test]
fn retry_poisoned_copy_is_reported_and_the_replay_delivers_the_good_one() {
    // As above, with the switch forwarding heads early. Packet 2's head arrives at 10 and
    // is forwarded; its CRC fails at 13: a poisoned copy at 13, the good one at 27.
    // Packets 3 and 4 arrive while the error is pending: not taken in, nothing to forward.
    // Packets 0 and 1 (good) and the replays were forwarded early too: not poisoned.
    let mut p = scenario();
    p.errors.corrupt_data_at = vec![9];
    let r = drive(&p, &packets(&[4; 10]), 0, 10_000, false, |_| true);
    assert_eq!(r.poisoned(), vec![(2, 13)]);
    assert_eq!(r.good().iter().map(|g| g.1).collect::<Vec<_>>(), vec![5, 9, 27, 31, 35, 39, 43, 47, 51, 55]);
    assert_eq!(r.link.stats().poisoned, 1);
    let first_good_2 = r.log.iter().position(|d| d.id == 2 && !d.poisoned).unwrap();
    let poisoned_2 = r.log.iter().position(|d| d.id == 2 && d.poisoned).unwrap();
    assert!(poisoned_2 < first_good_2);
}

#[test]
fn retry_lost_error_ack_is_resent_after_a_round_trip() {
    // As the single error, and the error-ack's first flit (sent at 20) is hit too: the
    // receiver stays in error. The transmitter ignores "error found" until
    // 21 + 2 + 3 = 26; the control packet sent at 24 still has it and arrives at 27: a
    // second error-ack. Packet 3 (replayed from 26) is finished at 29; go back to 2;
    // error-ack 30, 31 (arrives 33: the bit clears); replay 2 (32..35), 3, 4, then 5 for
    // the first time (44..47). First pass: 2 and 3 replayed and dropped (tails at 27,
    // 31). Deliveries 2..5 at 37, 41, 45, 49; 6 pushed at 45, sent 48: 53; then 57, 61, 65.
    // Replayed packets: 2 + 3 = 5 (20 flits); error-acks 2 (4 flits); dropped: 3, 4
    // of the first pass, then 2, 3 of the replay.
    let mut p = scenario();
    p.errors.corrupt_data_at = vec![9, 20];
    let r = drive(&p, &packets(&[4; 10]), 0, 10_000, false, |_| false);
    assert_eq!(r.good().iter().map(|g| g.1).collect::<Vec<_>>(), vec![5, 9, 37, 41, 45, 49, 53, 57, 61, 65]);
    let s = r.link.stats();
    assert_eq!((s.replays, s.ack_timeouts, s.packets_replayed, s.flits_replayed, s.ack_flits), (2, 1, 5, 20, 4));
    assert_eq!((s.crc_errors, s.error_acks_corrupted, s.error_acks_received, s.rx_dropped), (1, 1, 1, 4));
    assert_eq!(s.wire_flits, 40 + 20 + 4);
}

#[test]
fn retry_corrupted_control_packets_are_ignored() {
    // Window 3, five packets of 4 flits. Error-free: packet 2 (pushed 5, sent 8..11)
    // fills the window; the control packet sent at 8 (last good 0) arrives at 11 and
    // frees a slot, so packet 3 is pushed at 12 (delivered 17), packet 4 at 16 after
    // the release at 15 (delivered 21).
    let r = drive(&params(2, 3, 4, 3), &packets(&[4; 5]), 0, 10_000, false, |_| false);
    assert_eq!(r.push_at, vec![0, 1, 5, 12, 16]);
    assert_eq!(r.good().iter().map(|g| g.1).collect::<Vec<_>>(), vec![5, 9, 13, 17, 21]);
    // The control packets sent at 8 and 12 are corrupted: nothing is released until the
    // one sent at 16 (last good 2; packet 2 was accepted at 13) arrives at 19 and
    // releases 0, 1, 2 at once. Packet 3 is pushed at 20 (delivered 25), packet 4 at 21
    // while 3 is on the wire, sent 24..27 (delivered 29).
    let mut p = params(2, 3, 4, 3);
    p.errors.corrupt_ctrl_at = vec![8, 12];
    let r = drive(&p, &packets(&[4; 5]), 0, 10_000, false, |_| false);
    assert_eq!(r.push_at, vec![0, 1, 5, 20, 21]);
    assert_eq!(r.good().iter().map(|g| g.1).collect::<Vec<_>>(), vec![5, 9, 13, 25, 29]);
    let s = r.link.stats();
    assert_eq!((s.ctrl_lost, s.replays, s.crc_errors), (2, 0, 0));
}

#[test]
fn retry_permanent_failure_strands_every_unacknowledged_packet() {
    // The scenario without errors, failing at 14. Packet 0 was acknowledged at 11.
    // Packet 1 (accepted 9) and 2 (accepted 13) got across, but their acknowledgements
    // (arriving 15 and 19) are lost: stranded, delivered. Packet 3 (flits sent 12, 13,
    // head due at 14) and packet 4 (pushed 13) never got across: stranded, lost.
    let mut p = scenario();
    p.errors.fail_at = Some(14);
    let r = drive(&p, &packets(&[4; 10]), 0, 10_000, false, |_| false);
    assert_eq!(r.good(), vec![(0, 5), (1, 9), (2, 13)]);
    let st: Vec<(u32, bool)> = r.stranded.iter().map(|s| (s.packet.id, s.delivered)).collect();
    assert_eq!(st, vec![(1, true), (2, true), (3, false), (4, false)]);
    assert_eq!((r.link.stats().stranded_unconfirmed, r.link.stats().stranded_lost), (2, 2));
    let mut link = r.link;
    assert!(link.is_failed() && !link.tx_can_accept());
    assert_eq!(link.tx_push(PacketRef { id: 99, flits: 1 }), Err(PushError::Failed));
    // Failing at 15 instead: packet 3's head arrived at 14 and was forwarded early; the
    // rest never comes, so the forwarded copy is poisoned.
    p.errors.fail_at = Some(15);
    let r = drive(&p, &packets(&[4; 10]), 0, 10_000, false, |id| id == 3);
    assert_eq!(r.poisoned(), vec![(3, 15)]);
    assert_eq!(
        r.stranded.iter().map(|s| (s.packet.id, s.delivered)).collect::<Vec<_>>(),
        vec![(1, true), (2, true), (3, false), (4, false)]
    );
}

#[test]
fn retry_sync_loss_fails_every_retry_until_it_ends() {
    // Section 6.3: the data lanes lose sync for cycles [100, 600). Everything sent then
    // fails; the receiver keeps signalling "error found", the transmitter keeps sending
    // error-acks that are lost (one per round trip), and after the interval the next
    // error-ack and replay go through: every packet arrives, in order, none during the
    // interval (a packet's tail sent before 100 arrives by 102).
    let mut p = scenario();
    p.errors.sync_loss = vec![SyncLoss { start: 100, duration: 500, lanes: Lanes::Data }];
    let r = drive(&p, &packets(&[4; 60]), 0, 100_000, false, |_| false);
    assert_eq!(r.good().iter().map(|g| g.0).collect::<Vec<_>>(), (0..60).collect::<Vec<_>>());
    assert!(r.good().iter().all(|g| g.1 <= 102 || g.1 > 600));
    let s = r.link.stats();
    // At most one error-ack per round trip, and they keep coming: 500 cycles / (at most
    // 4 + 2 + 3 + 4 + packet length) is well over 10.
    assert!(s.ack_timeouts >= 10, "{s:?}");
    assert!(s.flits_corrupted >= 100);
}

#[test]
fn retry_hopeless_link_neither_loses_nor_duplicates() {
    // Bit error rate 0.3: a 64-bit flit survives with probability 0.7^64 ~ 1e-10, so no
    // packet gets through. (Control packets are counted as 1 bit here so that 70% of them
    // get through and the transmitter hears of the errors.) The link keeps retrying.
    let mut p = scenario();
    p.errors.ber = 0.3;
    p.errors.ctrl_bits = 1;
    let r = drive(&p, &packets(&[4; 10]), 1, 20_000, false, |_| true);
    assert!(r.good().is_empty());
    let s = r.link.stats();
    assert!(s.replays > 100 && s.delivered == 0 && s.acked == 0);
    assert_eq!(r.link.tx_outstanding(), r.push_at.len());
}

#[test]
fn retry_same_seed_same_run() {
    let mut p = scenario();
    p.errors.ber = 2e-3;
    p.errors.ctrl_loss = 0.2;
    p.errors.burst = Some(BurstParams { mean_gap: 400.0, mean_len: 30.0, ber: 0.02 });
    let sizes: Vec<u16> = (0..200).map(|i| 1 + (i * 7 % 20) as u16).collect();
    let a = drive(&p, &packets(&sizes), 42, 1_000_000, false, |id| id % 3 == 0);
    let b = drive(&p, &packets(&sizes), 42, 1_000_000, false, |id| id % 3 == 0);
    let c = drive(&p, &packets(&sizes), 43, 1_000_000, false, |id| id % 3 == 0);
    assert_eq!(a.log, b.log);
    assert_eq!(a.link.stats(), b.link.stats());
    assert_eq!(a.end, b.end);
    assert_ne!(a.link.stats(), c.link.stats());
    assert_eq!(a.good().len(), 200);
}

#[test]
fn retry_idle_links_may_be_skipped() {
    // Skipping the link's idle cycles changes nothing: same deliveries, same counters
    // (sparse packets so that the link goes idle between them).
    let mut p = scenario();
    p.errors.ber = 1e-3;
    p.errors.ctrl_loss = 0.1;
    let sizes: Vec<u16> = (0..300).map(|i| 1 + (i * 5 % 20) as u16).collect();
    let pk = packets(&sizes);
    // Push only at multiples of 97, so the link idles in between.
    let run = |skip: bool| {
        let mut link = RetryLink::new(&p, 3, 5).unwrap();
        let (mut next, mut log) = (0, Vec::new());
        for now in 0..200_000u64 {
            if next < pk.len() && now % 97 == 0 && link.tx_can_accept() {
                link.tx_push(pk[next]).unwrap();
                next += 1;
            }
            if !(skip && link.is_quiescent()) {
                link.step(now);
            }
            while let Some(d) = link.rx_pop() {
                log.push(d);
            }
        }
        (log, *link.stats())
    };
    let (a, b) = (run(false), run(true));
    assert_eq!(a.0.len(), 300);
    assert_eq!(a, b);
}

#[test]
fn retry_bad_parameters_name_the_field_and_the_fix() {
    let bad = |p: RetryParams, field: &str, fix: &str| {
        let e = RetryLink::new(&p, 0, 0).unwrap_err();
        assert_eq!(e.path(), Some(format!("retry.{field}").as_str()), "{e}");
        assert!(e.to_string().contains(fix), "{e}");
    };
    let d = RetryParams::default;
    bad(RetryParams { window: 0, ..d() }, "window", "1..=15");
    bad(RetryParams { window: 16, ..d() }, "window", "all acknowledged");
    bad(RetryParams { latency: 0, ..d() }, "latency", "1..=1000");
    bad(RetryParams { latency: 1001, ..d() }, "latency", "1..=1000");
    bad(RetryParams { ctrl_latency: 0, ..d() }, "ctrl_latency", "1..=2000");
    bad(RetryParams { ctrl_period: 0, ..d() }, "ctrl_period", "1..=1000");
    bad(RetryParams { ack_flits: 0, ..d() }, "ack_flits", "1..=64");
    let mut p = d();
    p.errors.ber = 1.0;
    bad(p, "errors.ber", "[0, 1)");
    let mut p = d();
    p.errors.ber = -0.5;
    bad(p, "errors.ber", "[0, 1)");
    let mut p = d();
    p.errors.flit_bits = 0;
    bad(p, "errors.flit_bits", "1..=65536");
    // Refused pushes are errors, not panics.
    let mut link = RetryLink::new(&params(1, 1, 1, 1), 0, 0).unwrap();
    assert_eq!(link.tx_push(PacketRef { id: 0, flits: 0 }), Err(PushError::Empty));
    assert_eq!(link.tx_push(PacketRef { id: 0, flits: 3 }), Ok(()));
    assert_eq!(link.tx_push(PacketRef { id: 1, flits: 3 }), Err(PushError::WindowFull));
}

#[test]
fn retry_params_parse_from_toml() {
    let p: RetryParams =
        toml::from_str("window = 8\nctrl_period = 20\n[errors]\nber = 1e-9\nfail_at = 5000\nburst = { mean_gap = 1e6, mean_len = 40, ber = 0.01 }\nsync_loss = [{ start = 100, duration = 50 }]\n")
            .unwrap();
    assert_eq!((p.window, p.ctrl_period, p.latency), (8, 20, 1));
    assert_eq!(p.errors.sync_loss[0].lanes, Lanes::Data);
    assert_eq!(p.errors.fail_at, Some(5000));
    assert!(p.validate("link.retry").is_ok());
    assert!(toml::from_str::<RetryParams>("windw = 3").is_err());
}
