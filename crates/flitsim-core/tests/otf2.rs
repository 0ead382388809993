//! Reading OTF2 archives (feature `otf2`): archives with known events are written by
//! OTF2's own writer (tests/data/otf2/write_archive.c, compiled here with `cc -lotf2`),
//! read back with `otf2::read`, and compared with the programs worked out by hand from
//! the events the writer lists; then the errors: a missing file, a file that is not an
//! anchor, a truncated events file, an unsupported collective, a receive never completed.
#![cfg(feature = "otf2")]

use std::path::{Path, PathBuf};
use std::process::Command;

use flitsim_core::traffic::app::otf2;
use flitsim_core::traffic::app::program::{Collective, Measured, Op, Pos, Program};

/// A fresh scratch folder for test `name`.
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("otf2").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Writes the archive of `scenario` (see write_archive.c) in scratch folder `name` and
/// returns its anchor file.
fn write(scenario: &str, name: &str) -> PathBuf {
    let dir = scratch(name);
    let exe = dir.join("write_archive");
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/otf2/write_archive.c");
    let out = Command::new("cc").arg("-O1").arg(&src).arg("-o").arg(&exe).arg("-lotf2").output().expect("cc runs");
    assert!(out.status.success(), "cc write_archive.c: {}", String::from_utf8_lossy(&out.stderr));
    let out = Command::new(&exe).arg(dir.join("archive")).arg(scenario).output().unwrap();
    assert!(out.status.success(), "write_archive {scenario}: {}", String::from_utf8_lossy(&out.stderr));
    dir.join("archive/trace.otf2")
}

fn send(peer: u32, bytes: u64, tag: i32, comm: u32, req: Option<u64>) -> Op {
    Op::Send { peer, bytes, tag, comm, req }
}

fn recv(peer: u32, bytes: u64, tag: i32, comm: u32, req: Option<u64>) -> Op {
    Op::Recv { peer, bytes, tag, comm, req }
}

fn compute(us: u64) -> Op {
    Op::Compute { ns: us * 1000 }
}

fn coll(kind: Collective, comm: u32, bytes: u64) -> Op {
    Op::Collective { kind, comm, root: 0, bytes }
}

/// The round-trip archive's program, from the events write_archive.c lists per rank (times
/// in microseconds; event indices count every event of the rank from 0).
fn expected_roundtrip() -> Program {
    use Collective::*;
    let at = |ops: Vec<(Op, u64)>| ops.into_iter().map(|(o, i)| (o, Pos::Event(i))).collect::<Vec<_>>();
    // The bcast: the largest size received, 256. The alltoall on the two-rank
    // communicator: each rank sends 64 bytes in all, (64 + 64) / 2^2 = 32 per block.
    let rank0 = at(vec![
        (send(1, 100, 7, 0, None), 1),
        // Send left at 12 us, Isend entered at 30 (the user region between is computation).
        (compute(18), 5),
        (send(2, 64, 3, 0, Some(0)), 6),
        (compute(9), 8),
        (Op::Wait { reqs: vec![0] }, 10),
        (compute(7), 11),
        (coll(Bcast, 0, 256), 12),
    ]);
    let rank1 =
        at(vec![(recv(0, 100, 7, 0, None), 1), (compute(4), 3), (coll(Alltoall, 1, 32), 4), (compute(25), 7), (coll(Bcast, 0, 256), 8)]);
    // Receives posted at events 1 and 4 (request ids 77, 78), completed by the waitall.
    let rank2 = at(vec![
        (recv(0, 64, 3, 0, Some(0)), 1),
        (compute(19), 3),
        (recv(3, 8, 9, 0, Some(1)), 4),
        (compute(9), 6),
        (Op::Wait { reqs: vec![0, 1] }, 9),
        (compute(6), 10),
        (coll(Bcast, 0, 256), 11),
    ]);
    let rank3 =
        at(vec![(send(2, 8, 9, 0, None), 1), (compute(7), 3), (coll(Alltoall, 1, 32), 4), (compute(25), 7), (coll(Bcast, 0, 256), 8)]);
    // Every rank's events span 10..56 us; inside MPI: rank 0 2+1+3+6, rank 1 6+5+6,
    // rank 2 1+1+4+6, rank 3 3+5+6 us.
    let m = |mpi_us: u64| Measured { span_ns: 46_000, mpi_ns: mpi_us * 1000 };
    Program {
        // The sub-communicator lists world rank 3 as its rank 0.
        comms: vec![vec![0, 1, 2, 3], vec![3, 1]],
        ops: vec![rank0, rank1, rank2, rank3],
        measured: Some(vec![m(12), m(17), m(12), m(14)]),
        // When each operation began, from the rank's first event at 10 us: an MPI call's
        // operations at its enter, a computation at the leave before it, a receive
        // request where it was posted.
        times: [vec![0, 2, 20, 21, 30, 33, 40], vec![0, 6, 10, 15, 40], vec![0, 1, 20, 21, 30, 34, 40], vec![0, 3, 10, 15, 40]]
            .map(|us: Vec<u64>| us.into_iter().map(|t| t * 1000).collect())
            .to_vec(),
    }
}

