use super::collective::{schedule, Algorithm, Schedule, ScheduleError};
use super::program::Collective as C;
use Algorithm as A;

fn log2c(p: u32) -> u64 {
    (32 - (p - 1).leading_zeros()) as u64
}

/// Every message sent is received by its peer in the same round, and a member never
/// sends to itself.
fn consistent(s: &Schedule) {
    for (i, rounds) in s.rounds.iter().enumerate() {
        for (r, round) in rounds.iter().enumerate() {
            for &(q, b) in &round.sends {
                assert_ne!(q as usize, i, "member {i} sends to itself in round {r}");
                let back = &s.rounds[q as usize][r].recvs;
                assert!(back.contains(&(i as u32, b)), "{i} -> {q} ({b} B) in round {r} is not received");
            }
        }
    }
    let recvs: usize = s.rounds.iter().flatten().map(|r| r.recvs.len()).sum();
    assert_eq!(recvs as u64, s.messages());
}

fn run(kind: C, alg: A, p: u32, root: u32, bytes: u64) -> Schedule {
    let s = schedule(kind, alg, p, root, bytes).unwrap();
    consistent(&s);
    s
}

#[test]
fn barrier_dissemination_is_p_log_p_empty_messages() {
    for p in [2, 3, 5, 8, 12] {
        let s = run(C::Barrier, A::Dissemination, p, 0, 999);
        assert_eq!(s.messages(), p as u64 * log2c(p), "p = {p}");
        assert_eq!(s.bytes(), 0);
    }
}

#[test]
fn binomial_trees_send_p_minus_1_messages() {
    for p in [2, 3, 7, 8, 13] {
        for root in [0, p - 1] {
            let b = run(C::Bcast, A::Binomial, p, root, 100);
            assert_eq!((b.messages(), b.bytes()), ((p - 1) as u64, (p - 1) as u64 * 100));
            // The root receives nothing and everyone else exactly once.
            for i in 0..p {
                let got: usize = b.rounds[i as usize].iter().map(|r| r.recvs.len()).sum();
                assert_eq!(got, (i != root) as usize, "p {p} root {root} member {i}");
            }
            let r = run(C::Reduce, A::Binomial, p, root, 100);
            assert_eq!((r.messages(), r.bytes()), ((p - 1) as u64, (p - 1) as u64 * 100));
            assert_eq!(r.bytes_from(root), 0);
        }
    }
}

#[test]
fn binomial_scatter_and_gather_move_the_subtree_blocks() {
    // p = 2^k: each of the k levels moves p/2 blocks, k p / 2 blocks in all; p = 8: the root
    // sends 4 blocks to 4, 2 to 2 and 1 to 1.
    let s = run(C::Scatter, A::Binomial, 8, 0, 10);
    assert_eq!((s.messages(), s.bytes()), (7, 3 * 8 / 2 * 10));
    assert_eq!(s.rounds[0][0].sends, vec![(4, 40)]);
    assert_eq!(s.rounds[0][1].sends, vec![(2, 20)]);
    assert_eq!(s.rounds[0][2].sends, vec![(1, 10)]);
    // p = 6: root sends 2 to 4 (members 4, 5), 2 to 2 (2, 3), 1 to 1; 2 -> 3, 4 -> 5: 7 blocks.
    let g = run(C::Gather, A::Binomial, 6, 0, 10);
    assert_eq!((g.messages(), g.bytes()), (5, 70));
    let l = run(C::Gather, A::Linear, 6, 2, 10);
    assert_eq!((l.messages(), l.bytes(), l.bytes_from(2)), (5, 50, 0));
}

