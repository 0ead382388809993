//! The partitioned engine across processes ([`flitsim_core::sim::distributed`]), with the
//! processes played by threads that share nothing but a mailbox (an in-process
//! implementation of `Peers`, `common::ThreadPeers`): each builds its own simulation from the
//! config, steps its partition and exchanges serialized outboxes and reductions, as MPI
//! ranks do. Process 0's report must be the one-process report, bit for bit (the whole
//! JSON); the run must really be split (flits cross between processes). The MPI
//! transport itself is tested by the command-line tool's tests (`mpirun -np 2`).

mod common;

use std::sync::Arc;

use common::{Mailbox, ThreadPeers};
use flitsim_core::config::Config;
use flitsim_core::sim::Simulation;

/// Process 0's report of `toml` run by `size` processes (the version field removed), and
/// the flits that crossed into each process.
fn report(toml: &str, size: usize) -> (serde_json::Value, Vec<u64>) {
    let (v, crossed, _) = report_and_bytes(toml, size, false);
    (v, crossed)
}

/// [`report`], and the bytes each process sent each other, `[from][to]`; with `track`,
/// input-queued routers and their endpoints are forced to track activity (large
/// networks do by themselves), which must change no result.
fn report_and_bytes(toml: &str, size: usize, track: bool) -> (serde_json::Value, Vec<u64>, Vec<Vec<u64>>) {
    let mail = Arc::new(Mailbox::new(size, size));
    let handles: Vec<_> = (0..size)
        .map(|rank| {
            let (toml, mail) = (toml.to_string(), Arc::clone(&mail));
            std::thread::spawn(move || {
                let spec = Config::from_toml(&toml, &[]).unwrap().validate().unwrap();
                let mut sim = Simulation::new(spec).unwrap();
                if let (true, flitsim_core::router::Routers::Iq(iq)) = (track, &mut sim.routers) {
                    iq.set_activity_tracking(true);
                }
                if size > 1 {
                    assert_eq!(sim.set_peers(Box::new(ThreadPeers { rank, size, mail })).unwrap(), None, "the run is split");
                    assert_eq!(sim.processes(), size);
                }
                sim.run_cycles(150).unwrap();
                let crossed = sim.crossed_flits();
                let mut v = serde_json::to_value(sim.run(&mut |_| {}).unwrap()).unwrap();
                v.as_object_mut().unwrap().remove("version");
                (v, crossed)
            })
        })
        .collect();
    let mut out: Vec<(serde_json::Value, u64)> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    let crossed = out.iter().map(|o| o.1).collect();
    let sent = mail.sent.lock().unwrap().clone();
    (out.swap_remove(0).0, crossed, sent)
}

fn same_across_processes(name: &str, toml: &str) {
    let (one, _) = report(toml, 1);
    assert!(one["counters"]["packets_delivered"].as_u64().unwrap() > 0, "{name}: nothing delivered");
    // (3 processes track activity.)
    for size in [2, 3] {
        let (many, crossed, _) = report_and_bytes(toml, size, size == 3);
        assert!(crossed.iter().all(|&c| c > 0), "{name}: flits crossed into every one of {size} processes: {crossed:?}");
        assert_eq!(one, many, "{name}: {size} processes differ from one");
    }
}

#[test]
fn torus_across_processes() {
    same_across_processes(
        "torus",
        "seed = 3\n[topology]\ntype = \"torus\"\ndims = [4, 3, 5]\nconcentration = 2\n[router]\nallocator = \"islip\"\n\
         [traffic]\nload = 0.35\npacket_size = 3\n[sim]\nwarmup = 300\nmeasure = 1500\n[stats]\ntimeline = 128\nchannel_timeline = true\nbuffer_sample = 3\n",
    );
}

#[test]
fn mesh_with_faults_and_a_finite_workload_across_processes() {
    same_across_processes(
        "mesh, faults, finite",
        "seed = 5\n[topology]\ntype = \"mesh\"\ndims = [6, 6]\n[routing]\ntype = \"table\"\nvc_policy = \"v3\"\n[faults]\nlinks = [[7, 0], [20, 1]]\n\
         [router]\nvcs = 2\nflow_control = \"virtual_cut_through\"\nbuffer_depth = 8\n[traffic]\nload = 0.3\npackets_per_source = 60\npacket_size = { sizes = [1, 5], weights = [1, 1] }\n\
         [sim]\nwarmup = 100\nmeasure = 5000\n",
    );
}

