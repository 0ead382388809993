//! The wait-for graph of the buffered-crossbar router, for deadlock diagnosis
//! ([`crate::sim::deadlock`]). Its nodes are the input VC buffers (`(router, port, vc)`,
//! numbered as the router numbers them) followed by the staging buffers (`(router,
//! output, input port, vc)`). A routed input VC waits for room in the staging buffer it
//! crosses into; a staging buffer waits for downstream credits on its front flit's
//! output VC (the next router's input VC) and, unless it is the one its output is
//! sending, for the output that is busy with another staging buffer.

use super::{state, BufferedRouters, IDLE_OUT};
use crate::link::{Channels, End, Flit};
use crate::router::family::WaitGraph;
use crate::topology::Topology;

impl WaitGraph for BufferedRouters {
    /// Nodes of the wait-for graph: input VCs, then staging buffers.
    fn nodes(&self) -> usize {
        self.ivc.len() + self.stg.len()
    }

    /// The front flit of node `i` (`None` when it is empty).
    fn front(&self, i: usize) -> Option<Flit> {
        let n_in = self.ivc.len();
        if i < n_in {
            let st = &self.ivc[i];
            return (st.len > 0).then(|| self.buf[i * self.depth as usize + st.head as usize]);
        }
        let s = i - n_in;
        let st = &self.stg[s];
        (st.len > 0).then(|| self.sbuf[s * self.staging_depth as usize + st.head as usize].flit())
    }

    /// The nodes node `i` waits for, into `out`.
    fn waits(&self, ch: &Channels, i: usize, out: &mut Vec<usize>) {
        out.clear();
        let (p_n, v_n) = (self.ports as usize, self.vcs as usize);
        let n_in = self.ivc.len();
        if i < n_in {
            let st = &self.ivc[i];
            // (A dropped packet's VC discards a flit every cycle its port lets it: it
            // waits for nothing.)
            if st.len == 0 || st.state == state::IDLE || st.state == state::DROP {
                return;
            }
            let (router, p, v) = (i / (p_n * v_n), (i / v_n) % p_n, i % v_n);
            out.push(n_in + ((router * p_n + st.out_port as usize) * p_n + p) * v_n + v);
            return;
        }
        let s = i - n_in;
        let st = &self.stg[s];
        if st.len == 0 {
            return;
        }
        let vc = self.sbuf[s * self.staging_depth as usize + st.head as usize].vc() as usize;
        let router = s / (p_n * p_n * v_n);
        let o = (s / (p_n * v_n)) % p_n;
        let local = s % (p_n * v_n);
        if let End::Router { router: dr, port: dp } = ch.dst[router * p_n + o] {
            out.push((dr as usize * p_n + dp as usize) * v_n + vc);
        }
        let cur = self.out[router * p_n + o].cur;
        if cur != IDLE_OUT && cur as usize != local {
            out.push(n_in + (router * p_n + o) * p_n * v_n + cur as usize);
        }
    }

    /// A readable name of node `i`.
    fn node_name(&self, topo: &Topology, i: usize) -> String {
        let (router, port) = (|r| topo.router_name(r), |p| topo.port_name(p));
        let (p_n, v_n) = (self.ports as usize, self.vcs as usize);
        let n_in = self.ivc.len();
        if i < n_in {
            let (r, p, v) = (i / (p_n * v_n), (i / v_n) % p_n, i % v_n);
            return format!("{}{} vc{v}", router(r as u32), port(p as u32));
        }
        let s = i - n_in;
        let (r, o, p, v) = (s / (p_n * p_n * v_n), (s / (p_n * v_n)) % p_n, (s / v_n) % p_n, s % v_n);
        format!("{} staging {}<-{} vc{v}", router(r as u32), port(o as u32), port(p as u32))
    }
}
