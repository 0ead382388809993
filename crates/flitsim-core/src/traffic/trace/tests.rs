//! The trace's format, its validation, and the replay rules worked by hand, without a
//! network: creation times from `at`, `delay`, program order and `after`; completion
//! when the last packet of a message arrives, in any order.

use super::*;

fn msg(src: u32, dst: u32, flits: u64) -> MessageSpec {
    MessageSpec { src, dst, flits, at: 0, after: Vec::new(), delay: 0 }
}

fn build(messages: Vec<MessageSpec>, nodes: u32, packet_flits: u32) -> Result<Trace> {
    Trace::build(&TraceConfig { messages, packet_flits, ..TraceConfig::default() }, nodes, "traffic.trace")
}

fn err(messages: Vec<MessageSpec>, nodes: u32) -> (String, String) {
    let e = build(messages, nodes, 16).expect_err("accepted");
    (e.path().unwrap_or("").to_string(), e.to_string())
}

#[test]
fn the_file_format_reads_fields_options_and_comments() {
    let text = "# a ping-pong\n\n0 5 64\n5 0 64 after=0 delay=100   # the answer\n  3 4 1 at=7 after=0,1\n";
    let (specs, lines) = file::parse(text, "traffic.trace.file (t.txt").unwrap();
    assert_eq!(lines, vec![3, 4, 5]);
    assert_eq!(specs[0], msg(0, 5, 64));
    assert_eq!(specs[1], MessageSpec { after: vec![0], delay: 100, ..msg(5, 0, 64) });
    assert_eq!(specs[2], MessageSpec { at: 7, after: vec![0, 1], ..msg(3, 4, 1) });
}

#[test]
fn file_errors_name_the_line_and_the_fix() {
    let cases = [
        ("0 1\n", "line 1)", "give `src dst flits`"),
        ("0 1 2\n0 x 2\n", "line 2)", "`x` is not a destination node"),
        ("0 1 2 at=3 at=4\n", "line 1)", "`at` is given twice"),
        ("0 1 2 when=3\n", "line 1)", "unknown option `when`"),
        ("0 1 2 delay\n", "line 1)", "`delay` is not an option"),
        ("0 1 2 after=1,,2\n", "line 1)", "`` is not a message number"),
        ("0 1 -2\n", "line 1)", "`-2` is not a size in flits"),
        ("0 99999999999 2\n", "line 1)", "destination node 99999999999 is too large"),
    ];
    for (text, path, msg) in cases {
        let e = file::parse(text, "traffic.trace.file (t.txt").expect_err(text);
        assert!(e.path().unwrap().ends_with(path), "{text:?}: {e}");
        assert!(e.to_string().contains(msg), "{text:?}: {e}");
    }
}

#[test]
fn validation_names_the_message_and_the_fix() {
    let cases: Vec<(Vec<MessageSpec>, &str, &str)> = vec![
        (vec![msg(0, 4, 1)], "traffic.trace.messages[0]", "dst 4 is outside the network: endpoints are 0..=3"),
        (vec![msg(0, 1, 0)], "traffic.trace.messages[0]", "0 flits"),
        (vec![msg(0, 1, 1), MessageSpec { after: vec![2], ..msg(1, 0, 1) }], "traffic.trace.messages[1]", "there is no message 2"),
        (
            vec![msg(0, 2, 1), MessageSpec { after: vec![0], ..msg(1, 0, 1) }],
            "traffic.trace.messages[1]",
            "goes to node 2, not to this message's source 1",
        ),
        (vec![msg(0, 1, 1), MessageSpec { after: vec![0, 0], ..msg(1, 0, 1) }], "traffic.trace.messages[1]", "lists message 0 twice"),
        // 0 waits for 1, which waits for 0.
        (
            vec![MessageSpec { after: vec![1], ..msg(0, 1, 1) }, MessageSpec { after: vec![0], ..msg(1, 0, 1) }],
            "traffic.trace.messages[",
            "break the cycle",
        ),
        // A cycle only through program order: message 0 (node 0's first) waits for
        // message 3 (node 1's second), which follows message 2, which waits for message
        // 1 (node 0's second), which follows message 0.
        (
            vec![
                MessageSpec { after: vec![3], ..msg(0, 1, 1) },
                msg(0, 1, 1),
                MessageSpec { after: vec![1], ..msg(1, 0, 1) },
                msg(1, 0, 1),
            ],
            "traffic.trace.messages[",
            "break the cycle",
        ),
        (vec![], "traffic.trace", "a trace needs messages"),
    ];
    for (messages, path, want) in cases {
        let (p, e) = err(messages.clone(), 4);
        assert!(p.starts_with(path), "{messages:?}: {p}: {e}");
        assert!(e.contains(want), "{messages:?}: {e}");
    }
    let e = build(vec![msg(0, 1, 1)], 4, 0).expect_err("packet_flits 0");
    assert_eq!(e.path(), Some("traffic.trace.packet_flits"));
    // A wait on a later message is fine while it forms no cycle.
    assert!(build(vec![MessageSpec { after: vec![1], ..msg(0, 1, 1) }, msg(1, 0, 1)], 4, 16).is_ok());
}