#[test]
fn allreduce_algorithms_match_their_closed_forms() {
    let b = 1000u64;
    for p in [2u32, 4, 8, 16] {
        let k = p.trailing_zeros() as u64;
        let rd = run(C::Allreduce, A::RecursiveDoubling, p, 0, b);
        assert_eq!((rd.messages(), rd.bytes()), (p as u64 * k, p as u64 * k * b));
        // Rabenseifner: 2 p log p messages, 2 (p - 1) b bytes.
        let rs = run(C::Allreduce, A::Rabenseifner, p, 0, b);
        assert_eq!((rs.messages(), rs.bytes()), (2 * p as u64 * k, 2 * (p as u64 - 1) * b), "p = {p}");
    }
    for p in [3u32, 5, 8, 12] {
        // Ring: 2 p (p - 1) messages of a chunk, 2 (p - 1) b bytes.
        let ring = run(C::Allreduce, A::Ring, p, 0, b);
        assert_eq!((ring.messages(), ring.bytes()), (2 * (p * (p - 1)) as u64, 2 * (p as u64 - 1) * b), "p = {p}");
    }
    // p = 6 by recursive doubling: ranks 4, 5 fold into 0, 1 and get the result back,
    // 2 + 4 log 4 + 2 messages of the whole vector.
    let f = run(C::Allreduce, A::RecursiveDoubling, 6, 0, b);
    assert_eq!((f.messages(), f.bytes()), (12, 12 * b));
    assert_eq!(f.rounds[4][0].sends, vec![(0, b)]);
    assert_eq!(f.rounds[4].last().unwrap().recvs, vec![(0, b)]);
}

#[test]
fn allgather_algorithms_each_move_p_times_p_minus_1_blocks() {
    let b = 64u64;
    for p in [2u32, 3, 5, 8, 16] {
        let total = (p * (p - 1)) as u64 * b;
        let ring = run(C::Allgather, A::Ring, p, 0, b);
        assert_eq!((ring.messages(), ring.bytes()), ((p * (p - 1)) as u64, total));
        let bruck = run(C::Allgather, A::Bruck, p, 0, b);
        assert_eq!((bruck.messages(), bruck.bytes()), (p as u64 * log2c(p), total), "p = {p}");
        if p.is_power_of_two() {
            let rd = run(C::Allgather, A::RecursiveDoubling, p, 0, b);
            assert_eq!((rd.messages(), rd.bytes()), (p as u64 * log2c(p), total));
        } else {
            assert_eq!(schedule(C::Allgather, A::RecursiveDoubling, p, 0, b), Err(ScheduleError::PowerOfTwo));
        }
    }
}

#[test]
fn alltoall_pairwise_and_bruck() {
    let b = 8u64;
    for p in [2u32, 3, 6, 8] {
        let pw = run(C::Alltoall, A::Pairwise, p, 0, b);
        assert_eq!((pw.messages(), pw.bytes()), ((p * (p - 1)) as u64, (p * (p - 1)) as u64 * b));
        // Scattered: the same messages in one round.
        let sc = run(C::Alltoall, A::Scattered, p, 0, b);
        assert_eq!((sc.messages(), sc.bytes(), sc.rounds[0].len()), ((p * (p - 1)) as u64, (p * (p - 1)) as u64 * b, 1));
        // Bruck: ceil(log2 p) rounds; each member sends the blocks whose index has the
        // round's bit set: sum over j < p of popcount(j) blocks.
        let br = run(C::Alltoall, A::Bruck, p, 0, b);
        let pop: u64 = (1..p).map(|j| j.count_ones() as u64).sum();
        assert_eq!((br.messages(), br.bytes()), (p as u64 * log2c(p), p as u64 * pop * b), "p = {p}");
    }
    // p = 4, pairwise: member 1 exchanges with 1 XOR k, 0, 3, 2 in steps 1, 2, 3; on
    // p = 6 it sends to 1 + k and receives from 1 - k.
    let pw = run(C::Alltoall, A::Pairwise, 4, 0, b);
    let order: Vec<(u32, u32)> = pw.rounds[1].iter().map(|r| (r.sends[0].0, r.recvs[0].0)).collect();
    assert_eq!(order, vec![(0, 0), (3, 3), (2, 2)]);
    let pw = run(C::Alltoall, A::Pairwise, 6, 0, b);
    let order: Vec<(u32, u32)> = pw.rounds[1].iter().map(|r| (r.sends[0].0, r.recvs[0].0)).collect();
    assert_eq!(order, vec![(2, 0), (3, 5), (4, 4), (5, 3), (0, 2)]);
}

