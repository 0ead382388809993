//! Deadlock diagnosis: the wait-for graph of blocked input VCs and a cycle in it.
//!
//! When the watchdog fires, every input VC holding flits waits for something: an
//! active VC waits for credits of its output VC, i.e. for the downstream input VC that
//! output feeds; a VC waiting for VC allocation waits for every output VC in its
//! candidate range, each either held by another input VC of the same router or lacking
//! the credits virtual cut-through needs. A cycle in this graph is the cycle of waiting
//! channels that the report names.

use crate::link::End;
use crate::router::iq::{state, IqRouters, FREE};
use crate::link::Channels;

/// Input VCs (global indices) that `i` waits for.
fn waits_for(r: &IqRouters, ch: &Channels, i: usize, out: &mut Vec<usize>) {
    out.clear();
    let (p_n, v_n) = (r.ports as usize, r.vcs as usize);
    let router = i / (p_n * v_n);
    let base = router * p_n * v_n;
    let st = &r.ivc[i];
    let downstream = |o: usize, w: usize| -> Option<usize> {
        match ch.dst[router * p_n + o] {
            End::Router { router: dr, port: dp } => Some((dr as usize * p_n + dp as usize) * v_n + w),
            _ => None,
        }
    };
    match st.state {
        state::ACTIVE => {
            if let Some(d) = downstream(st.port as usize, st.out_vc as usize) {
                out.push(d);
            }
        }
        state::VC_ALLOC => {
            for w in st.lo as usize..st.hi as usize {
                let ovc = base + st.port as usize * v_n + w;
                let owner = r.out[ovc].owner;
                if owner != FREE {
                    out.push(base + owner as usize);
                } else if let Some(d) = downstream(st.port as usize, w) {
                    out.push(d);
                }
            }
        }
        _ => {}
    }
}

/// A cycle of blocked input VCs (global indices), if the wait-for graph has one.
pub fn wait_cycle(r: &IqRouters, ch: &Channels) -> Option<Vec<usize>> {
    let n = r.ivc.len();
    // 0 = unvisited, 1 = on the DFS stack, 2 = done.
    let mut color = vec![0u8; n];
    let mut succ = Vec::new();
    for start in 0..n {
        if color[start] != 0 || r.buffer_len(start) == 0 {
            continue;
        }
        // Iterative DFS: stack of (node, successor list, next index).
        let mut stack: Vec<(usize, Vec<usize>, usize)> = Vec::new();
        waits_for(r, ch, start, &mut succ);
        stack.push((start, succ.clone(), 0));
        color[start] = 1;
        while let Some(top) = stack.last_mut() {
            if top.2 == top.1.len() {
                color[top.0] = 2;
                stack.pop();
                continue;
            }
            let next = top.1[top.2];
            top.2 += 1;
            if r.buffer_len(next) == 0 {
                continue;
            }
            match color[next] {
                0 => {
                    color[next] = 1;
                    waits_for(r, ch, next, &mut succ);
                    stack.push((next, succ.clone(), 0));
                }
                1 => {
                    let pos = stack.iter().position(|f| f.0 == next).unwrap();
                    return Some(stack[pos..].iter().map(|f| f.0).collect());
                }
                _ => {}
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use crate::config::Config;
    use crate::error::Error;

    /// A ring without datelines deadlocks; the report names a cycle that goes all the way
    /// round the ring through VC 0.
    #[test]
    fn ring_deadlock_names_the_cycle_of_waiting_channels() {
        let text = r#"
[topology]
type = "torus"
dims = [8]
[router]
vcs = 1
buffer_depth = 2
[routing]
type = "dor"
datelines = false
[traffic]
load = 0.9
packet_size = 8
pattern = { type = "tornado" }
[sim]
warmup = 0
measure = 20000
watchdog = 200
"#;
        let spec = Config::from_toml(text, &[]).unwrap().validate().unwrap();
        let err = crate::sim::Simulation::run_spec(spec).unwrap_err();
        let Error::Deadlock { blocked, .. } = err else { panic!("expected a deadlock, got {err}") };
        assert!(blocked.contains("cycle of waiting channels"), "{blocked}");
        // All 8 routers of the ring appear in the cycle (tornado waits all the way round).
        let cycle_line = blocked.lines().find(|l| l.contains("cycle of waiting channels")).unwrap();
        let hops = cycle_line.matches("->").count();
        assert!(hops >= 8, "{cycle_line}");
    }
}
