//! The ranks text format: an MPI program's calls, one per line, written by hand or by a
//! script (the tracer writes OTF2). Sizes are bytes, times nanoseconds:
//!
//! ```text
//! ranks 4                   # the number of ranks: first, once
//! comm 1 0,2                # communicator 1: world ranks 0 and 2 (its ranks 0 and 1)
//! 0 compute 1500            # rank 0 computes for 1.5 us
//! 0 send 1 4096             # MPI_Send of 4096 B to rank 1 (options: tag=T comm=C)
//! 1 recv 0 4096             # MPI_Recv from rank 0 (options: tag=T comm=C)
//! 1 isend 0 64 req=7        # MPI_Isend, request 7 (options: tag=T comm=C)
//! 0 irecv 1 64 req=3        # MPI_Irecv, request 3 (options: tag=T comm=C)
//! 0 wait 3                  # MPI_Wait / MPI_Waitall on requests 3, ...: `wait 3,4`
//! 0 allreduce 8192          # a collective: its bytes as in `Collective` (comm=C)
//! 2 bcast 4096 root=1 comm=1  # rooted ones take root=R (a rank of the communicator)
//! 3 barrier
//! * alltoall 1024           # `*`: every rank makes the call
//! measured 0 span=9000 mpi=4000   # optional: what the trace measured of rank 0, ns
//! ```
//!
//! Lines of different ranks may interleave; each rank's lines are its program, in order.
//! Peers and roots are ranks of the communicator (`comm`, default 0, the world), as MPI
//! gives them. `#` starts a comment. Collectives are `barrier`, `bcast`, `reduce`,
//! `allreduce`, `gather`, `allgather`, `scatter`, `alltoall` and `reduce_scatter`.

use super::program::{Collective, Measured, Op, Pos, Program};
use crate::error::{Error, Result};

/// Read the program in text file `file`, gzip-compressed when its name ends in `.gz`
/// (`key`: the config key naming it, for errors).
pub fn read(file: &str, key: &str) -> Result<Program> {
    let cannot = |e: std::io::Error| Error::config(key, crate::schema::cannot_read(file, &e));
    let text = if file.ends_with(".gz") {
        use std::io::Read;
        let mut text = String::new();
        flate2::read::GzDecoder::new(std::fs::File::open(file).map_err(cannot)?).read_to_string(&mut text).map_err(|e| {
            Error::config(
                key,
                format!("cannot read {file} as gzip ({e}): it is corrupt or truncated, or not compressed (a plain ranks file's name must not end in .gz)"),
            )
        })?;
        text
    } else {
        std::fs::read_to_string(file).map_err(cannot)?
    };
    parse(&text, &format!("{key} ({file}"))
}