#[test]
fn alltoall_auto_follows_mpichs_block_thresholds() {
    // MPICH: Bruck up to 256 B per block on 8 ranks or more, scattered up to 32 KiB,
    // pairwise above.
    let auto = |p, b| A::auto(C::Alltoall, p, b);
    assert_eq!(
        [auto(8, 256), auto(8, 257), auto(4, 64), auto(8, 32768), auto(8, 32769), auto(2048, 131072)],
        [A::Bruck, A::Scattered, A::Scattered, A::Scattered, A::Pairwise, A::Pairwise]
    );
}

#[test]
fn a_pairwise_alltoall_keeps_one_step_per_run_of_steps() {
    for (p, keep) in [(2048u32, 8u32), (2048, 1), (100, 7), (9, 8), (5, 4), (5, 9)] {
        let k = super::collective::kept_steps(p, keep, 0);
        let n = p - 1;
        if keep >= n {
            assert_eq!(k, (1..p).collect::<Vec<_>>());
            continue;
        }
        // Step j of the kept lies in the j-th of `keep` equal runs of 1..p-1.
        assert_eq!(k.len(), keep as usize);
        for (j, &s) in k.iter().enumerate() {
            let (lo, hi) = (1 + j as u32 * n / keep, 1 + (j as u32 + 1) * n / keep);
            assert!((lo..hi).contains(&s), "p {p}, keep {keep}: step {s} outside {lo}..{hi}");
        }
        // Kept: p messages of the block per kept step, in the steps' order.
        if p <= 100 {
            let s = super::collective::pairwise(p, 8, &k);
            consistent(&s);
            assert_eq!((s.messages(), s.bytes()), (p as u64 * keep as u64, p as u64 * keep as u64 * 8));
            let to: Vec<u32> = s.rounds[0].iter().map(|r| r.sends[0].0).collect();
            assert_eq!(to, k, "member 0 sends to 0 + k (p = {p} is not a power of two)");
        }
    }
    // The same steps in every run; another call samples others.
    use super::collective::kept_steps;
    assert_eq!(kept_steps(2048, 8, 3), kept_steps(2048, 8, 3));
    assert_ne!(kept_steps(2048, 8, 3), kept_steps(2048, 8, 4));
}

#[test]
fn reduce_scatter_and_large_bcast() {
    let b = 50u64;
    let ring = run(C::ReduceScatter, A::Ring, 5, 0, b);
    assert_eq!((ring.messages(), ring.bytes()), (20, 20 * b));
    // Recursive halving, p = 8: each member sends (p - 1) blocks over log p rounds.
    let rh = run(C::ReduceScatter, A::RecursiveHalving, 8, 0, b);
    assert_eq!((rh.messages(), rh.bytes_from(3)), (24, 7 * b));
    // Scatter-allgather bcast of 800 B on 8: 7 scatter messages (12 chunks... of 100 B:
    // 4 + 2 + 1 + 2 + 1 + 1 + 1 = 12 chunks) then 8 * 7 ring messages of a chunk.
    let sa = run(C::Bcast, A::ScatterAllgather, 8, 3, 800);
    assert_eq!((sa.messages(), sa.bytes()), (7 + 56, 12 * 100 + 56 * 100));
}

#[test]
fn rounds_carry_the_dependencies() {
    // Binomial bcast from root 2 on 4: 2 -> 0 (relative 0 -> 2) in round 0, then 2 -> 3
    // and 0 -> 1 in round 1; member 0 receives before it sends.
    let s = run(C::Bcast, A::Binomial, 4, 2, 1);
    assert_eq!(s.rounds[2][0].sends, vec![(0, 1)]);
    assert_eq!(s.rounds[0][0].recvs, vec![(2, 1)]);
    assert_eq!(s.rounds[0][1].sends, vec![(1, 1)]);
    assert_eq!(s.rounds[2][1].sends, vec![(3, 1)]);
}

#[test]
fn algorithms_refuse_other_kinds_and_one_rank_is_empty() {
    assert_eq!(schedule(C::Alltoall, A::Ring, 4, 0, 1), Err(ScheduleError::Kind));
    assert_eq!(run(C::Allreduce, A::Ring, 1, 0, 10).messages(), 0);
    for kind in C::ALL {
        for p in [1u32, 2, 7, 16] {
            let alg = A::auto(kind, p, 4096);
            assert!(A::for_kind(kind).contains(&alg));
            run(kind, alg, p, p / 2, 4096);
        }
    }
}

