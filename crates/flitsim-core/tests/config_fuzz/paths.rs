//! Key paths into a TOML value: listing every path of a config, reading and replacing
//! what one names, and its text in an error (`a.b[2].c`).

#[derive(Clone, Debug, PartialEq)]
pub enum Seg {
    Key(String),
    Index(usize),
}

pub fn path_text(path: &[Seg]) -> String {
    let mut s = String::new();
    for seg in path {
        match seg {
            Seg::Key(k) => {
                if !s.is_empty() {
                    s.push('.');
                }
                s.push_str(k);
            }
            Seg::Index(i) => s.push_str(&format!("[{i}]")),
        }
    }
    s
}

/// Every value's path in the table (tables, arrays and their elements, and leaves).
pub fn all_paths(v: &toml::Value, prefix: &mut Vec<Seg>, out: &mut Vec<Vec<Seg>>) {
    match v {
        toml::Value::Table(t) => {
            for (k, child) in t {
                prefix.push(Seg::Key(k.clone()));
                out.push(prefix.clone());
                all_paths(child, prefix, out);
                prefix.pop();
            }
        }
        toml::Value::Array(a) => {
            for (i, child) in a.iter().enumerate() {
                prefix.push(Seg::Index(i));
                out.push(prefix.clone());
                all_paths(child, prefix, out);
                prefix.pop();
            }
        }
        _ => {}
    }
}

/// The container holding the last segment of `path`.
pub fn parent_mut<'a>(root: &'a mut toml::Value, path: &[Seg]) -> &'a mut toml::Value {
    let mut cur = root;
    for seg in &path[..path.len() - 1] {
        cur = match seg {
            Seg::Key(k) => cur.get_mut(k.as_str()).expect("path exists"),
            Seg::Index(i) => cur.get_mut(*i).expect("path exists"),
        };
    }
    cur
}

pub fn get_mut<'a>(root: &'a mut toml::Value, path: &[Seg]) -> &'a mut toml::Value {
    match &path[path.len() - 1] {
        Seg::Key(k) => parent_mut(root, path).get_mut(k.as_str()).expect("path exists"),
        Seg::Index(i) => parent_mut(root, path).get_mut(*i).expect("path exists"),
    }
}