#[test]
fn an_archive_written_by_otf2_reads_as_the_program_its_events_describe() {
    let anchor = write("roundtrip", "roundtrip");
    let program = otf2::read(&anchor, "traffic.trace.file").unwrap_or_else(|e| panic!("{e}"));
    let want = expected_roundtrip();
    assert_eq!(program.comms, want.comms);
    for (rank, (got, want)) in program.ops.iter().zip(&want.ops).enumerate() {
        assert_eq!(got, want, "rank {rank}");
    }
    assert_eq!(program, want);
}

#[test]
fn mpi_init_and_finalize_are_left_out_of_what_was_measured() {
    // write_archive.c's `setup`: MPI_Init 0..300 us, the exchange 310..312 (rank 0) and
    // 310..315 (rank 1), MPI_Finalize from 400: each rank's span is 300..400, and its
    // time in MPI the exchange alone.
    let anchor = write("setup", "setup");
    let program = otf2::read(&anchor, "traffic.trace.file").unwrap_or_else(|e| panic!("{e}"));
    let m = |mpi_us: u64| Measured { span_ns: 100_000, mpi_ns: mpi_us * 1000 };
    assert_eq!(program.measured, Some(vec![m(2), m(5)]));
    // The computation from 315 (or 312) to Finalize at 400 is the program's.
    assert_eq!(program.ops[0].iter().map(|(op, _)| op.clone()).collect::<Vec<_>>(), vec![compute(10), send(1, 8, 0, 0, None), compute(88)]);
}

/// The error `otf2::read` gives for `anchor`, as text.
fn error(anchor: &Path) -> String {
    match otf2::read(anchor, "traffic.trace.file") {
        Ok(p) => panic!("{} read as a program of {} ranks", anchor.display(), p.ranks()),
        Err(e) => e.to_string(),
    }
}

#[test]
fn errors_name_the_file_the_place_and_the_fix() {
    let dir = scratch("errors");
    let missing = dir.join("nothing.otf2");
    let text = dir.join("notes.otf2");
    std::fs::write(&text, "these are not the OTF2 anchor's contents\n").unwrap();
    let truncated = write("roundtrip", "truncated");
    let events = truncated.parent().unwrap().join("trace/2.evt");
    let len = std::fs::metadata(&events).unwrap().len();
    let f = std::fs::OpenOptions::new().write(true).open(&events).unwrap();
    f.set_len(len / 2).unwrap();
    let w = write("alltoallw", "alltoallw");
    let open = write("open-irecv", "open-irecv");
    let cases: Vec<(&Path, Vec<&str>)> = vec![
        (&missing, vec!["traffic.trace.file", "nothing.otf2", "cannot read"]),
        (&text, vec!["notes.otf2", "not an OTF2 archive's anchor file", "give the `.otf2` file"]),
        (&dir, vec!["is a folder", "anchor file"]),
        (&truncated, vec!["trace.otf2", "rank 2", "incomplete or corrupt", "record it again"]),
        (&w, vec!["trace.otf2 rank 0 event 2", "ALLTOALLW", "not supported"]),
        (&open, vec!["trace.otf2 rank 0 event 1", "never completes"]),
    ];
    for (anchor, words) in cases {
        let e = error(anchor);
        for w in words {
            assert!(e.contains(w), "the error for {} lacks `{w}`: {e}", anchor.display());
        }
    }
}
