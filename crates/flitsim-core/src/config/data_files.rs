//! Data files a config names (routing tables, a graph's links, a trace): which keys
//! name them, where a relative path is looked for, and what a missing one says.

use std::path::Path;

/// The key paths of the data files a config can name: routing tables, a graph's link
/// list, a trace and its rank placement. In a config file they are relative to the file's folder
/// ([`super::Config::load_in`]).
pub const DATA_FILE_KEYS: [&str; 4] = ["routing.tables", "topology.file", "traffic.trace.file", "traffic.trace.placement.file"];

/// Join `dir` before each relative data-file path in `table` ([`DATA_FILE_KEYS`]). A
/// value that is not a string is left for the parser to refuse with its key path; a
/// folder that is empty or `.` changes nothing, so a config in the working directory
/// keeps its paths as written.
pub(super) fn rebase_data_files(table: &mut toml::Table, dir: &Path) {
    if dir.as_os_str().is_empty() || dir == Path::new(".") {
        return;
    }
    for key in DATA_FILE_KEYS {
        let mut parts: Vec<&str> = key.split('.').collect();
        let last = parts.pop().expect("a key path has a last part");
        let mut at = Some(&mut *table);
        for part in parts {
            at = at.and_then(|t| t.get_mut(part)).and_then(toml::Value::as_table_mut);
        }
        if let Some(toml::Value::String(file)) = at.and_then(|t| t.get_mut(last)) {
            if Path::new(file.as_str()).is_relative() {
                if let Some(joined) = dir.join(file.as_str()).to_str() {
                    *file = joined.to_string();
                }
            }
        }
    }
}

/// Override `key="path"` with a relative data-file path ([`DATA_FILE_KEYS`]) made
/// relative to `dir` (a study's folder, whose rows name files beside its configs); any
/// other override as given.
pub fn rebase_override(o: &str, dir: &Path) -> String {
    let Some((key, value)) = o.split_once('=') else { return o.to_string() };
    let path = value.trim().trim_matches('"');
    if !DATA_FILE_KEYS.contains(&key.trim()) || path.is_empty() || Path::new(path).is_absolute() || dir.as_os_str().is_empty() {
        return o.to_string();
    }
    match dir.join(path).to_str() {
        Some(joined) => format!("{}={}", key.trim(), toml::Value::String(joined.to_string())),
        None => o.to_string(),
    }
}

/// The SHA-256 of data file `file`'s bytes in hex, or `unreadable`. An OTF2 archive's
/// anchor (`X.otf2`) stands for the whole archive: the anchor, `X.def` and every file
/// under `X/`, by name in order, each name and length hashed before its bytes.
pub(super) fn digest(file: &str) -> String {
    use sha2::Digest;
    let hex = |d: &[u8]| d.iter().map(|x| format!("{x:02x}")).collect::<String>();
    let path = Path::new(file);
    if path.extension().is_none_or(|e| e != "otf2") {
        return std::fs::read(path).map_or_else(|_| "unreadable".to_string(), |b| hex(&sha2::Sha256::digest(&b)));
    }
    let (Some(dir), Some(stem)) = (path.parent(), path.file_stem()) else {
        return "unreadable".to_string();
    };
    let mut files = vec![path.to_path_buf(), dir.join(stem).with_extension("def")];
    if let Ok(entries) = std::fs::read_dir(dir.join(stem)) {
        let mut more: Vec<_> = entries.flatten().map(|e| e.path()).filter(|p| p.is_file()).collect();
        more.sort();
        files.extend(more);
    }
    let mut h = sha2::Sha256::new();
    for f in &files {
        let Ok(bytes) = std::fs::read(f) else {
            if f == path {
                return "unreadable".to_string();
            }
            continue;
        };
        let name = f.strip_prefix(dir).unwrap_or(f).to_string_lossy();
        h.update(format!("{name}\n{}\n", bytes.len()));
        h.update(&bytes);
    }
    hex(&h.finalize())
}

