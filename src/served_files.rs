//! Which files `allwright snapshot FILE` may serve (docs/protocol/host-safety.md, "Snapshot of a local
//! file"): the file itself and the files it references, followed through the HTML, CSS, SVG and
//! JavaScript it pulls in, as long as they lie below the file's own folder. Never a dotfile or
//! anything in a dot-folder (`.git`, `.ssh`, `.env`), never a path above the folder, never a
//! symlink that leads out of it, and never the rest of the folder: a page saved in ~/Downloads
//! must not be able to read the other downloads and send them away.

use std::collections::{HashSet, VecDeque};
use std::path::{Component, Path, PathBuf};

/// More files than any saved page references; the walk stops there.
const MAX_SERVED_FILES: usize = 10_000;
/// Only the first bytes of each referenced text file are read for further references.
const MAX_SCANNED_BYTES: u64 = 16 * 1024 * 1024;

/// The canonical paths of the files that may be served, all under `root`.
#[derive(Debug)]
pub struct ServedFiles {
    root: PathBuf,
    allowed: HashSet<PathBuf>,
}

impl ServedFiles {
    /// Collects the files that `entry` (a file directly in `root`, both canonical) references.
    pub fn collect(root: &Path, entry: &Path) -> Self {
        let mut allowed = HashSet::new();
        allowed.insert(entry.to_path_buf());
        let mut queue = VecDeque::from([entry.to_path_buf()]);
        while let Some(file) = queue.pop_front() {
            if !is_scanned_for_references(&file) {
                continue;
            }
            let Some(text) = read_prefix(&file) else {
                continue;
            };
            let folder = file.parent().unwrap_or(root);
            for reference in references_in(&text) {
                if allowed.len() >= MAX_SERVED_FILES {
                    return Self {
                        root: root.to_path_buf(),
                        allowed,
                    };
                }
                if let Some(path) = resolve_reference(root, folder, &reference) {
                    if allowed.insert(path.clone()) {
                        queue.push_back(path);
                    }
                }
            }
        }
        Self {
            root: root.to_path_buf(),
            allowed,
        }
    }

    /// The file a request for `decoded_path` (percent-decoded, `/`-separated, relative to the
    /// root) may read, or `None`.
    pub fn lookup(&self, decoded_path: &str) -> Option<PathBuf> {
        let relative = clean_relative_path(Path::new(decoded_path.trim_start_matches('/')))?;
        let mut path = self.root.join(relative);
        if path.is_dir() {
            path.push("index.html");
        }
        let canonical = path.canonicalize().ok()?;
        self.allowed.contains(&canonical).then_some(canonical)
    }

    /// The file an HTTP request target (`/assets/a%20b.png?v=2`) may read, or `None`: the server
    /// answers 404 alike for a forbidden file and a missing one, so a page cannot probe what
    /// exists.
    pub fn file_for_request_target(&self, target: &str) -> Option<PathBuf> {
        let path_part = target.split(['?', '#']).next().unwrap_or_default();
        self.lookup(&percent_decode(path_part)?)
    }

    #[cfg(test)]
    pub fn contains(&self, path: &Path) -> bool {
        self.allowed.contains(path)
    }
}

/// `path` with `.` dropped, or `None` if any part climbs (`..`), is absolute, or is hidden
/// (starts with a dot).
fn clean_relative_path(path: &Path) -> Option<PathBuf> {
    let mut cleaned = PathBuf::new();
    for component in path.components() {
        match component {
            Component::Normal(segment) if !segment.to_string_lossy().starts_with('.') => {
                cleaned.push(segment)
            }
            Component::CurDir => {}
            _ => return None,
        }
    }
    Some(cleaned)
}

/// A reference made from a file in `folder`, resolved to a served file: relative to `folder`, or
/// to the root when it starts with `/`; `..` may climb within the root only; the canonical target
/// (symlinks followed) must be a file below the root with no hidden part.
fn resolve_reference(root: &Path, folder: &Path, reference: &str) -> Option<PathBuf> {
    let reference = reference.trim();
    if reference.is_empty() || reference.starts_with('#') || reference.starts_with("//") {
        return None;
    }
    if has_scheme(reference) {
        return None;
    }
    let path_part = reference.split(['?', '#']).next().unwrap_or_default();
    let decoded = percent_decode(path_part)?;
    let start = if decoded.starts_with('/') {
        PathBuf::new()
    } else {
        folder.strip_prefix(root).ok()?.to_path_buf()
    };
    let mut segments: Vec<String> = start
        .components()
        .map(|component| component.as_os_str().to_string_lossy().into_owned())
        .collect();
    for segment in decoded.split('/') {
        match segment {
            "" | "." => {}
            ".." => {
                segments.pop()?;
            }
            hidden if hidden.starts_with('.') => return None,
            normal => segments.push(normal.to_owned()),
        }
    }
    let canonical = root.join(segments.join("/")).canonicalize().ok()?;
    let inside = canonical.strip_prefix(root).ok()?;
    clean_relative_path(inside)?;
    canonical.is_file().then_some(canonical)
}

