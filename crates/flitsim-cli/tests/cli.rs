//! End-to-end tests of the `flitsim` binary: exit codes, messages, files written, and
//! the validation study as assertions.

use std::process::Command;

fn flitsim() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_flitsim"));
    c.current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
    c
}

/// A fresh temporary directory `flitsim-TAG-PID` holding `config.toml` with `toml`.
fn config_file(tag: &str, toml: &str) -> (std::path::PathBuf, std::path::PathBuf) {
    let dir = std::env::temp_dir().join(format!("flitsim-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cfg = dir.join("config.toml");
    std::fs::write(&cfg, toml).unwrap();
    (dir, cfg)
}

fn run(args: &[&str]) -> (i32, String, String) {
    let out = flitsim().args(args).output().expect("flitsim runs");
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).to_string(), String::from_utf8_lossy(&out.stderr).to_string())
}

#[test]
fn default_run_prints_a_summary_and_writes_json() {
    let dir = std::env::temp_dir().join(format!("flitsim-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("r.json");
    let (code, stdout, stderr) = run(&["run", "--set", "sim.measure=2000", "--out", out.to_str().unwrap()]);
    assert_eq!(code, 0);
    // The default 8x8 torus (64 input-queued routers) runs on every core, and says so.
    if std::thread::available_parallelism().map_or(1, |n| n.get()) > 1 {
        assert!(stderr.contains("threads (chosen for this network's size"), "{stderr}");
    }
    assert!(stdout.contains("8x8 torus"), "{stdout}");
    assert!(stdout.contains("packet latency"), "{stdout}");
    let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(json["seed"], 1);
    assert!(json["version"].is_string());
    assert_eq!(json["config"]["sim"]["measure"], 2000);
    let acc = json["stats"]["accepted"]["mean"].as_f64().unwrap();
    assert!((acc - 0.3).abs() < 0.02, "accepted {acc}");
    assert!(!stdout.contains("stats.timeline"), "{stdout}");
    // With a timeline: one bar per bin (the run's 3,000-odd cycles in bins of 100).
    let (code, stdout, _) = run(&["run", "--set", "sim.measure=2000", "--set", "stats.timeline=100"]);
    assert_eq!(code, 0);
    let line = stdout.lines().find(|l| l.starts_with("accepted per 100 cycles")).unwrap_or_else(|| panic!("{stdout}"));
    let bars = line.rsplit(' ').next().unwrap().chars().count();
    assert!((30..=60).contains(&bars), "{line}");
}

#[test]
fn bad_config_exits_2_and_names_the_field() {
    let (code, _, err) = run(&["run", "--set", "traffic.load=1.5"]);
    assert_eq!(code, 2);
    assert!(err.contains("traffic.load"), "{err}");
    let (code, _, err) = run(&["validate", "--set", "router.type=warp"]);
    assert_eq!(code, 2);
    assert!(err.contains("input_queued"), "valid choices listed: {err}");
    let (code, _, err) = run(&["run", "no/such/file.toml"]);
    assert_eq!(code, 2);
    assert!(err.contains("cannot read config"), "{err}");
    // Not a config: refused before it fills memory.
    if std::path::Path::new("/dev/zero").exists() {
        let (code, _, err) = run(&["validate", "/dev/zero"]);
        assert_eq!(code, 2);
        assert!(err.contains("larger than 16 MiB"), "{err}");
    }
}

#[test]
fn validate_summarises_the_config_readably() {
    // A tiny load in scientific notation, not spelled out in 300 digits.
    let (code, out, err) = run(&["validate", "--set", "traffic.load=1e-300"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("load 1e-300 flits/node/cycle"), "{out}");
    let (code, out, _) = run(&["validate", "--set", "traffic.load=0.25"]);
    assert_eq!(code, 0);
    assert!(out.contains("8x8 torus") && out.contains("load 0.25 flits/node/cycle"), "{out}");
}

/// `flitsim ARGS` exits with status 2 and an error containing `message`.
fn refused(args: &[&str], message: &str) {
    let (code, _, err) = run(args);
    assert_eq!(code, 2, "{args:?}: {err}");
    assert!(err.contains(message), "{args:?}: {err}");
}

#[test]
fn booksim_comparison_arguments_are_checked() {
    // Rounds without a BookSim2 binary, or a quick (shortened) comparison, would compare
    // nothing or unequal runs.
    refused(&["bench", "--rounds", "2"], "--booksim");
    refused(&["bench", "--booksim", "/bin/true", "--quick"], "cannot be used with");
    refused(&["bench", "--booksim", "no/such/booksim"], "cannot run BookSim2 at no/such/booksim");
    // Something that runs but is not BookSim2.
    if std::path::Path::new("/bin/true").exists() {
        let (code, _, err) = run(&["bench", "--booksim", "/bin/true", "--rounds", "1"]);
        assert_eq!(code, 2);
        assert!(err.contains("did not finish the comparison case"), "{err}");
    }
}

#[test]
fn instruction_counts_are_asked_of_one_thread_cases_only() {
    // Callgrind serialises threads: a two-thread case would count its spinning.
    refused(&["bench", "--instructions", "--case", "booksim-mesh8x8-2t"], "runs on 2 threads; instructions are counted on one");
    refused(&["bench", "--instructions", "--case", "mesh"], "unknown bench case \"mesh\"");
    refused(&["bench", "--instructions", "--quick"], "cannot be used with");
}

#[test]
fn topo_prints_closed_form_properties() {
    let (code, out, _) = run(&["topo", "--set", "topology.type=torus", "--set", "topology.dims=[11,12,16]", "--json"]);
    assert_eq!(code, 0);
    let s: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(s["nodes"], 2112);
    assert_eq!(s["router_radix"], 7);
    // Diameter: 5 + 6 + 8.
    assert_eq!(s["diameter"], 19);
    // Mean torus ring distance: k=11 -> 30/11, k=12 -> 3, k=16 -> 4.
    let avg = s["avg_hops"].as_f64().unwrap();
    assert!((avg - (30.0 / 11.0 + 3.0 + 4.0)).abs() < 1e-9, "{avg}");
    // Bisection across z (k=16): 4 * 2112/16 channels.
    assert_eq!(s["bisection_channels"], 528);
}

#[test]
fn list_shows_every_registered_component() {
    let (code, out, _) = run(&["list"]);
    assert_eq!(code, 0);
    for name in ["torus", "mesh", "cube", "crossbar", "dor", "input_queued", "uniform", "tornado", "hotspot", "bernoulli", "on_off"] {
        assert!(out.contains(name), "missing {name} in:\n{out}");
    }
}

#[test]
fn packets_lost_to_failures_are_in_the_summary() {
    // Two links of K(3,3) fail for good at cycle 300 under load: the packets in their
    // replay buffers are lost, and the summary says so beside the delivered count.
    let (dir, cfg) = config_file(
        "lost",
        "seed = 7\n[topology]\ntype = \"kautz\"\ndegree = 3\ndiameter = 3\n[routing]\ntype = \"source\"\n\
         [router]\ntype = \"crosspoint\"\nvcs = 3\n[channel]\nlatency = 2\n[channel.retry.errors]\nber = 2e-5\n\
         [traffic]\nload = 0.5\npackets_per_source = 150\npacket_size = 12\n[sim]\nwarmup = 0\nmeasure = 3000\n\
         [[faults.at]]\ncycle = 300\nlinks = [[5, 1], [20, 0]]\n",
    );
    let json = dir.join("lost.json");
    let (code, out, err) = run(&["run", cfg.to_str().unwrap(), "-o", json.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let r: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let lost = r["counters"]["packets_lost"].as_u64().unwrap();
    assert!(lost > 0, "this failure loses packets: {}", r["counters"]);
    let flits = r["counters"]["flits_lost"].as_u64().unwrap();
    assert!(out.contains(&format!("LOST              {lost} packets ({flits} flits")), "{out}");
}

#[test]
fn a_sweep_goes_on_past_points_that_deadlock() {
    // An 8-ring with one VC and no datelines at load 0.9: tornado traffic (3 hops +)
    // closes the ring's channel cycle and deadlocks for any seed (the engine's watchdog
    // tests); neighbour traffic (1 hop) cannot. The good point is written, the other is
    // listed, and the exit status says not every point ran.
    let (dir, cfg) = config_file(
        "sweep-dl",
        "[topology]\ntype = \"torus\"\ndims = [8]\n[router]\nvcs = 1\nbuffer_depth = 2\n[routing]\ntype = \"dor\"\ndatelines = false\n\
         [traffic]\nload = 0.9\npacket_size = 8\n[sim]\nwarmup = 200\nmeasure = 2000\ndrain_limit = 500\nwatchdog = 200\n",
    );
    let out = dir.join("out");
    let grid = "traffic.pattern={type=\"neighbor\"},{type=\"tornado\"}";
    let (code, _, err) = run(&["sweep", cfg.to_str().unwrap(), "--grid", grid, "--loads", "0.9", "-j", "1", "-o", out.to_str().unwrap()]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("1 of 2 points failed"), "{err}");
    assert!(err.contains("tornado") && err.contains("deadlock detected"), "{err}");
    let csv = std::fs::read_to_string(out.join("sweep.csv")).unwrap();
    assert_eq!(csv.lines().count(), 2, "{csv}");
    assert!(csv.lines().nth(1).unwrap().contains("neighbor"), "{csv}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn sweeps_too_large_or_with_bad_job_counts_are_refused() {
    // Grid x seeds x loads above the cap: refused before any point runs or any memory
    // is taken for the points.
    let (code, _, err) = run(&["sweep", "--loads", "0.1:0.5:0.1", "--seeds", "30000", "-o", "/nonexistent/never-written"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("150000 points"), "{err}");
    for j in ["0", "100000"] {
        let (code, _, err) = run(&["sweep", "-j", j, "--loads", "0.1"]);
        assert_eq!(code, 2, "-j {j}: {err}");
        assert!(err.contains("--jobs"), "{err}");
        let (code, _, err) = run(&["reproduce", "validation", "-j", j]);
        assert_eq!(code, 2, "-j {j}: {err}");
    }
    // A load beyond what a channel carries, and a seed given twice, before any point runs.
    let refused: [(&[&str], &str); 2] = [(&["--loads", "1.5"], "from 0 to 1"), (&["--seeds", "1,2,1", "--loads", "0.1"], "seed 1 twice")];
    for (args, says) in refused {
        let (code, out, err) = run(&[&["sweep", "-o", "/nonexistent/never-written"], args].concat());
        assert_eq!(code, 2, "{err}");
        assert!(err.contains(says) && out.is_empty(), "{err}");
    }
    // A negative start is a bad range, not an unknown flag.
    let (code, _, err) = run(&["sweep", "--loads", "-0.1:0.5:0.1"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("START:STOP:STEP"), "{err}");
}

#[test]
fn sweep_writes_csv_json_and_svg() {
    let dir = std::env::temp_dir().join(format!("flitsim-sweep-{}", std::process::id()));
    let (code, out, err) =
        run(&["sweep", "--set", "sim.measure=1000", "--set", "sim.warmup=200", "--loads", "0.1:0.3:0.1", "--out", dir.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("0.300"), "{out}");
    let csv = std::fs::read_to_string(dir.join("sweep.csv")).unwrap();
    assert_eq!(csv.lines().count(), 4, "{csv}");
    assert!(std::fs::read_to_string(dir.join("sweep.svg")).unwrap().contains("<svg"));
    let j: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(dir.join("sweep.json")).unwrap()).unwrap();
    assert_eq!(j["rows"].as_array().unwrap().len(), 3);
}

#[test]
fn sweep_grid_seeds_and_store_resume() {
    let dir = std::env::temp_dir().join(format!("flitsim-sweep-store-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let store = dir.join("store");
    let args = |out: &str| -> Vec<String> {
        [
            "sweep",
            "--set",
            "topology.dims=[4,4]",
            "--set",
            "sim.measure=500",
            "--set",
            "sim.warmup=100",
            "--grid",
            "router.vcs=2,4",
            "--loads",
            "0.1:0.2:0.1",
            "--seeds",
            "2",
        ]
        .iter()
        .map(|s| s.to_string())
        .chain([
            "--store".to_string(),
            store.to_str().unwrap().to_string(),
            "--out".to_string(),
            dir.join(out).to_str().unwrap().to_string(),
        ])
        .collect()
    };
    let a: Vec<String> = args("a");
    let (code, out, err) = run(&a.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("8 run now, 0 reused"), "{out}");
    let b: Vec<String> = args("b");
    let (code, out, err) = run(&b.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("0 run now, 8 reused"), "{out}");
    let csv_a = std::fs::read_to_string(dir.join("a/sweep.csv")).unwrap();
    assert_eq!(csv_a, std::fs::read_to_string(dir.join("b/sweep.csv")).unwrap());
    assert!(csv_a.starts_with("\"router.vcs\",seed,load,"), "{csv_a}");
    // Rows: vcs, then load, then seed; 8 results stored, one file each.
    let seeds: Vec<&str> = csv_a.lines().skip(1).map(|l| l.split(',').nth(1).unwrap()).collect();
    assert_eq!(seeds, ["1", "2", "1", "2", "1", "2", "1", "2"]);
    let stored = std::fs::read_dir(store.join("results")).unwrap().flat_map(|d| std::fs::read_dir(d.unwrap().path()).unwrap()).count();
    assert_eq!(stored, 8);
    let (code, _, err) = run(&["sweep", "--grid", "traffic.load=0.1,0.2", "--loads", "0.1", "--out", dir.join("c").to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("not both"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn validation_study_passes() {
    let (code, out, err) = run(&["reproduce", "validation"]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("reference numbers reproduced in magnitude") && out.contains(" 0 not reproduced"), "{out}");
    assert!(!out.contains("FAIL"), "{out}");
}

#[test]
fn output_that_cannot_be_written_ends_cleanly() {
    // A reader that goes away (`flitsim ... | head`): a quiet exit with SIGPIPE's status.
    // (Over 64 KiB of JSON, more than a pipe holds, so the write fails after the drop.)
    let mut child = flitsim()
        .args(["vc-balance", "--json", "--set", "topology.dims=[16,16]"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(141), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.stderr.is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
    // A full disk: exit status 2 and the cause, no panic.
    if std::path::Path::new("/dev/full").exists() {
        let full = std::fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
        let out = flitsim().args(["list"]).stdout(full).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains("cannot write the output") && !err.contains("panicked"), "{err}");
    }
}

/// Output paths are checked before the simulation, not after it: a run or sweep that
/// could not keep its results does not start (nothing printed, no progress).
#[test]
fn output_paths_are_checked_before_anything_runs() {
    let (dir, _) = config_file("outpaths", "");
    let missing = dir.join("no-such-folder").join("r.json");
    let (code, out, err) = run(&["run", "--out", missing.to_str().unwrap()]);
    assert_eq!(code, 2, "{out}\n{err}");
    assert!(err.contains("--out") && err.contains("does not exist"), "{err}");
    assert!(out.is_empty() && !err.contains("packet latency"), "the run started: {out}");
    let (code, out, err) = run(&["run", "--out", dir.to_str().unwrap()]);
    assert_eq!(code, 2, "{out}\n{err}");
    assert!(err.contains("is a directory"), "{err}");
    // A sweep's --out and --store must be directories it can write.
    let file = dir.join("config.toml");
    let elsewhere = dir.join("sweep");
    for opt in ["--out", "--store"] {
        let other = if opt == "--out" { "--store" } else { "--out" };
        let (code, out, err) = run(&["sweep", "--loads", "0.1", other, elsewhere.to_str().unwrap(), opt, file.to_str().unwrap()]);
        assert_eq!(code, 2, "{opt}: {out}\n{err}");
        assert!(err.contains(opt) && err.contains("is a file"), "{opt}: {err}");
        assert!(!out.contains("0.100"), "{opt}: the sweep ran: {out}");
    }
    let (code, _, err) = run(&["reproduce", "validation", "--out", file.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--out") && err.contains("is a file") && !err.contains("running"), "{err}");
}

#[test]
fn vc_balance_outside_cubes_is_a_clear_error() {
    let (code, _, err) =
        run(&["vc-balance", "--set", "topology={type=\"kautz\",degree=2,diameter=3}", "--set", "routing={type=\"source\"}"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("topology.type") && err.contains("k-ary n-cube"), "{err}");
    // With a failed node, the pairs the routes do not connect carry no traffic and are
    // left out of the analysis, as `run` leaves them out of the traffic.
    let faulty = [
        "--set",
        "routing={type=\"table\",vc_policy=\"v3\"}",
        "--set",
        "router.vcs=2",
        "--set",
        "faults.nodes=[3]",
        "--set",
        "faults.unroutable=\"skip\"",
    ];
    let (code, out, err) = run(&[&["vc-balance", "--json"][..], &faulty[..]].concat());
    assert_eq!(code, 0, "{err}");
    let b: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(b["dims"][0]["links"].as_u64().unwrap() > 0, "{out}");
    let (code, _, err) = run(&[
        &["run", "-q", "--set", "sim.measure=500", "--set", "stats.vc_balance=true", "--set", "stats.channel_counters=true"][..],
        &faulty[..],
    ]
    .concat());
    assert_eq!(code, 0, "{err}");
}

/// `flitsim draw` hands the drawing to the Python package; before that it checks the
/// report is a file, and a Python it cannot run is named with the fix.
#[test]
fn draw_names_a_missing_report_and_a_missing_python() {
    let (code, _, err) = run(&["draw", "no/such/report.json"]);
    assert_eq!(code, 2);
    assert!(err.starts_with("error: no/such/report.json is not a file") && err.contains("flitsim run CONFIG --out REPORT.json"), "{err}");
    let (dir, cfg) = config_file("draw", "[topology]\ntype = \"torus\"\ndims = [4, 4]\n[sim]\nwarmup = 10\nmeasure = 50\n");
    let report = dir.join("r.json");
    let (code, _, err) = run(&["run", cfg.to_str().unwrap(), "-q", "--out", report.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let out = flitsim().args(["draw", report.to_str().unwrap()]).env("FLITSIM_PYTHON", dir.join("no-python")).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2));
    assert!(err.contains("cannot run") && err.contains("`flitsim draw` needs Python with the flitsim package"), "{err}");
    assert!(err.contains("pip install .") && err.contains("FLITSIM_PYTHON"), "{err}");
}

#[test]
fn reproduce_unknown_study_is_a_clear_error() {
    let (code, _, err) = run(&["reproduce", "nonesuch"]);
    assert_eq!(code, 2);
    assert!(err.contains("reproduce list"), "{err}");
    // Outside the repository root the experiments directory is not found: say so.
    for what in ["validation", "list"] {
        let (code, _, err) = run(&["reproduce", what, "--dir", "no/such/experiments"]);
        assert_eq!(code, 2);
        assert!(err.contains("no experiments directory") && err.contains("--dir"), "{err}");
    }
}

#[test]
fn config_reference_is_generated_from_the_registry() {
    let (code, out, _) = run(&["list", "--markdown"]);
    assert_eq!(code, 0);
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/reference/config.md")).unwrap();
    assert_eq!(doc, out, "docs/reference/config.md is stale: regenerate with `flitsim list --markdown > docs/reference/config.md`");
}

#[test]
fn aging_params_reproduces_the_seastar_paper() {
    // Section 3 of the SeaStar age-arbitration paper: 11,12,16-ary 3-D torus.
    let (code, out, err) = run(&["aging-params", "--radix", "11,12,16", "--json"]);
    assert_eq!(code, 0, "{err}");
    let d: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(d["biases"], serde_json::json!([3, 2, 1]));
    assert_eq!(d["hops_total"], 10);
    assert_eq!(d["t_bias"], 19);
    assert_eq!(d["ticks_per_hop"], 11);
    assert_eq!(d["queueing_per_hop"], 198);
    assert_eq!(d["clock_period"], 18);
    assert_eq!(d["dims"][0]["hops_rounded"], 3);
    assert_eq!(d["dims"][2]["utilisation_gbs"], 2.0);

    let (code, out, err) = run(&["aging-params", "--radix", "11,12,16"]);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    for want in [
        "T_bias = 3x3 + 3x2 + 4x1 = 19",
        "ticks per hop = round((128 - 19) / 10) = round(10.9) = 11",
        "queued packets per hop = floor(96/9) + floor(16/9) = 10 + 1 = 11",
        "period = round(11 x 18 / 11) = round(18) = 18",
        "recommendation: REQ_AGE_BIAS x=3 y=2 z=1, AGE_CLOCK_PERIOD = 18",
        "paper: biases 3,2,1, T_bias 19, period 18 (matches)",
    ] {
        assert!(lines.contains(&want), "missing line `{want}` in:\n{out}");
    }

    // A 2-D mesh named by dimension: no paper comparison, different numbers.
    let (code, out, _) = run(&["aging-params", "--radix", "8,8", "--mesh", "x,y"]);
    assert_eq!(code, 0);
    assert!(out.contains("REQ_AGE_BIAS x=2 y=1, AGE_CLOCK_PERIOD = 10"), "{out}");
    assert!(!out.contains("paper:"), "{out}");

    // Bad input: non-zero exit, the field is named.
    let (code, _, err) = run(&["aging-params", "--radix", "11,1,16"]);
    assert_ne!(code, 0);
    assert!(err.contains("--radix") && err.contains("radix[1]") && err.contains("at least 2"), "{err}");
    let (code, _, err) = run(&["aging-params", "--radix", "11,12,16", "--mesh", "w"]);
    assert_ne!(code, 0);
    assert!(err.contains("--mesh"), "{err}");
}

#[test]
fn routes_prints_every_hop_with_its_table_and_vc() {
    // 4x4x4 torus with one-plane regions: node 3 = (3,0,0) to node 60 = (0,3,3). x goes
    // + over the wrap (dateline: upper VCs), then y and z go - over their wraps; the
    // first hop is outside the destination's YZ plane, so the global table answers.
    let (dir, cfg) =
        config_file("routes", "[topology]\ntype = \"torus\"\ndims = [4, 4, 4]\n[routing]\ntype = \"table\"\nregion_size = 16\n");
    let (code, out, err) = run(&["routes", cfg.to_str().unwrap(), "--from", "3", "--to", "60", "--json"]);
    assert_eq!(code, 0, "{err}");
    let d: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(d["hops"], 3);
    let hops = d["path"].as_array().unwrap();
    let col = |k: &str| hops.iter().map(|h| h[k].clone()).collect::<Vec<_>>();
    assert_eq!(col("out_port"), ["+x", "-y", "-z", "local0"].map(serde_json::Value::from).to_vec());
    assert_eq!(col("table"), ["global", "local", "local", "local"].map(serde_json::Value::from).to_vec());
    assert_eq!(col("vc"), [2, 2, 2, 2].map(serde_json::Value::from).to_vec());
    // Bad nodes are refused with the flag named.
    let (code, _, err) = run(&["routes", cfg.to_str().unwrap(), "--from", "64", "--to", "0"]);
    assert_ne!(code, 0);
    assert!(err.contains("--from 64") && err.contains("0..63"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn vc_balance_reports_the_hand_worked_ring() {
    // The 4-ring of routing::vc_balance's unit test: initial policy, dateline node 3:
    // + links 1/3, 1/3, 1, 1 and - links all 1: mean 5/6, bins [0, 2, 0, 6].
    let (dir, cfg) = config_file("vcb", "[topology]\ntype = \"torus\"\ndims = [4]\n[router]\nvcs = 2\n[routing]\ntype = \"table\"\nvc_policy = \"initial\"\ndateline = [3]\n");
    let (code, out, err) = run(&["vc-balance", cfg.to_str().unwrap(), "--json"]);
    assert_eq!(code, 0, "{err}");
    let d: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!((d["dims"][0]["mean"].as_f64().unwrap() - 5.0 / 6.0).abs() < 1e-12, "{d}");
    assert_eq!(d["dims"][0]["histogram"], serde_json::json!([0, 2, 0, 6]));
    let (code, out, _) = run(&["vc-balance", cfg.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert!(out.contains("x          8    0.833"), "{out}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn routes_check_proves_datelines_and_finds_the_ring_cycle() {
    let (dir, cfg) = config_file(
        "cdg",
        "[topology]\ntype = \"torus\"\ndims = [4, 4]\n[router]\nvcs = 2\n[routing]\ntype = \"table\"\nvc_policy = \"v3\"\n",
    );
    let (code, out, err) = run(&["routes", cfg.to_str().unwrap(), "--check"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("acyclic") && out.contains("every node pair is connected"), "{out}");
    let (code, out, _) = run(&[
        "routes",
        cfg.to_str().unwrap(),
        "--check",
        "--json",
        "--set",
        "routing.vc_policy=\"dor\"",
        "--set",
        "routing.datelines=false",
    ]);
    assert_eq!(code, 1, "a torus without datelines must fail the check");
    let d: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(d["acyclic"], false);
    // The cycle goes once around a 4-ring: 4 dependencies, the first vertex repeated.
    let cycle = d["cycle"].as_array().unwrap();
    assert_eq!(cycle.len(), 5, "{cycle:?}");
    assert_eq!(cycle[0], cycle[4]);
    let (code, _, err) = run(&["routes", cfg.to_str().unwrap()]);
    assert_ne!(code, 0);
    assert!(err.contains("--from") || err.contains("required"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

/// A study's row arithmetic on numbers known in advance: the offered load echoed in the
/// report (`config.traffic.load`), scaled (`scale`), as a ratio to a baseline whose value
/// is scaled too (`relative_scale`); `relative_scale` without a baseline is refused; a
/// row over seeds runs itself and its baseline once per seed and compares means.
#[test]
fn reproduce_rows_scale_and_compare_to_a_scaled_baseline() {
    let root = std::env::temp_dir().join(format!("flitsim-rows-{}", std::process::id()));
    let study = root.join("arith");
    std::fs::create_dir_all(&study).unwrap();
    std::fs::write(study.join("net.toml"), "[topology]\ntype = \"crossbar\"\nports = 2\n[sim]\nwarmup = 10\nmeasure = 20\n").unwrap();
    let row = |name: &str, extra: &str| {
        format!("[[row]]\nname = \"{name}\"\nconfig = \"net.toml\"\nset = ['traffic.load=0.2']\nmetric = \"config.traffic.load\"\nsource = \"by hand\"\n{extra}\n")
    };
    let rows = [
        // 0.2 x 10 = 2.
        row("scaled", "scale = 10.0\nreference = 2.0\ntolerance = 1e-9"),
        // 0.2 / (0.1 x 4) = 0.5; `scale` cancels in the ratio.
        row("ratio", "scale = 3.0\nrelative_to = ['traffic.load=0.1']\nrelative_scale = 4.0\nreference = 0.5\ntolerance = 1e-9"),
    ];
    std::fs::write(study.join("experiment.toml"), format!("title = \"arithmetic\"\n{}", rows.concat())).unwrap();
    let (code, out, err) = run(&["reproduce", "arith", "--dir", root.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("2 of 2 reference numbers reproduced in magnitude, 0 in direction only, 0 not reproduced\n"), "{out}");
    // Over seeds 1-3 the report's seed averages 2; relative, the row (seed / 0.2) over
    // its baseline (seed / 0.1) is a ratio of means, 10 / 20. A baseline left at the
    // config's one seed (1) would give 10 / 10, a row left at it 5 / 10.
    let seeded = |name: &str, extra: &str| {
        format!("[[row]]\nname = \"{name}\"\nconfig = \"net.toml\"\nset = ['traffic.load=0.2']\nmetric = \"seed\"\nseeds = 3\nsource = \"by hand\"\n{extra}\n")
    };
    let rows = [
        seeded("mean seed", "reference = 2.0\ntolerance = 1e-9"),
        seeded(
            "ratio of means",
            "divide_by = \"config.traffic.load\"\nrelative_to = ['traffic.load=0.1']\nreference = 0.5\ntolerance = 1e-9",
        ),
        // The config's own seed is 1: this run is seed 1's of the rows above, and shares
        // its simulation (6 in all, not 7).
        seeded("one seed", "reference = 1.0\ntolerance = 1e-9").replace("seeds = 3\n", ""),
    ];
    std::fs::write(study.join("experiment.toml"), format!("title = \"seeds\"\n{}", rows.concat())).unwrap();
    let written = root.join("written");
    let (code, out, err) = run(&["reproduce", "arith", "--dir", root.to_str().unwrap(), "--out", written.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(
        out.contains("3 of 3 reference numbers reproduced in magnitude") && out.contains("seeds 1-3: 1.0000 / 2.0000 / 3.0000"),
        "{out}"
    );
    assert!(err.contains("running 6 simulations"), "{err}");
    // reproduction.json names every run of a row: the three seeds, and the baseline's.
    let doc: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(written.join("reproduction.json")).unwrap()).unwrap();
    let ratio = &doc["rows"][1];
    let count = |k: &str| ratio[k].as_array().map_or(0, |a| a.len());
    assert_eq!((count("keys"), count("baseline_keys")), (3, 3), "{ratio}");
    assert_eq!(doc["rows"][2]["keys"][0], doc["rows"][0]["keys"][0], "seed 1's run is the unseeded run");
    for (extra, named) in [
        ("seeds = 0", "seeds = 0"),
        ("over = { key = \"seed\", count = 2 }", "over"),
        ("aggregate = \"min\"", "aggregate"),
        ("relative_to = ['seed=7']", "seed="),
    ] {
        let bad = seeded("bad", "reference = 1.0").replace("seeds = 3", extra);
        let bad = if extra.starts_with("seeds") { bad } else { format!("{bad}seeds = 2\n") };
        std::fs::write(study.join("experiment.toml"), format!("title = \"seeds\"\n{bad}")).unwrap();
        let (code, _, err) = run(&["reproduce", "arith", "--dir", root.to_str().unwrap()]);
        assert_eq!(code, 2, "{extra}: {err}");
        assert!(err.contains(named) && err.contains("\"bad\""), "{extra}: {err}");
    }
    std::fs::write(
        study.join("experiment.toml"),
        format!("title = \"arithmetic\"\n{}", row("orphan", "relative_scale = 2.0\nreference = 1.0")),
    )
    .unwrap();
    let (code, _, err) = run(&["reproduce", "arith", "--dir", root.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("relative_scale") && err.contains("orphan"), "{err}");
    std::fs::remove_dir_all(&root).unwrap();
}

/// flitsim against BookSim2's recorded figures (experiments/validation/booksim/): every
/// row's latency within the tolerance at the recorded loads, stable just below BookSim2's
/// saturation throughput and unstable just above, or a documented reason.
#[test]
fn flitsim_agrees_with_booksims_recorded_figures() {
    let (code, stdout, stderr) = run(&["crosscheck"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(stdout.contains("0 disagree without a documented reason"), "{stdout}");
    assert!(!stdout.contains("not recorded"), "{stdout}");
}

/// The cross-check refuses a matrix it cannot map, naming the row and the parameter.
#[test]
fn crosscheck_names_a_row_it_cannot_map() {
    let (dir, _) = config_file("crosscheck", "");
    let m = dir.join("m.toml");
    let text = "about = \"x\"\nbooksim_commit = \"x\"\nbase = \"topology = mesh; injection_rate_uses_flits = 1;\"\n\
                [protocol]\nzero_load = 0.01\nlatency_factor = 3.0\nresolution = 0.01\nfractions = [0.5]\ntolerance = 0.05\n\
                [[row]]\nname = \"odd\"\nbooksim = \"speculative = 1;\"\n";
    std::fs::write(&m, text).unwrap();
    let (code, _, stderr) = run(&["crosscheck", m.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(stderr.contains("row odd") && stderr.contains("booksim.speculative"), "{stderr}");
    let (code, _, stderr) = run(&["crosscheck", m.to_str().unwrap(), "--booksim", "/nonexistent/booksim", "--only", "odd"]);
    assert_eq!(code, 2, "{stderr}");
}

/// Merge-to-one on an 8-port crossbar: the 7 senders share one ejection channel, so no
/// load above 1/7 flits/node/cycle is sustainable; queueing makes the latency knee
/// (3x zero-load) fall a little below it.
#[test]
fn saturation_search_finds_the_ejection_bound_of_a_merge() {
    let cfg = "[topology]\ntype = \"crossbar\"\nports = 8\n[traffic]\npattern = { type = \"merge_to_one\", dest = 0 }\n[sim]\nwarmup = 2000\nmeasure = 10000\n";
    let (_, file) = config_file("saturation", cfg);
    let (code, stdout, stderr) = run(&["saturation", file.to_str().unwrap(), "--json"]);
    assert_eq!(code, 0, "{stderr}");
    let j: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
    let sat = j["saturation"].as_f64().unwrap();
    assert!((0.85 / 7.0..=1.0 / 7.0 + 0.002).contains(&sat), "{sat}");
}

/// A config's data files are found beside it from any working directory; a path given
/// with --set is the user's, relative to where they typed it.
#[test]
fn data_files_resolve_against_the_config_files_folder() {
    let root = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
    let elsewhere = std::env::temp_dir().join(format!("flitsim-elsewhere-{}", std::process::id()));
    std::fs::create_dir_all(&elsewhere).unwrap();
    for preset in ["trace-halo.toml", "graph-petersen.toml"] {
        let path = root.join("presets").join(preset);
        let out = flitsim().current_dir(&elsewhere).args(["validate", path.to_str().unwrap()]).output().unwrap();
        assert!(out.status.success(), "{preset}: {}", String::from_utf8_lossy(&out.stderr));
    }
    // From the repository root, by a relative path as the README writes it.
    let (code, _, err) = run(&["validate", "presets/trace-halo.toml"]);
    assert_eq!(code, 0, "{err}");
    // An override's path is not joined to the preset's folder.
    let (code, _, err) = run(&["validate", "presets/trace-halo.toml", "--set", "traffic.trace.file=\"halo-8x8.trace\""]);
    assert_ne!(code, 0);
    assert!(err.contains("halo-8x8.trace") && !err.contains("presets/halo-8x8.trace"), "{err}");
    std::fs::remove_dir_all(&elsewhere).ok();
}

/// A network too large for the memory ends every command with a message and exit code 3,
/// never an allocation abort: a 256x256 torus holds at least 64 MiB of input buffers alone
/// (65,536 routers, each with four network inputs of 4 VCs x 8 slots of 8-byte flits),
/// above the 48 MiB limit set here.
#[test]
fn a_network_too_large_for_the_memory_is_refused_with_a_message() {
    let big = ["--set", "topology.dims=[256,256]", "--set", "traffic.load=0.001", "--set", "sim.warmup=0", "--set", "sim.measure=1"];
    for command in [&["validate"][..], &["run", "--threads", "1"][..]] {
        let out = flitsim().env("FLITSIM_MEMORY_LIMIT", "48M").args([command, &big[..]].concat()).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(3), "{command:?}: {err}");
        assert!(err.contains("out of memory") && err.contains("passes the limit of 50.3 MB") && !err.contains("panicked"), "{err}");
    }
    // The same network fits a larger limit, and validate says what it took.
    let out = flitsim().env("FLITSIM_MEMORY_LIMIT", "4G").args([&["validate"][..], &big[..]].concat()).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success() && text.contains("memory: ") && text.contains("of the 4.3 GB this machine has"), "{text}");
    let out = flitsim().env("FLITSIM_MEMORY_LIMIT", "lots").arg("validate").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("FLITSIM_MEMORY_LIMIT=\"lots\" is not a size"));
}

/// `flitsim trace show --collectives` and `flitsim trace convert --window` on a ranks text
/// trace (no otf2 feature needed): the window from world collective 1 to 2 keeps each
/// rank's operations from its second world collective to its third, by hand below.
#[test]
fn trace_windows_are_cut_at_world_collectives() {
    let dir = std::env::temp_dir().join(format!("flitsim-cli-window-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let input = dir.join("in.ranks");
    std::fs::write(
        &input,
        "ranks 2\n0 barrier\n0 send 1 8\n0 allreduce 16\n0 compute 5\n0 send 1 32 tag=4\n0 bcast 8 root=1\n\
         1 barrier\n1 recv 0 8\n1 allreduce 16\n1 recv 0 32 tag=4\n1 bcast 8 root=1\n",
    )
    .unwrap();
    let (code, out, err) = run(&["trace", "show", input.to_str().unwrap(), "--collectives"]);
    assert_eq!(code, 0, "{err}");
    let kinds: Vec<String> = out.lines().skip(1).map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" ")).collect();
    assert_eq!(kinds, ["0 barrier 0", "1 allreduce 16", "2 bcast 8"]);
    let output = dir.join("out.ranks");
    let (code, _, err) = run(&["trace", "convert", input.to_str().unwrap(), "--out", output.to_str().unwrap(), "--window", "1..2"]);
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(&output).unwrap();
    let body: Vec<&str> = text.lines().filter(|l| !l.starts_with('#')).collect();
    assert_eq!(body, ["ranks 2", "0 allreduce 16", "0 compute 5", "0 send 1 32 tag=4", "1 allreduce 16", "1 recv 0 32 tag=4"]);
    let (code, _, err) = run(&["trace", "convert", input.to_str().unwrap(), "--out", output.to_str().unwrap(), "--window", "2..5"]);
    assert_ne!(code, 0);
    assert!(err.contains("--window 2..5: the window 2..5 is not within the program's 3 world collectives"), "{err}");
    let (code, _, err) = run(&["trace", "convert", input.to_str().unwrap(), "--out", output.to_str().unwrap(), "--window", "x"]);
    assert_ne!(code, 0);
    assert!(err.contains("write FROM..TO or FROM.."), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}
