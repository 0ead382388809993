//! `flitsim trace record` end to end (feature `otf2`): a small MPI program with a known
//! set of calls (tests/data/trace_app.c) runs on 4 ranks under the tracer, and the archive
//! reads back as exactly the operations the program's source lists (computation between
//! the calls aside, whose lengths depend on the machine). Skipped, saying why, without
//! mpicc or mpirun.
#![cfg(feature = "otf2")]

use std::path::Path;
use std::process::Command;

use flitsim_core::traffic::app::otf2;
use flitsim_core::traffic::app::program::{Collective, Op};

fn have(tool: &str) -> bool {
    Command::new(tool).arg("--version").output().is_ok_and(|o| o.status.success())
}

fn send(peer: u32, bytes: u64, tag: i32, req: Option<u64>) -> Op {
    Op::Send { peer, bytes, tag, comm: 0, req }
}

fn recv(peer: u32, bytes: u64, tag: i32, req: Option<u64>) -> Op {
    Op::Recv { peer, bytes, tag, comm: 0, req }
}

/// Rank `r`'s operations, from trace_app.c: requests are numbered per rank in the order
/// posted; the split makes communicator 1 of the even ranks [2, 0] and 2 of the odd ones
/// [3, 1] (key -rank: the higher rank first).
fn expected(r: u32) -> Vec<Op> {
    let (next, prev, across) = ((r + 1) % 4, (r + 3) % 4, (r + 2) % 4);
    let mut ops = if r.is_multiple_of(2) {
        vec![send(next, 8, 1, None), recv(prev, 8, 1, None)]
    } else {
        vec![recv(prev, 8, 1, None), send(next, 8, 1, None)]
    };
    ops.extend([
        recv(prev, 64, 5, Some(0)),
        send(next, 64, 5, Some(1)),
        Op::Wait { reqs: vec![0, 1] },
        Op::Collective { kind: Collective::Bcast, comm: 1 + r % 2, root: 0, bytes: 100 },
        Op::Collective { kind: Collective::Allreduce, comm: 0, root: 0, bytes: 32 },
        Op::Collective { kind: Collective::Alltoall, comm: 0, root: 0, bytes: 8 },
        Op::Collective { kind: Collective::Barrier, comm: 0, root: 0, bytes: 0 },
        recv(across, 4, 9, Some(2)),
        send(across, 4, 9, Some(3)),
        Op::Wait { reqs: vec![3] },
        Op::Wait { reqs: vec![2] },
    ]);
    ops
}

#[test]
fn a_traced_mpi_program_reads_back_as_the_calls_it_makes() {
    if !have("mpicc") || !have("mpirun") {
        eprintln!("skipped: mpicc or mpirun is missing (Debian: apt-get install libopenmpi-dev openmpi-bin)");
        return;
    }
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("trace_record");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let app = dir.join("trace_app");
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/trace_app.c");
    let out = Command::new("mpicc").arg("-O1").arg(&src).arg("-o").arg(&app).output().unwrap();
    assert!(out.status.success(), "mpicc trace_app.c: {}", String::from_utf8_lossy(&out.stderr));
    let archive = dir.join("archive");
    let out = Command::new(env!("CARGO_BIN_EXE_flitsim"))
        .args(["trace", "record", "--out"])
        .arg(&archive)
        .args(["--", "mpirun", "--allow-run-as-root", "--oversubscribe", "-np", "4"])
        .arg(&app)
        // A cache of its own: the tracer is built from the embedded source.
        .env("XDG_CACHE_HOME", dir.join("cache"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "flitsim trace record: {stdout}{}", String::from_utf8_lossy(&out.stderr));
    assert!(dir.join("cache/flitsim/libflitsim_tracer.so").exists());
    let anchor = archive.join("trace.otf2");
    assert!(stdout.starts_with(&format!("{}\n4 ranks, 3 communicators", anchor.display())), "{stdout}");

    let program = otf2::read(&anchor, "trace").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(program.comms, vec![vec![0, 1, 2, 3], vec![2, 0], vec![3, 1]]);
    for r in 0..4 {
        let ops: Vec<Op> =
            program.ops[r as usize].iter().map(|(op, _)| op.clone()).filter(|op| !matches!(op, Op::Compute { .. })).collect();
        assert_eq!(ops, expected(r), "rank {r}");
    }
    let measured = program.measured.expect("the tracer records times");
    assert!(measured.iter().all(|m| m.mpi_ns > 0 && m.mpi_ns <= m.span_ns), "{measured:?}");

    // `trace show` prints a row per rank: 3 sends, 3 receives, 3 waits, 4 collectives.
    let out = Command::new(env!("CARGO_BIN_EXE_flitsim")).args(["trace", "show"]).arg(&anchor).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    let rows: Vec<Vec<&str>> =
        text.lines().map(|l| l.split_whitespace().collect::<Vec<_>>()).filter(|w| w.len() == 8 && w[0].parse::<u32>().is_ok()).collect();
    assert_eq!(rows.len(), 4, "{text}");
    for row in rows {
        assert_eq!(&row[2..6], &["3", "3", "3", "4"], "{text}");
    }
}

#[test]
fn a_failing_command_is_an_error_that_says_so() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("trace_record_fails");
    let out = Command::new(env!("CARGO_BIN_EXE_flitsim"))
        .args(["trace", "record", "--out"])
        .arg(&dir)
        .args(["--", "sh", "-c", "exit 3"])
        .env("XDG_CACHE_HOME", dir.join("cache"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    if stderr.contains("mpicc is not installed") {
        eprintln!("skipped: {stderr}");
        return;
    }
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("`sh -c exit 3` failed"), "{stderr}");
}
