//! What an input VC of the input-queued routers waits for, in words (deadlock reports).

use super::{state, IqRouters, FREE};

impl IqRouters {
    /// Describe what input VC `(r, p, v)` is waiting for (deadlock reports).
    pub fn describe_wait(&self, r: u32, p: u32, v: u32, now: u64) -> String {
        let base = (r * self.ports * self.vcs) as usize;
        let i = base + (p * self.vcs + v) as usize;
        let st = &self.ivc[i];
        match st.state {
            state::IDLE => "idle".into(),
            state::VC_ALLOC => {
                let owners: Vec<String> = (st.lo..st.hi)
                    .map(|w| {
                        let o = self.out[base + st.port as usize * self.vcs as usize + w as usize].owner;
                        if o == FREE {
                            format!("vc{w} free ({} credits)", self.out[base + st.port as usize * self.vcs as usize + w as usize].credits)
                        } else {
                            format!("vc{w} held by in-port {} vc{}", o as u32 / self.vcs, o as u32 % self.vcs)
                        }
                    })
                    .collect();
                format!("waiting for an output VC on port {} [{}]", st.port, owners.join(", "))
            }
            _ => {
                let ovc = base + st.port as usize * self.vcs as usize + st.out_vc as usize;
                if !st.ready_by(now) {
                    format!("in pipeline until cycle {}", st.ready_at(now))
                } else {
                    format!("holds output port {} vc{} with {} credits", st.port, st.out_vc, self.out[ovc].credits)
                }
            }
        }
    }
}
