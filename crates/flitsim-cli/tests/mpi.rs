//! One run across MPI processes: `mpirun -np 2 flitsim run CONFIG` writes the
//! report of the one-process run, bit for bit. Built with `--features mpi` (the test
//! command does), these start real Open MPI processes; without the feature, a tool
//! started by `mpirun` must refuse and say how to build it.

use std::path::Path;
use std::process::Command;

fn flitsim() -> Command {
    Command::new(env!("CARGO_BIN_EXE_flitsim"))
}

/// The report in `path`, without the version field.
#[allow(dead_code)]
fn report(path: &Path) -> serde_json::Value {
    let mut v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    v.as_object_mut().unwrap().remove("version");
    v
}

/// `flitsim run CFG -q -o OUT` on `np` MPI processes.
#[cfg(feature = "mpi")]
fn mpirun(np: usize, cfg: &Path, out: &Path) -> std::process::Output {
    Command::new("mpirun")
        .args([
            "--allow-run-as-root",
            "--oversubscribe",
            "-np",
            &np.to_string(),
            env!("CARGO_BIN_EXE_flitsim"),
            "run",
            cfg.to_str().unwrap(),
            "-q",
            "-o",
            out.to_str().unwrap(),
        ])
        .output()
        .expect("mpirun (Open MPI) is installed by ./test.sh")
}

#[cfg(feature = "mpi")]
fn same_with_two_processes(name: &str, toml: &str) {
    same_with_processes(2, name, toml);
}