/// Each crossing goes only to the process that receives it: on a 6x6 mesh in three slabs
/// of two rows, slabs 0 and 2 share no channel, so what passes between them is only the
/// counters every process needs (a few bytes a cycle), far less than what a neighbour
/// gets with the flits (an all-gather would send both the same box). The report is
/// still the one-process report.
#[test]
fn trace_with_waits_across_processes() {
    same_across_processes(
        "trace",
        &format!(
            "seed = 4\n[topology]\ntype = \"mesh\"\ndims = [6, 4]\n[sim]\nwarmup = 0\nmeasure = 100000\nuntil_done = true\n\
             [traffic.trace]\npacket_flits = 8\n{}\n",
            common::random_trace(24, 300, 777)
        ),
    );
}

/// An application (presets/cg-64.ranks: halo exchanges and allreduces on 64 ranks, placed
/// at random): the ranks' finish times are merged across processes like every total.
#[test]
fn application_across_processes() {
    same_across_processes("application", &common::application_config());
}

#[test]
fn crossings_go_only_to_the_process_that_receives_them() {
    let toml = "seed = 9\n[topology]\ntype = \"mesh\"\ndims = [6, 6]\n[traffic]\nload = 0.4\npacket_size = 4\n[sim]\nwarmup = 100\nmeasure = 1500\n";
    let (one, _) = report(toml, 1);
    let (three, _, sent) = report_and_bytes(toml, 3, false);
    assert_eq!(one, three, "three processes report the one-process run");
    for (far, near) in [((0, 2), (0, 1)), ((2, 0), (2, 1))] {
        let (f, n) = (sent[far.0][far.1], sent[near.0][near.1]);
        assert!(f > 0 && 3 * f < n, "{far:?} sent {f} bytes, {near:?} {n}: {sent:?}");
    }
    assert_eq!((sent[0][0], sent[1][1], sent[2][2]), (0, 0, 0), "nothing to itself");
}

/// SeaStar routers: age clocks per partition, and the performance counters (in the
/// report) gathered from every process.
#[test]
fn seastar_routers_across_processes() {
    same_across_processes(
        "seastar",
        "seed = 12\n[topology]\ntype = \"torus\"\ndims = [5, 4, 4]\n[router]\ntype = \"buffered_crossbar\"\n\
         age_rr_select = \"0xf0f0f0f0f0f0f0f0\"\nage_clock_period = 8\nreq_age_bias = [3, 2, 1]\n[routing]\nclasses = 2\n\
         [traffic]\nload = 0.3\npacket_size = { sizes = [2, 9], weights = [1, 1] }\n[sim]\nwarmup = 300\nmeasure = 1500\n[stats]\nbuffer_sample = 3\ntimeline = 250\nchannel_timeline = true\n",
    );
}

/// Central-arbiter routers with Disha and the self-tuned threshold: the side-band count
/// reduced over the processes, the controller replicated on each, and the recovery token
/// handed between them.
#[test]
fn central_routers_with_disha_and_tuning_across_processes() {
    same_across_processes(
        "central",
        "seed = 21\n[topology]\ntype = \"torus\"\ndims = [8, 8]\n[router]\ntype = \"central\"\n[routing]\ntype = \"adaptive\"\ndeadlock = \"recovery\"\n\
         [congestion]\npolicy = \"tune\"\n[traffic]\nload = 0.7\npacket_size = 16\nsource_queue = 1\n[sim]\nwarmup = 300\nmeasure = 2000\ndrain_limit = 0\n[stats]\nbuffer_sample = 3\ntimeline = 250\nchannel_timeline = true\n",
    );
}

/// SiCortex crosspoint switches with multi-rail routes: entry credits cross back, and
/// the switches' event counts are gathered from every process.
#[test]
fn sicortex_crosspoint_switches_across_processes() {
    same_across_processes(
        "crosspoint",
        "seed = 9\n[topology]\ntype = \"kautz\"\ndegree = 3\ndiameter = 4\n[routing]\ntype = \"source\"\nrails = 3\n\
         [router]\ntype = \"crosspoint\"\nvcs = 4\nxb_packets = 5\n[traffic]\nload = 0.6\npacket_size = 6\n[sim]\nwarmup = 300\nmeasure = 1500\n[stats]\nbuffer_sample = 3\ntimeline = 250\nchannel_timeline = true\n",
    );
}

/// SiCortex retry links with bit errors, cut-through (poisoned copies) and a link
/// failing mid-run: the links' events and each link's counters cross between processes.
#[test]
fn sicortex_retry_links_with_errors_and_a_failure_across_processes() {
    same_across_processes(
        "retry",
        "seed = 17\n[topology]\ntype = \"kautz\"\ndegree = 3\ndiameter = 4\n[routing]\ntype = \"source\"\n\
         [router]\ntype = \"crosspoint\"\nvcs = 4\n[channel]\nlatency = 2\n[channel.retry]\nwindow = 15\n[channel.retry.errors]\nber = 3e-4\nctrl_loss = 0.1\n\
         [traffic]\nload = 0.35\npacket_size = { sizes = [1, 4, 12], weights = [1, 1, 1] }\n[sim]\nwarmup = 300\nmeasure = 1500\n\
         [[faults.at]]\ncycle = 700\nlinks = [[20, 1], [75, 0]]\n[stats]\nbuffer_sample = 3\ntimeline = 250\nchannel_timeline = true\n",
    );
}

