//! The results store shared with the Python package (`python/flitsim/store.py`): a
//! directory of finished runs keyed by a hash of each run's whole config, so that a point
//! one front end computed is reused by the other.
//!
//! Layout (format 1):
//!
//! ```text
//! STORE/flitsim-store.json          {"format": "flitsim-store", "version": 1}
//! STORE/results/ab/abcdef...json    one run's report, the text `flitsim run --out` writes
//! ```
//!
//! The key is the SHA-256 (hex) of the UTF-8 bytes of `{"config":<config>,"flitsim":"<version>"}`,
//! `<config>` being the resolved config as compact JSON with sorted keys (as
//! `flitsim.Config.canonical_json`), `<version>` the simulator's version; a config that
//! names data files (a trace, a link list, routing tables) adds
//! `"inputs":{"<key path>":"<SHA-256 of the file>"}`, so that editing one makes a new key
//! ([`Config::store_text`]).

use std::path::{Path, PathBuf};

use flitsim_core::config::Config;
use sha2::{Digest, Sha256};

use crate::common::CliResult;

/// The marker file's name and its exact text (the Python store writes the same bytes).
const MARKER: &str = "flitsim-store.json";
const MARKER_TEXT: &str = "{\"format\": \"flitsim-store\", \"version\": 1}\n";

/// The store key of a resolved config under this simulator version.
pub fn key(cfg: &Config) -> String {
    Sha256::digest(cfg.store_text(flitsim_core::VERSION).as_bytes()).iter().map(|b| format!("{b:02x}")).collect()
}

/// An open results store.
#[derive(Debug)]
pub struct Store {
    path: PathBuf,
}