mod lowering {
    use super::super::lower::{lower, LowerContext, Lowered};
    use super::super::placement::Placement;
    use super::super::text::parse;
    use crate::traffic::NodeSpace;

    /// Lower ranks text with 16-byte flits, 2 ns cycles, rank r on endpoint r.
    fn low(text: &str) -> Result<Lowered, String> {
        let prog = parse(text, "t (x").map_err(|e| e.to_string())?;
        let nodes: Vec<u32> = (0..prog.ranks()).collect();
        let cx = LowerContext {
            nodes: &nodes,
            flit_bytes: 16,
            cycle_ns: Some(2.0),
            compute_scale: 1.0,
            algorithms: [None; 9],
            alltoall_steps: None,
            key: "t",
        };
        lower(&prog, &cx).map_err(|e| e.to_string())
    }

    fn err(text: &str) -> String {
        match low(text) {
            Ok(_) => panic!("accepted:\n{text}"),
            Err(e) => e,
        }
    }

    #[test]
    fn sends_wait_for_the_receives_before_them_and_carry_the_computation() {
        // Rank 1 receives 0's message, computes 100 ns (50 cycles) and answers; rank 0's
        // second message follows its first in program order and waits for nothing.
        let l = low(
            "ranks 2\n0 send 1 33\n0 send 1 16 tag=5\n1 recv 0 33\n1 compute 60\n1 compute 40\n1 send 0 8\n0 recv 1 8\n1 recv 0 16 tag=5\n",
        )
        .unwrap();
        let got: Vec<(u32, u32, u64, Vec<u32>, u64)> = l.specs.iter().map(|s| (s.src, s.dst, s.flits, s.after.clone(), s.delay)).collect();
        assert_eq!(got, vec![(0, 1, 3, vec![], 0), (0, 1, 1, vec![], 0), (1, 0, 1, vec![0], 50)]);
        assert_eq!(l.class, vec![0, 0, 0]);
    }

    #[test]
    fn non_blocking_receives_are_waited_for_at_their_wait() {
        // Rank 0 posts a receive, sends, then waits: the send does not wait for the
        // receive; the send after the wait does. Isend requests complete at once.
        let l = low("ranks 2\n0 irecv 1 16 req=1\n0 isend 1 16 req=2\n0 wait 1,2\n0 send 1 16 tag=1\n1 isend 0 16 req=9\n1 recv 0 16\n1 recv 0 16 tag=1\n1 wait 9\n")
            .unwrap();
        let after: Vec<Vec<u32>> = l.specs.iter().map(|s| s.after.clone()).collect();
        // Messages: 0 (0->1), 1 (0->1 tag 1), 2 (1->0).
        assert_eq!(after, vec![vec![], vec![2], vec![]]);
    }

    #[test]
    fn messages_match_in_order_per_peer_tag_and_communicator() {
        // Rank 1 receives tag 2 first although tag 1 was sent first (different tags do
        // not match each other); on communicator 1 (world ranks 2, 0) rank 0 is peer 1.
        let l = low("ranks 3\ncomm 1 2,0\n0 send 1 16 tag=1\n0 send 1 16 tag=2\n1 recv 0 16 tag=2\n1 recv 0 16 tag=1\n1 send 2 16\n0 send 0 16 comm=1\n2 recv 1 16 comm=1\n2 recv 1 16\n2 send 0 16\n0 recv 2 16\n")
            .unwrap();
        let got: Vec<(u32, u32, Vec<u32>)> = l.specs.iter().map(|s| (s.src, s.dst, s.after.clone())).collect();
        // 0: m0 0->1 tag1, m1 0->1 tag2, m2 0->2 (comm 1); 1: m3 1->2 after m1, m0;
        // 2: m4 2->0 after m2, m3.
        assert_eq!(got, vec![(0, 1, vec![]), (0, 1, vec![]), (0, 2, vec![]), (1, 2, vec![1, 0]), (2, 0, vec![2, 3])]);
    }

