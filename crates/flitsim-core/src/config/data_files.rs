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

#[cfg(test)]
mod tests {
    use crate::config::Config;
    use std::path::Path;

    const TRACED: &str = "[traffic.trace]\nfile = \"halo.trace\"\n";

    fn trace_file(c: &Config) -> String {
        c.traffic.trace.as_ref().and_then(|t| t.file.clone()).unwrap()
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