/// `scheme:` before any `/`, as in `https:`, `data:`, `javascript:`, `mailto:`.
fn has_scheme(reference: &str) -> bool {
    let Some(colon) = reference.find(':') else {
        return false;
    };
    let scheme = &reference[..colon];
    !scheme.is_empty()
        && !scheme.contains('/')
        && scheme.starts_with(|character: char| character.is_ascii_alphabetic())
        && scheme
            .chars()
            .all(|character| character.is_ascii_alphanumeric() || "+-.".contains(character))
}

fn is_scanned_for_references(path: &Path) -> bool {
    matches!(
        path.extension()
            .and_then(|extension| extension.to_str())
            .map(str::to_ascii_lowercase)
            .as_deref(),
        Some("html" | "htm" | "xhtml" | "svg" | "css" | "js" | "mjs")
    )
}

fn read_prefix(path: &Path) -> Option<String> {
    use std::io::Read;
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .ok()?
        .take(MAX_SCANNED_BYTES)
        .read_to_end(&mut bytes)
        .ok()?;
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

/// The URLs a page, style sheet or script names: the values of the HTML attributes that load
/// something (`src`, `href`, `srcset`, `poster`, `data`, `background`), CSS `url(...)` and
/// `@import`, and the module specifiers after `from`, `import` and `import(`. Over-collecting is
/// harmless (a name that is no file is dropped); the walk never leaves the folder.
fn references_in(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    let lowered = text.to_ascii_lowercase();
    for attribute in ["src", "href", "srcset", "poster", "data", "background"] {
        let pattern = format!("{attribute}=");
        let mut from = 0;
        while let Some(offset) = lowered[from..].find(&pattern) {
            let start = from + offset;
            from = start + pattern.len();
            let preceded_by_space = lowered[..start]
                .chars()
                .next_back()
                .is_some_and(|character| character.is_whitespace() || character == ':');
            if !preceded_by_space {
                continue;
            }
            let Some(value) = value_at(&text[from..]) else {
                continue;
            };
            let value = value.replace("&amp;", "&");
            if attribute == "srcset" {
                found.extend(value.split(',').filter_map(|candidate| {
                    candidate.split_whitespace().next().map(str::to_owned)
                }));
            } else {
                found.push(value);
            }
        }
    }
    for opener in ["url(", "@import", "from", "import(", "import"] {
        let mut from = 0;
        while let Some(offset) = lowered[from..].find(opener) {
            from += offset + opener.len();
            let rest = text[from..].trim_start();
            if let Some(value) = value_at(rest) {
                found.push(value);
            }
        }
    }
    found
}

/// A quoted string at the start of `text`, or an unquoted value up to whitespace, `>` or `)`.
fn value_at(text: &str) -> Option<String> {
    let first = text.chars().next()?;
    if first == '"' || first == '\'' || first == '`' {
        let rest = &text[1..];
        let end = rest.find(first)?;
        return Some(rest[..end].to_owned());
    }
    let end = text
        .find(|character: char| character.is_whitespace() || ">)(;,{}".contains(character))
        .unwrap_or(text.len());
    let value = &text[..end];
    (!value.is_empty() && value.len() < 4096).then(|| value.to_owned())
}

fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut index = 0;
    while index < bytes.len() {
        if bytes[index] == b'%' {
            let hex = text.get(index + 1..index + 3)?;
            // `from_str_radix` alone would also take a sign ("%+1").
            if !hex.bytes().all(|byte| byte.is_ascii_hexdigit()) {
                return None;
            }
            out.push(u8::from_str_radix(hex, 16).ok()?);
            index += 3;
        } else {
            out.push(bytes[index]);
            index += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_referenced_files_below_the_folder_without_hidden_parts_are_served() {
        let temporary = tempfile::tempdir().expect("temp dir");
        let root = temporary.path().canonicalize().expect("canonical");
        std::fs::create_dir_all(root.join("assets/.cache")).expect("folders");
        std::fs::write(
            root.join("page.html"),
            r#"<link rel=stylesheet href="assets/site.css"><script type=module src='app.js'></script>
               <img srcset="a.png 1x, assets/b.png 2x"><a href="https://example.com/x.html">x</a>
               <img src=".env"><img src="assets/.cache/c.png"><img src="../outside.png">"#,
        )
        .expect("page");
        std::fs::write(
            root.join("assets/site.css"),
            "body{background:url('../bg.png')}",
        )
        .expect("css");
        std::fs::write(root.join("app.js"), "import {x} from './lib.mjs';").expect("js");
        for name in [
            "lib.mjs",
            "bg.png",
            "a.png",
            "assets/b.png",
            ".env",
            "assets/.cache/c.png",
            "secret.pdf",
        ] {
            std::fs::write(root.join(name), "x").expect("file");
        }
        let served = ServedFiles::collect(&root, &root.join("page.html"));
        for name in [
            "page.html",
            "assets/site.css",
            "app.js",
            "lib.mjs",
            "bg.png",
            "a.png",
            "assets/b.png",
        ] {
            assert!(served.contains(&root.join(name)), "{name} is referenced");
            assert_eq!(served.lookup(&format!("/{name}")), Some(root.join(name)));
        }
        for name in [
            "/.env",
            "/assets/.cache/c.png",
            "/secret.pdf",
            "/../outside.png",
        ] {
            assert_eq!(served.lookup(name), None, "{name}");
        }
    }
}