    #[test]
    fn collectives_become_their_algorithms_messages() {
        let l = low("ranks 4\n* alltoall 40000\n").unwrap();
        // 40,000 B per block on 4 ranks: auto = pairwise (above 32 KiB), 12 messages of
        // 2,500 flits; step 2's send waits for step 1's receive.
        assert_eq!((l.specs.len(), l.specs.iter().map(|s| s.flits).sum::<u64>()), (12, 12 * 2500));
        assert!(l.class.iter().all(|&c| c == 8));
        assert_eq!(l.algorithms.len(), 1);
        assert_eq!((l.algorithms[0].1.name(), l.algorithms[0].2), ("pairwise", 1));
        // Rank 0's messages: to 0 XOR k = 1, 2, 3; the second waits for the one from 1
        // (step 1 exchanges with 1).
        let from1_step1 = l.specs.iter().position(|s| s.src == 1 && s.dst == 0).unwrap() as u32;
        assert_eq!((l.specs[0].dst, l.specs[1].dst, &l.specs[1].after), (1, 2, &vec![from1_step1]));
        // 32 B: scattered, every send at once (none waits), to 0 + 1, 2, 3.
        let l = low("ranks 4\n* alltoall 32\n").unwrap();
        assert_eq!((l.algorithms[0].1.name(), l.specs.len()), ("scattered", 12));
        assert!(l.specs.iter().all(|s| s.after.is_empty()));
        assert_eq!((l.specs[0].dst, l.specs[1].dst, l.specs[2].dst), (1, 2, 3));
    }

    #[test]
    fn self_messages_take_no_time() {
        let l = low("ranks 2\n0 send 0 16\n0 recv 0 16\n0 send 1 16\n1 recv 0 16\n").unwrap();
        assert_eq!(l.specs.len(), 1);
        assert!(l.specs[0].after.is_empty());
    }

    #[test]
    fn bad_programs_are_refused_naming_the_rank_and_line() {
        for (text, want) in [
            ("ranks 2\n0 send 1 16\n", "t (rank 0, line 2)`: this message from rank 0 to rank 1 is never received"),
            ("ranks 2\n1 recv 0 16\n", "t (rank 1, line 2)`: this receive from rank 0 (tag 0, communicator 0) has no matching send"),
            ("ranks 2\n0 send 2 16\n", "peer 2 is outside communicator 0"),
            ("ranks 2\ncomm 1 1\n0 barrier comm=1\n", "rank 0 is not a member of communicator 1"),
            ("ranks 2\n0 barrier comm=3\n", "there is no communicator 3"),
            ("ranks 2\n0 barrier\n", "rank 0 makes 1 collective calls on communicator 0 and rank 1 makes 0"),
            (
                "ranks 2\n0 bcast 8 root=0\n1 bcast 8 root=1\n",
                "t (rank 1, line 3)`: collective call 0 on communicator 0 is bcast (root 1) here but bcast (root 0) at rank 0 (line 2)",
            ),
            ("ranks 2\n0 barrier\n1 allreduce 8\n", "is allreduce here but barrier at rank 0"),
            ("ranks 2\n0 irecv 1 16 req=1\n0 irecv 1 16 req=1\n1 send 0 16\n1 send 0 16\n", "request 1 is posted again"),
        ] {
            let e = err(text);
            assert!(e.contains(want), "{text}\ngave: {e}\nwant: {want}");
        }
        let prog =
            parse("ranks 6\n0 allgather 8\n1 allgather 8\n2 allgather 8\n3 allgather 8\n4 allgather 8\n5 allgather 8\n", "t (x").unwrap();
        let nodes: Vec<u32> = (0..6).collect();
        let mut algs = [None; 9];
        algs[5] = Some(super::A::RecursiveDoubling);
        let cx = LowerContext {
            nodes: &nodes,
            flit_bytes: 8,
            cycle_ns: None,
            compute_scale: 1.0,
            algorithms: algs,
            alltoall_steps: None,
            key: "t",
        };
        let e = lower(&prog, &cx).unwrap_err().to_string();
        assert!(e.contains("allgather by recursive_doubling needs a power-of-two number of ranks, and communicator 0 has 6"), "{e}");
        let prog = parse("ranks 2\n0 compute 5\n0 send 1 8\n1 recv 0 8\n", "t (x").unwrap();
        let cx = LowerContext {
            nodes: &nodes[..2],
            flit_bytes: 8,
            cycle_ns: None,
            compute_scale: 1.0,
            algorithms: [None; 9],
            alltoall_steps: None,
            key: "t",
        };
        assert!(lower(&prog, &cx).unwrap_err().to_string().contains("set channel.link_gbps"));
        let cx = LowerContext { compute_scale: 0.0, ..cx };
        assert_eq!(lower(&prog, &cx).unwrap().specs[0].delay, 0);
    }