/// Messages over a Clos with probing adaptive dispersion: reassembly totals gathered
/// from every process, probes and their replies crossing between processes.
#[test]
fn clos_messages_with_probing_dispersion_across_processes() {
    same_across_processes(
        "clos + probing",
        "seed = 11\n[topology]\ntype = \"clos\"\nradix = 16\nstages = 3\nnodes = 64\n\
         [router]\nvcs = 1\nbuffer_depth = 16\nrouting_delay = 0\nvc_alloc_delay = 0\n[routing]\ntype = \"updown\"\nselection = \"probing\"\n\
         [channel]\nflit_bytes = 16\n[traffic]\npattern = { type = \"random_bisection\", index = 2 }\ninjection = { type = \"backlogged\" }\n\
         message = { bytes = 8192, mtu = 256, per_source = 4 }\n[sim]\nwarmup = 0\nmeasure = 1000000\nuntil_done = true\n",
    );
}

/// Lookahead windows across processes: one exchange per 4 cycles.
#[test]
fn long_channels_exchange_once_per_lookahead_window_across_processes() {
    same_across_processes(
        "lookahead 4",
        "seed = 5\n[topology]\ntype = \"torus\"\ndims = [6, 5]\nconcentration = 2\n[router]\ncredit_delay = 4\n[channel]\nlatency = 3\n\
         [traffic]\nload = 0.4\npacket_size = 3\n[sim]\nwarmup = 301\nmeasure = 1503\nwatchdog = 499\n",
    );
}

/// Metapackets: their sums cross processes, and the rounds finished at every process
/// reach every process's controller.
#[test]
fn central_routers_with_metapackets_across_processes() {
    same_across_processes(
        "metapackets",
        "seed = 21\n[topology]\ntype = \"torus\"\ndims = [8, 8]\n[router]\ntype = \"central\"\n[routing]\ntype = \"adaptive\"\ndeadlock = \"recovery\"\n\
         [congestion]\npolicy = \"tune\"\ndistribution = \"metapackets\"\n[traffic]\nload = 0.7\npacket_size = 16\nsource_queue = 1\n[sim]\nwarmup = 300\nmeasure = 2000\ndrain_limit = 0\n",
    );
}

/// XT dateline drops across processes, on the input-queued and the buffered-crossbar
/// (SeaStar) routers: tables rewritten to VC1 everywhere, so packets passing a dateline
/// node are dropped; the drops (count and first) are gathered from every process.
#[test]
fn dateline_drops_across_processes() {
    let dir = std::env::temp_dir().join(format!("flitsim-distributed-drops-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("upper.tab");
    let base = "seed = 23\n[topology]\ntype = \"cube\"\ndims = [4, 4]\nwrap = [true, true]\n[router]\nvcs = 2\n[routing]\ntype = \"table\"\nvc_policy = \"v3\"\n\
                [traffic]\nload = 0.3\npacket_size = 3\npackets_per_source = 40\n[sim]\nwarmup = 0\nmeasure = 4000\n";
    common::write_upper_vc_tables(base, &file);
    let dropping = base.replace(
        "vc_policy = \"v3\"\n",
        &format!("vc_policy = \"v3\"\ndateline_errors = \"drop\"\ntables = {:?}\n", file.to_str().unwrap()),
    );
    let seastar = dropping.replace("[router]\n", "[router]\ntype = \"buffered_crossbar\"\n");
    for (name, toml) in [("input-queued drops", &dropping), ("SeaStar drops", &seastar)] {
        let (one, _) = report(toml, 1);
        assert!(one["dateline_drops"]["packets"].as_u64().unwrap() > 0, "{name}: nothing dropped");
        same_across_processes(name, toml);
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_network_that_cannot_be_split_runs_whole_on_every_process() {
    let toml = "[topology]\ntype = \"torus\"\ndims = [4, 4]\n[sim]\ncheck = true\nwarmup = 10\nmeasure = 100\n";
    let spec = Config::from_toml(toml, &[]).unwrap().validate().unwrap();
    let mut sim = Simulation::new(spec).unwrap();
    let mail = Arc::new(Mailbox::new(1, 2));
    let why = sim.set_peers(Box::new(ThreadPeers { rank: 0, size: 2, mail })).unwrap();
    assert!(why.is_some_and(|w| w.contains("check mode")), "{why:?}");
    assert_eq!(sim.processes(), 1);
}