/// Parse ranks text; errors name `{at} line N)`.
pub fn parse(text: &str, at: &str) -> Result<Program> {
    let mut prog = Program::default();
    let mut ranks: Option<u32> = None;
    let mut measured: Vec<Option<Measured>> = Vec::new();
    for (line, body) in crate::schema::data_lines(text) {
        let where_ = format!("{at} line {line})");
        let err = |msg: String| Error::config(&where_, msg);
        let fields: Vec<&str> = body.split_whitespace().collect();
        let num = |s: &str, what: &str| s.parse::<u64>().map_err(|_| err(format!("`{s}` is not {what} (a whole number from 0)")));
        let rank_num =
            |s: &str, what: &str| num(s, what).and_then(|v| u32::try_from(v).map_err(|_| err(format!("{what} {v} is too large"))));
        if fields[0] == "ranks" {
            if ranks.is_some() || !prog.comms.is_empty() {
                return Err(err("`ranks N` comes once, as the first line".into()));
            }
            let [_, n] = fields[..] else {
                return Err(err("write `ranks N`, the number of ranks".into()));
            };
            let n = rank_num(n, "a rank count")?;
            if n == 0 {
                return Err(err("a program has at least 1 rank".into()));
            }
            ranks = Some(n);
            prog.comms.push((0..n).collect());
            prog.ops = vec![Vec::new(); n as usize];
            measured = vec![None; n as usize];
            continue;
        }
        let Some(n) = ranks else {
            return Err(err("the first line must be `ranks N`, the number of ranks".into()));
        };
        let in_range = |r: u32, what: &str| {
            if r < n {
                Ok(r)
            } else {
                Err(err(format!("{what} {r} is outside the program: ranks are 0..={}", n - 1)))
            }
        };
        match fields[0] {
            "comm" => {
                let [_, id, members] = fields[..] else {
                    return Err(err("write `comm ID R,R,...`: the communicator's world ranks in its rank order".into()));
                };
                let id = rank_num(id, "a communicator id")?;
                if id as usize != prog.comms.len() {
                    return Err(err(format!(
                        "communicators are numbered in order from 1 (0 is the world): the next is {}, not {id}",
                        prog.comms.len()
                    )));
                }
                let mut list = Vec::new();
                for m in members.split(',') {
                    let r = in_range(rank_num(m, "a rank")?, "rank")?;
                    if list.contains(&r) {
                        return Err(err(format!("rank {r} is listed twice in communicator {id}")));
                    }
                    list.push(r);
                }
                prog.comms.push(list);
            }
            "measured" => {
                let [_, r, ref opts @ ..] = fields[..] else {
                    return Err(err("write `measured RANK span=NS mpi=NS`".into()));
                };
                let r = in_range(rank_num(r, "a rank")?, "rank")?;
                let mut m = Measured::default();
                for (k, v) in options(opts, &["span", "mpi"], &err)? {
                    match k {
                        "span" => m.span_ns = num(v, "a time in ns")?,
                        _ => m.mpi_ns = num(v, "a time in ns")?,
                    }
                }
                measured[r as usize] = Some(m);
            }
            r => {
                let who = if r == "*" {
                    0..n
                } else {
                    let rank = in_range(rank_num(r, "a rank (or `*`, `ranks`, `comm`, `measured`)")?, "rank")?;
                    rank..rank + 1
                };
                let Some(&verb) = fields.get(1) else {
                    return Err(err(format!("`{body}` names no call: write `{r} send PEER BYTES`, `{r} compute NS`, ...")));
                };
                let args = &fields[2..];
                let op = match verb {
                    "compute" => {
                        let [ns] = args else {
                            return Err(err("write `RANK compute NS`".into()));
                        };
                        Op::Compute { ns: num(ns, "a time in ns")? }
                    }
                    "send" | "isend" | "recv" | "irecv" => {
                        let [peer, bytes, ref opts @ ..] = args[..] else {
                            return Err(err(format!(
                                "write `RANK {verb} PEER BYTES`{}",
                                if verb.starts_with('i') { " req=ID" } else { "" }
                            )));
                        };
                        let (peer, bytes) = (rank_num(peer, "a peer rank")?, num(bytes, "a size in bytes")?);
                        let (mut tag, mut comm, mut req) = (0i32, 0u32, None);
                        for (k, v) in options(opts, &["tag", "comm", "req"], &err)? {
                            match k {
                                "tag" => tag = v.parse().map_err(|_| err(format!("`{v}` is not a tag (a whole number)")))?,
                                "comm" => comm = rank_num(v, "a communicator id")?,
                                _ => req = Some(num(v, "a request id")?),
                            }
                        }
                        if verb.starts_with('i') != req.is_some() {
                            return Err(err(if req.is_some() {
                                format!("a blocking `{verb}` has no request: remove req= (or use i{verb})")
                            } else {
                                format!("`{verb}` is non-blocking: give its request, req=ID, which a later `wait` completes")
                            }));
                        }
                        if verb.ends_with("send") {
                            Op::Send { peer, bytes, tag, comm, req }
                        } else {
                            Op::Recv { peer, bytes, tag, comm, req }
                        }
                    }
                    "wait" => {
                        let [ids] = args else {
                            return Err(err("write `RANK wait ID,ID,...`".into()));
                        };
                        Op::Wait { reqs: ids.split(',').map(|i| num(i, "a request id")).collect::<Result<_>>()? }
                    }
                    name => {
                        let Some(kind) = Collective::from_name(name) else {
                            let calls: Vec<&str> = Collective::ALL.iter().map(|c| c.name()).collect();
                            return Err(err(format!(
                                "unknown call `{name}`: the calls are compute, send, isend, recv, irecv, wait and the collectives {}",
                                calls.join(", ")
                            )));
                        };
                        let (bytes, opts) = match (kind, args) {
                            (Collective::Barrier, _) => (0, args),
                            (_, [b, rest @ ..]) => (num(b, "a size in bytes")?, rest),
                            _ => return Err(err(format!("write `RANK {name} BYTES`"))),
                        };
                        let (mut comm, mut root) = (0u32, None);
                        for (k, v) in options(opts, &["comm", "root"], &err)? {
                            match k {
                                "comm" => comm = rank_num(v, "a communicator id")?,
                                _ => root = Some(rank_num(v, "a root rank")?),
                            }
                        }
                        if root.is_some() && !kind.rooted() {
                            return Err(err(format!("`{name}` has no root: remove root=")));
                        }
                        Op::Collective { kind, comm, root: root.unwrap_or(0), bytes }
                    }
                };
                for rank in who {
                    prog.ops[rank as usize].push((op.clone(), Pos::Line(line)));
                }
            }
        }
    }
    if ranks.is_none() {
        return Err(Error::config(format!("{at})"), "the trace is empty: it needs `ranks N` and the ranks' calls"));
    }
    if measured.iter().any(Option::is_some) {
        prog.measured = Some(measured.into_iter().map(Option::unwrap_or_default).collect());
    }
    Ok(prog)
}