/// Source 0 sends message 0 (40 flits: packets of 16, 16 and 8 with packet_flits 16),
/// then message 2 at cycle >= 50; source 1 answers message 0 with message 1 (1 flit)
/// 10 cycles after it completed.
#[test]
fn creation_follows_at_delay_program_order_and_after() {
    let t = build(
        vec![msg(0, 1, 40), MessageSpec { after: vec![0], delay: 10, ..msg(1, 0, 1) }, MessageSpec { at: 50, ..msg(0, 1, 3) }],
        2,
        16,
    )
    .unwrap();
    let (mut c0, mut c1) = (t.cursor(0), t.cursor(1));
    let mut tot = Totals::default();
    let first = t.next(0, 0, &mut c0).unwrap();
    assert_eq!(first, Creation { dst: 1, packets: 3, full_flits: 16, last_flits: 8, first_seq: 0, id: 0 });
    assert_eq!((0..3).map(|k| first.flits_of(k)).collect::<Vec<_>>(), vec![16, 16, 8]);
    // Message 2 waits for cycle 50; message 1 for message 0.
    assert_eq!(t.next(1, 0, &mut c0), None);
    assert_eq!(t.next(49, 0, &mut c0), None);
    assert_eq!(t.next(60, 1, &mut c1), None);
    // Message 0's packets arrive out of order (seqs 2, 0, 1); it completes with the last.
    t.delivered(1, 0, 2, 0, 20, &mut c1, &mut tot);
    t.delivered(1, 0, 0, 0, 25, &mut c1, &mut tot);
    assert_eq!((tot.completed, t.next(26, 1, &mut c1)), (0, None));
    t.delivered(1, 0, 1, 0, 30, &mut c1, &mut tot);
    assert_eq!((tot.completed, tot.last_done), (1, 30));
    // Due 10 cycles after the completion: not at 39, at 40.
    assert_eq!(t.next(39, 1, &mut c1), None);
    assert_eq!(t.next(40, 1, &mut c1), Some(Creation { dst: 0, packets: 1, full_flits: 16, last_flits: 1, first_seq: 0, id: 1 }));
    assert!(t.exhausted(1, &c1));
    assert!(!t.exhausted(0, &c0));
    let third = t.next(50, 0, &mut c0).unwrap();
    // Its packet numbers follow message 0's three.
    assert_eq!((third.packets, third.last_flits, third.first_seq), (1, 3, 3));
    assert!(t.exhausted(0, &c0));
    t.delivered(1, 0, 3, 50, 57, &mut c1, &mut tot);
    t.delivered(0, 1, 0, 40, 45, &mut c0, &mut tot);
    tot.created = 3;
    let r = t.report(&tot);
    assert_eq!((r.messages, r.flits, r.completed, r.incomplete, r.not_created), (3, 44, 3, 0, 0));
    // Latencies 30 - 0, 45 - 40, 57 - 50.
    assert_eq!((r.latency_min, r.latency_max, r.completion), (5, 30, 57));
    assert!((r.latency_mean - 14.0).abs() < 1e-12);
}

/// A delay counts from the previous creation when that is later than the waits.
#[test]
fn delay_counts_from_the_later_of_the_previous_creation_and_the_waits() {
    let t =
        build(vec![msg(1, 0, 1), MessageSpec { at: 5, ..msg(0, 1, 1) }, MessageSpec { after: vec![0], delay: 4, ..msg(0, 1, 1) }], 2, 16)
            .unwrap();
    let (mut c0, mut c1) = (t.cursor(0), t.cursor(1));
    let mut tot = Totals::default();
    assert!(t.next(0, 1, &mut c1).is_some());
    t.delivered(0, 1, 0, 0, 2, &mut c0, &mut tot);
    // Message 1 at 5 (its `at`); message 2 then 4 cycles later (not 2 + 4 = 6).
    assert_eq!(t.next(4, 0, &mut c0), None);
    assert!(t.next(5, 0, &mut c0).is_some());
    assert_eq!(t.next(8, 0, &mut c0), None);
    assert!(t.next(9, 0, &mut c0).is_some());
}

#[test]
fn the_largest_packet_is_a_full_packet_or_the_largest_message_below_one() {
    // Messages of 5 and 3 flits in packets of up to 9: 5. A 20-flit message is cut into
    // 9 + 9 + 2: 9.
    assert_eq!(build(vec![msg(0, 1, 5), msg(1, 0, 3)], 2, 9).unwrap().largest_packet(), 5);
    assert_eq!(build(vec![msg(0, 1, 20), msg(1, 0, 3)], 2, 9).unwrap().largest_packet(), 9);
}