    #[test]
    fn the_text_format_refuses_bad_lines() {
        for (text, want) in [
            ("0 send 1 8\n", "line 1)`: the first line must be `ranks N`"),
            ("ranks 2\nranks 2\n", "line 2)`: `ranks N` comes once"),
            ("ranks 2\n2 send 0 8\n", "rank 2 is outside the program: ranks are 0..=1"),
            ("ranks 2\n0 isend 1 8\n", "`isend` is non-blocking: give its request, req=ID"),
            ("ranks 2\n0 send 1 8 req=3\n", "a blocking `send` has no request"),
            ("ranks 2\n0 send 1 8 colour=3\n", "unknown option `colour`: here the options are tag, comm, req"),
            ("ranks 2\n0 allreduce 8 root=1\n", "`allreduce` has no root"),
            ("ranks 2\n0 scan 8\n", "unknown call `scan`"),
            ("ranks 2\ncomm 2 0,1\n", "the next is 1, not 2"),
            ("ranks 2\ncomm 1 0,0\n", "rank 0 is listed twice in communicator 1"),
            ("ranks 2\n0 send x 8\n", "`x` is not a peer rank"),
            ("# nothing\n", "the trace is empty"),
        ] {
            let e = parse(text, "t (f").unwrap_err().to_string();
            assert!(e.contains(want), "{text}\ngave: {e}\nwant: {want}");
        }
    }