impl Store {
    /// Open the store at `path`, creating it if the directory is missing or empty; refuse
    /// a directory that holds something else or a store of another format.
    pub fn open(path: &Path) -> CliResult<Store> {
        let marker = path.join(MARKER);
        if marker.exists() {
            let text = std::fs::read_to_string(&marker).map_err(|e| format!("cannot read {}: {e}", marker.display()))?;
            let found: serde_json::Value = serde_json::from_str(&text).map_err(|e| format!("{}: {e}", marker.display()))?;
            let want: serde_json::Value = serde_json::from_str(MARKER_TEXT).expect("the marker is JSON");
            if found != want {
                return Err(format!("{} is a results store of format {found}, not {want}: use another directory", path.display()));
            }
        } else {
            let busy =
                path.exists() && std::fs::read_dir(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?.next().is_some();
            if busy {
                return Err(format!(
                    "{} exists and is not a flitsim results store (no {MARKER}): use an empty or new directory",
                    path.display()
                ));
            }
            std::fs::create_dir_all(path).map_err(|e| format!("cannot create {}: {e}", path.display()))?;
            write_atomic(&marker, MARKER_TEXT)?;
        }
        Ok(Store { path: path.to_path_buf() })
    }

    /// Where the result of `key` lives.
    pub fn file(&self, key: &str) -> PathBuf {
        self.path.join("results").join(&key[..2]).join(format!("{key}.json"))
    }

    /// The stored report text of `key`, if any. A file that is not JSON (a run killed
    /// while writing cannot leave one, but a disk or a hand can) is an error naming it.
    pub fn get(&self, key: &str) -> CliResult<Option<String>> {
        let f = self.file(key);
        if !f.exists() {
            return Ok(None);
        }
        let text = std::fs::read_to_string(&f).map_err(|e| format!("cannot read {}: {e}", f.display()))?;
        if let Err(e) = serde_json::from_str::<serde::de::IgnoredAny>(&text) {
            return Err(format!("store file {} is not a valid report ({e}); delete it to run that point again", f.display()));
        }
        Ok(Some(text))
    }

    /// Store one run's report text under `key` (a temporary file, then renamed).
    pub fn put(&self, key: &str, report_json: &str) -> CliResult<()> {
        let f = self.file(key);
        let dir = f.parent().expect("a result file has a folder");
        std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        write_atomic(&f, report_json)
    }
}

/// Write to a temporary name in the same folder, then rename: readers see whole files only.
fn write_atomic(path: &Path, text: &str) -> CliResult<()> {
    let dir = path.parent().expect("a file has a folder");
    let name = path.file_name().expect("a file has a name").to_string_lossy();
    let tmp = dir.join(format!(".tmp-{}-{name}", std::process::id()));
    std::fs::write(&tmp, text).map_err(|e| format!("cannot write {}: {e}", tmp.display()))?;
    std::fs::rename(&tmp, path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        format!("cannot write {}: {e}", path.display())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_hex_sha256_of_the_sorted_config() {
        let a = Config::load(None, &[]).unwrap();
        let b = Config::load(None, &["traffic.load=0.3".to_string()]).unwrap();
        let c = Config::load(None, &["traffic.load=0.4".to_string()]).unwrap();
        assert_eq!(key(&a).len(), 64);
        assert!(key(&a).chars().all(|ch| ch.is_ascii_hexdigit() && !ch.is_ascii_uppercase()));
        // The default load is 0.3: the same resolved config, the same key.
        assert_eq!(key(&a), key(&b));
        assert_ne!(key(&a), key(&c));
        let json = a.canonical_json();
        assert!(!json.contains(": ") && json.starts_with('{'));
    }

    /// A config without data files keeps the key of store format 1 (existing stores stay
    /// valid); one naming a trace file adds the file's SHA-256, so editing it changes the
    /// key.
    #[test]
    fn keys_cover_the_data_files_a_config_names() {
        let hex = |b: &[u8]| Sha256::digest(b).iter().map(|x| format!("{x:02x}")).collect::<String>();
        let plain = Config::load(None, &[]).unwrap();
        let old =
            format!("{{\"config\":{},\"flitsim\":{}}}", plain.canonical_json(), serde_json::to_string(flitsim_core::VERSION).unwrap());
        assert_eq!(key(&plain), hex(old.as_bytes()));
        let file = std::env::temp_dir().join(format!("flitsim-store-key-{}.trace", std::process::id()));
        std::fs::write(&file, "0 1 4\n").unwrap();
        let traced = Config::load(None, &[format!("traffic.trace.file={:?}", file.display().to_string())]).unwrap();
        let first = key(&traced);
        let text = traced.store_text(flitsim_core::VERSION);
        assert!(text.ends_with(&format!(",\"inputs\":{{\"traffic.trace.file\":\"{}\"}}}}", hex(b"0 1 4\n"))), "{text}");
        assert_eq!(first, hex(text.as_bytes()));
        std::fs::write(&file, "0 1 5\n").unwrap();
        assert_ne!(key(&traced), first);
        std::fs::remove_file(&file).unwrap();
        assert!(traced.store_text(flitsim_core::VERSION).contains("\"traffic.trace.file\":\"unreadable\""));
    }

    #[test]
    fn a_store_refuses_other_directories_and_round_trips() {
        let dir = std::env::temp_dir().join(format!("flitsim-store-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("other")).unwrap();
        std::fs::write(dir.join("other/data.csv"), "x\n").unwrap();
        assert!(Store::open(&dir.join("other")).unwrap_err().contains("not a flitsim results store"));
        let s = Store::open(&dir.join("new")).unwrap();
        assert_eq!(std::fs::read_to_string(dir.join("new").join(MARKER)).unwrap(), MARKER_TEXT);
        let k = "ab".repeat(32);
        assert_eq!(s.get(&k).unwrap(), None);
        s.put(&k, "{}").unwrap();
        assert_eq!(s.get(&k).unwrap().as_deref(), Some("{}"));
        // A damaged entry is named, with what to do about it.
        std::fs::write(s.file(&k), "{\"stats\": ").unwrap();
        let e = s.get(&k).unwrap_err();
        assert!(e.contains(&s.file(&k).display().to_string()) && e.contains("delete it"), "{e}");
        assert!(Store::open(&dir.join("new")).is_ok());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