/// The `key=value` options of a line, each key one of `allowed` and given once.
fn options<'a>(fields: &[&'a str], allowed: &[&str], err: &dyn Fn(String) -> Error) -> Result<Vec<(&'a str, &'a str)>> {
    let mut out: Vec<(&str, &str)> = Vec::new();
    for f in fields {
        let Some((k, v)) = f.split_once('=') else {
            return Err(err(format!(
                "`{f}` is not an option: write {}",
                allowed.iter().map(|a| format!("{a}=...")).collect::<Vec<_>>().join(", ")
            )));
        };
        if !allowed.contains(&k) {
            return Err(err(format!("unknown option `{k}`: here the options are {}", allowed.join(", "))));
        }
        if out.iter().any(|(o, _)| *o == k) {
            return Err(err(format!("`{k}` is given twice; give it once")));
        }
        out.push((k, v));
    }
    Ok(out)
}

/// The program in the ranks text format (what [`parse`] reads back; the times of the
/// operations are not written, what was measured is). `header` goes first, each line
/// a comment.
pub fn write(prog: &Program, header: &str) -> String {
    use std::fmt::Write;
    let mut o = String::new();
    for line in header.lines() {
        let _ = writeln!(o, "# {line}");
    }
    let _ = writeln!(o, "ranks {}", prog.ranks());
    for (id, members) in prog.comms.iter().enumerate().skip(1) {
        let list: Vec<String> = members.iter().map(u32::to_string).collect();
        let _ = writeln!(o, "comm {id} {}", list.join(","));
    }
    let opts = |tag: i32, comm: u32, req: Option<u64>| {
        let mut s = String::new();
        if tag != 0 {
            s += &format!(" tag={tag}");
        }
        if comm != 0 {
            s += &format!(" comm={comm}");
        }
        if let Some(q) = req {
            s += &format!(" req={q}");
        }
        s
    };
    for (r, ops) in prog.ops.iter().enumerate() {
        for (op, _) in ops {
            match op {
                Op::Compute { ns } => {
                    let _ = writeln!(o, "{r} compute {ns}");
                }
                Op::Send { peer, bytes, tag, comm, req } | Op::Recv { peer, bytes, tag, comm, req } => {
                    let verb = match (matches!(op, Op::Send { .. }), req.is_some()) {
                        (true, false) => "send",
                        (true, true) => "isend",
                        (false, false) => "recv",
                        (false, true) => "irecv",
                    };
                    let _ = writeln!(o, "{r} {verb} {peer} {bytes}{}", opts(*tag, *comm, *req));
                }
                Op::Wait { reqs } if reqs.is_empty() => {}
                Op::Wait { reqs } => {
                    let ids: Vec<String> = reqs.iter().map(u64::to_string).collect();
                    let _ = writeln!(o, "{r} wait {}", ids.join(","));
                }
                Op::Collective { kind, comm, root, bytes } => {
                    let mut line = format!("{r} {kind}");
                    if *kind != Collective::Barrier {
                        line += &format!(" {bytes}");
                    }
                    if kind.rooted() {
                        line += &format!(" root={root}");
                    }
                    if *comm != 0 {
                        line += &format!(" comm={comm}");
                    }
                    let _ = writeln!(o, "{line}");
                }
            }
        }
    }
    if let Some(m) = &prog.measured {
        for (r, x) in m.iter().enumerate() {
            let _ = writeln!(o, "measured {r} span={} mpi={}", x.span_ns, x.mpi_ns);
        }
    }
    o
}