    #[test]
    fn placements_by_hand() {
        let space = NodeSpace::cube(&[4], 2); // 4 routers, 2 endpoints each
        let place = |p: Placement, ranks| p.place(ranks, &space, 7, "t").unwrap();
        assert_eq!(place(Placement::Linear, 3), vec![0, 1, 2]);
        assert_eq!(place(Placement::RoundRobin, 8), vec![0, 2, 4, 6, 1, 3, 5, 7]);
        assert_eq!(place(Placement::Spread, 4), vec![0, 2, 4, 6]);
        assert_eq!(place(Placement::Spread, 3), vec![0, 2, 5]);
        let r = place(Placement::Random, 8);
        let mut sorted = r.clone();
        sorted.sort();
        assert_eq!(sorted, (0..8).collect::<Vec<_>>());
        assert_eq!(r, place(Placement::Random, 8), "same seed, same placement");
        assert_ne!(r, Placement::Random.place(8, &space, 8, "t").unwrap(), "another seed, another placement");
        let e = Placement::Linear.place(9, &space, 7, "t").unwrap_err().to_string();
        assert!(e.contains("the program has 9 ranks and the network 8 endpoints"), "{e}");
        let dir = std::env::temp_dir().join(format!("flitsim-placement-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("map");
        for (text, want) in [
            ("5\n# c\n3\n", Ok(vec![5, 3])),
            ("5\n5\n", Err("line 2)`: endpoint 5 is given twice")),
            ("8\n1\n", Err("endpoint 8 is outside the network")),
            ("1\n", Err("places 1 ranks and the program has 2")),
        ] {
            std::fs::write(&f, text).unwrap();
            let got = Placement::File(f.to_str().unwrap().into()).place(2, &space, 7, "t");
            match want {
                Ok(v) => assert_eq!(got.unwrap(), v),
                Err(w) => assert!(got.as_ref().unwrap_err().to_string().contains(w), "{got:?}"),
            }
        }
        std::fs::remove_dir_all(&dir).ok();
    }
}

mod text_format {
    use super::super::program::{Collective, Measured, Op, Pos, Program};
    use super::super::text::{parse, write};

    #[test]
    fn written_programs_read_back() {
        // Every kind of line, on two communicators; positions are the lines written.
        let ops0 = vec![
            Op::Compute { ns: 5 },
            Op::Send { peer: 1, bytes: 10, tag: 3, comm: 0, req: None },
            Op::Recv { peer: 1, bytes: 0, tag: 0, comm: 1, req: Some(4) },
            Op::Wait { reqs: vec![4] },
            Op::Collective { kind: Collective::Bcast, comm: 1, root: 1, bytes: 64 },
            Op::Collective { kind: Collective::Barrier, comm: 0, root: 0, bytes: 0 },
        ];
        let ops1 = vec![
            Op::Recv { peer: 0, bytes: 10, tag: 3, comm: 0, req: None },
            Op::Send { peer: 0, bytes: 0, tag: -2, comm: 1, req: Some(0) },
            Op::Collective { kind: Collective::Bcast, comm: 1, root: 1, bytes: 64 },
            Op::Collective { kind: Collective::Barrier, comm: 0, root: 0, bytes: 0 },
        ];
        let line = |first: usize, ops: Vec<Op>| ops.into_iter().enumerate().map(|(i, op)| (op, Pos::Line(first + i))).collect::<Vec<_>>();
        let prog = Program {
            comms: vec![vec![0, 1], vec![1, 0]],
            ops: vec![line(4, ops0), line(10, ops1)],
            measured: Some(vec![Measured { span_ns: 9, mpi_ns: 4 }, Measured { span_ns: 8, mpi_ns: 8 }]),
            times: Vec::new(),
        };
        let text = write(&prog, "a test");
        assert!(text.starts_with("# a test\nranks 2\ncomm 1 1,0\n0 compute 5\n0 send 1 10 tag=3\n0 irecv 1 0 comm=1 req=4\n"), "{text}");
        assert_eq!(parse(&text, "t (x").unwrap(), prog, "{text}");
    }

    #[test]
    fn a_star_line_is_every_ranks_call() {
        let prog = parse("ranks 3\n1 compute 7\n* alltoall 64\n2 barrier\n* send 0 8\n", "t (x").unwrap();
        let a2a = (Op::Collective { kind: Collective::Alltoall, comm: 0, root: 0, bytes: 64 }, Pos::Line(3));
        let send = (Op::Send { peer: 0, bytes: 8, tag: 0, comm: 0, req: None }, Pos::Line(5));
        assert_eq!(
            prog.ops,
            vec![
                vec![a2a.clone(), send.clone()],
                vec![(Op::Compute { ns: 7 }, Pos::Line(2)), a2a.clone(), send.clone()],
                vec![a2a, (Op::Collective { kind: Collective::Barrier, comm: 0, root: 0, bytes: 0 }, Pos::Line(4)), send],
            ]
        );
    }

    #[test]
    fn a_window_cuts_at_world_collectives_and_measures_its_span() {
        let text = "ranks 2\n0 barrier\n0 compute 7\n0 send 1 8\n0 allreduce 8\n0 compute 1\n1 barrier\n1 recv 0 8\n1 allreduce 8\n";
        let mut prog = parse(text, "t (x").unwrap();
        prog.times = vec![vec![0, 2, 9, 12, 20], vec![1, 5, 12]];
        let w = prog.window(0, Some(1)).unwrap();
        let kinds: Vec<usize> = w.ops.iter().map(Vec::len).collect();
        assert_eq!(kinds, vec![3, 2]);
        // Rank 0: from 0 to 12, 7 computing; rank 1: 1 to 12, none.
        assert_eq!(w.measured.unwrap(), vec![Measured { span_ns: 12, mpi_ns: 5 }, Measured { span_ns: 11, mpi_ns: 11 }]);
        let tail = prog.window(1, None).unwrap();
        assert_eq!(tail.ops[0].len(), 2);
        assert_eq!(tail.measured.unwrap()[0], Measured { span_ns: 8, mpi_ns: 7 });
        assert!(prog.window(1, Some(1)).unwrap_err().contains("not within the program's 2 world collectives"));
        assert!(prog.window(2, None).is_err());
    }
}