#[cfg(test)]
mod tests {
    use crate::config::Config;
    use std::path::Path;

    const TRACED: &str = "[traffic.trace]\nfile = \"halo.trace\"\n";

    fn trace_file(c: &Config) -> String {
        c.traffic.trace.as_ref().and_then(|t| t.file.clone()).unwrap()
    }

    #[test]
    fn overrides_naming_data_files_are_rebased() {
        use super::rebase_override as r;
        let d = Path::new("experiments/apps");
        assert_eq!(r("traffic.trace.file=\"fft.ranks\"", d), "traffic.trace.file=\"experiments/apps/fft.ranks\"");
        assert_eq!(r("traffic.trace.placement.file=map", d), "traffic.trace.placement.file=\"experiments/apps/map\"");
        assert_eq!(r("traffic.trace.file=\"/abs/f\"", d), "traffic.trace.file=\"/abs/f\"");
        assert_eq!(r("traffic.load=0.3", d), "traffic.load=0.3");
    }

    #[test]
    fn an_otf2_archive_is_hashed_whole() {
        let dir = std::env::temp_dir().join(format!("flitsim-digest-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("trace")).unwrap();
        let anchor = dir.join("trace.otf2");
        std::fs::write(&anchor, "anchor").unwrap();
        std::fs::write(dir.join("trace.def"), "defs").unwrap();
        std::fs::write(dir.join("trace/0.evt"), "events").unwrap();
        let a = super::digest(anchor.to_str().unwrap());
        std::fs::write(dir.join("trace/0.evt"), "other events").unwrap();
        let b = super::digest(anchor.to_str().unwrap());
        assert_ne!(a, b, "an event file's change changes the digest");
        assert_eq!(a.len(), 64);
        assert_eq!(super::digest(dir.join("none.otf2").to_str().unwrap()), "unreadable");
        // A plain file: the SHA-256 of its bytes (of "defs", by sha256sum).
        assert_eq!(
            super::digest(dir.join("trace.def").to_str().unwrap()),
            "5ff99e9124ace8250a96190964a9fc851d6c08f4e283e737c9d99ffc38491815"
        );
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn a_file_named_in_a_config_is_found_beside_it() {
        let c = Config::load_in(Some(TRACED), Some(Path::new("presets")), &[]).unwrap();
        assert_eq!(trace_file(&c), Path::new("presets").join("halo.trace").to_str().unwrap());
        let graph = "[topology]\ntype = \"graph\"\nfile = \"p.links\"\n[routing]\ntype = \"graph\"\n";
        let c = Config::load_in(Some(graph), Some(Path::new("/nets")), &[]).unwrap();
        assert_eq!(c.input_files(), vec![("topology.file", "/nets/p.links")]);
    }

    #[test]
    fn absolute_paths_overrides_and_the_working_directory_stay_as_written() {
        let abs = "[traffic.trace]\nfile = \"/data/halo.trace\"\n";
        assert_eq!(trace_file(&Config::load_in(Some(abs), Some(Path::new("presets")), &[]).unwrap()), "/data/halo.trace");
        for dir in [None, Some(Path::new("")), Some(Path::new("."))] {
            assert_eq!(trace_file(&Config::load_in(Some(TRACED), dir, &[]).unwrap()), "halo.trace");
        }
        let typed = ["traffic.trace.file=\"mine.trace\"".to_string()];
        assert_eq!(trace_file(&Config::load_in(Some(TRACED), Some(Path::new("presets")), &typed).unwrap()), "mine.trace");
    }

    #[test]
    fn a_data_file_of_the_wrong_type_is_still_refused_by_its_key_path() {
        let bad = "[traffic.trace]\nfile = 3\n";
        let e = Config::load_in(Some(bad), Some(Path::new("presets")), &[]).unwrap_err().to_string();
        assert!(e.contains("traffic.trace.file"), "{e}");
    }
}