#[cfg(feature = "mpi")]
fn same_with_processes(np: usize, name: &str, toml: &str) {
    let dir = std::env::temp_dir().join(format!("flitsim-mpi-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cfg = dir.join("run.toml");
    std::fs::write(&cfg, toml).unwrap();
    let (one, two) = (dir.join("one.json"), dir.join("two.json"));
    let out = flitsim().args(["run", cfg.to_str().unwrap(), "-q", "-j", "1", "-o", one.to_str().unwrap()]).output().unwrap();
    assert!(out.status.success(), "{name}: {}", String::from_utf8_lossy(&out.stderr));
    let out = mpirun(np, &cfg, &two);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{name}: mpirun failed: {stderr}");
    assert!(!stderr.contains("runs the whole simulation"), "{name}: the run was not split: {stderr}");
    assert!(!stderr.contains("note:"), "{name}: {stderr}");
    assert_eq!(report(&one), report(&two), "{name}: {np} processes differ from one");
    std::fs::remove_dir_all(&dir).ok();
}

/// NIC route dispersion across processes: probes, their replies and reassembly cross the
/// process boundary. The Clos that flitsim-core's `tests/distributed.rs` splits over its
/// in-process mailbox, here over Open MPI's transport.
#[cfg(feature = "mpi")]
#[test]
fn clos_messages_with_probing_dispersion_across_two_processes() {
    same_with_two_processes(
        "clos",
        "seed = 11\n[topology]\ntype = \"clos\"\nradix = 16\nstages = 3\nnodes = 64\n\
         [router]\nvcs = 1\nbuffer_depth = 16\nrouting_delay = 0\nvc_alloc_delay = 0\n[routing]\ntype = \"updown\"\nselection = \"probing\"\n\
         [channel]\nflit_bytes = 16\n[traffic]\npattern = { type = \"random_bisection\", index = 2 }\ninjection = { type = \"backlogged\" }\n\
         message = { bytes = 8192, mtu = 256, per_source = 4 }\n[sim]\nwarmup = 0\nmeasure = 1000000\nuntil_done = true\n",
    );
}

/// Three slabs of a mesh: the outer two share no channel, so each process sends its
/// crossings to its neighbours only (MPI_Alltoallv), and the report is still the one
/// process's.
#[cfg(feature = "mpi")]
#[test]
fn a_mesh_across_three_processes_reports_the_one_process_run() {
    same_with_processes(3, "mesh3", "seed = 5\n[topology]\ntype = \"mesh\"\ndims = [8, 8]\n[traffic]\nload = 0.35\npacket_size = 3\n[sim]\nwarmup = 300\nmeasure = 2000\n");
}

#[cfg(feature = "mpi")]
#[test]
fn a_torus_across_two_processes_reports_the_one_process_run() {
    same_with_two_processes("torus", "seed = 4\n[topology]\ntype = \"torus\"\ndims = [8, 6]\nconcentration = 2\n[traffic]\nload = 0.3\npacket_size = 4\n[sim]\nwarmup = 300\nmeasure = 2000\n");
}

#[cfg(feature = "mpi")]
#[test]
fn a_mesh_with_faults_and_a_finite_workload_across_two_processes() {
    same_with_two_processes(
        "mesh",
        "seed = 5\n[topology]\ntype = \"mesh\"\ndims = [6, 6]\n[routing]\ntype = \"table\"\nvc_policy = \"v3\"\n[faults]\nlinks = [[7, 0], [20, 1]]\n\
         [router]\nvcs = 2\nflow_control = \"virtual_cut_through\"\nbuffer_depth = 8\n[traffic]\nload = 0.3\npackets_per_source = 60\npacket_size = { sizes = [1, 5], weights = [1, 1] }\n\
         [sim]\nwarmup = 100\nmeasure = 5000\n",
    );
}

#[cfg(feature = "mpi")]
#[test]
fn seastar_routers_across_two_processes() {
    same_with_two_processes(
        "seastar",
        "seed = 12\n[topology]\ntype = \"torus\"\ndims = [5, 4, 4]\n[router]\ntype = \"buffered_crossbar\"\nage_clock_period = 8\n[routing]\nclasses = 2\n\
         [traffic]\nload = 0.3\npacket_size = 9\n[sim]\nwarmup = 300\nmeasure = 1500\n",
    );
}

/// Central-arbiter routers with Disha and the self-tuned threshold: the side-band count
/// is summed over the ranks (an MPI reduction) and the recovery token passes between them.
#[cfg(feature = "mpi")]
#[test]
fn central_routers_with_disha_and_tuning_across_two_processes() {
    same_with_two_processes(
        "central",
        "seed = 21\n[topology]\ntype = \"torus\"\ndims = [8, 8]\n[router]\ntype = \"central\"\n[routing]\ntype = \"adaptive\"\ndeadlock = \"recovery\"\n\
         [congestion]\npolicy = \"tune\"\n[traffic]\nload = 0.7\npacket_size = 16\nsource_queue = 1\n[sim]\nwarmup = 300\nmeasure = 2000\ndrain_limit = 0\n",
    );
}

/// Metapackets (the estimate gathered in-band) across two ranks.
#[cfg(feature = "mpi")]
#[test]
fn central_routers_with_metapackets_across_two_processes() {
    same_with_two_processes(
        "metapackets",
        "seed = 21\n[topology]\ntype = \"torus\"\ndims = [8, 8]\n[router]\ntype = \"central\"\n[routing]\ntype = \"adaptive\"\ndeadlock = \"recovery\"\n\
         [congestion]\npolicy = \"tune\"\ndistribution = \"metapackets\"\n[traffic]\nload = 0.7\npacket_size = 16\nsource_queue = 1\n[sim]\nwarmup = 300\nmeasure = 2000\ndrain_limit = 0\n",
    );
}

/// SiCortex crosspoint switches on a Kautz graph with multi-rail routes.
#[cfg(feature = "mpi")]
#[test]
fn sicortex_crosspoint_switches_across_two_processes() {
    same_with_two_processes(
        "crosspoint",
        "seed = 9\n[topology]\ntype = \"kautz\"\ndegree = 3\ndiameter = 4\n[routing]\ntype = \"source\"\nrails = 3\n\
         [router]\ntype = \"crosspoint\"\nvcs = 4\nxb_packets = 5\n[traffic]\nload = 0.6\npacket_size = 6\n[sim]\nwarmup = 300\nmeasure = 1500\n",
    );
}

/// SiCortex retry links with bit errors, poisoned copies and a link failing mid-run.
#[cfg(feature = "mpi")]
#[test]
fn sicortex_retry_links_across_two_processes() {
    same_with_two_processes(
        "retry",
        "seed = 17\n[topology]\ntype = \"kautz\"\ndegree = 3\ndiameter = 4\n[routing]\ntype = \"source\"\n\
         [router]\ntype = \"crosspoint\"\nvcs = 4\n[channel]\nlatency = 2\n[channel.retry]\nwindow = 15\n[channel.retry.errors]\nber = 3e-4\n\
         [traffic]\nload = 0.35\npacket_size = { sizes = [1, 4, 12], weights = [1, 1, 1] }\n[sim]\nwarmup = 300\nmeasure = 1500\n\
         [[faults.at]]\ncycle = 700\nlinks = [[20, 1]]\n",
    );
}

/// A run that cannot be split (check mode verifies the whole network every cycle) is
/// simulated whole by every process; process 0 says so once and writes the same report.
#[cfg(feature = "mpi")]
#[test]
fn a_run_that_cannot_be_split_is_run_whole_and_said_once() {
    let dir = std::env::temp_dir().join(format!("flitsim-mpi-{}-whole", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cfg = dir.join("run.toml");
    std::fs::write(&cfg, "[topology]\ntype = \"torus\"\ndims = [4, 4]\n[sim]\ncheck = true\nwarmup = 100\nmeasure = 500\n").unwrap();
    let (one, two) = (dir.join("one.json"), dir.join("two.json"));
    assert!(flitsim().args(["run", cfg.to_str().unwrap(), "-q", "-o", one.to_str().unwrap()]).status().unwrap().success());
    let out = mpirun(2, &cfg, &two);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(stderr.matches("runs the whole simulation").count(), 1, "{stderr}");
    assert!(stderr.contains("check mode"), "{stderr}");
    assert_eq!(report(&one), report(&two));
    std::fs::remove_dir_all(&dir).ok();
}

/// A tool built without MPI, started as one of several processes, refuses with the fix.
#[cfg(not(feature = "mpi"))]
#[test]
fn without_the_mpi_feature_a_run_under_mpirun_is_refused() {
    let out = flitsim().args(["run", "-q"]).env("OMPI_COMM_WORLD_SIZE", "2").env("OMPI_COMM_WORLD_RANK", "0").output().unwrap();
    assert!(!out.status.success());
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(e.contains("built without MPI") && e.contains("--features mpi"), "{e}");
}
