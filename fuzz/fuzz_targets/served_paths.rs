//! The local file server's path resolution (src/served_files.rs: which files `allwright snapshot
//! FILE` may serve, and which file a request target reads) on the real file system: a served
//! folder with symlinks that point out of it (to a folder and to a file), one that points in, one
//! that points to itself, hidden files and folders, a file above the folder, names with spaces,
//! a backslash and non-ASCII letters. Request targets are built from `..`, `%2e%2e`, `.%2e`,
//! backslashes, `%00`, overlong UTF-8 (`%c0%ae`), `%2f` and those names, or are any text; a page
//! whose references are such targets, or any text, is collected as the served entry.
//! Properties: no panic; whatever a request resolves to is a real file (canonical, not a
//! symlink, not a folder) below the served folder, with no hidden part, never above it.

#![no_main]

use std::path::{Component, Path, PathBuf};
use std::sync::OnceLock;

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;

#[path = "../../src/served_files.rs"]
#[allow(dead_code)]
mod served_files;

use served_files::ServedFiles;

/// Path segments an attacker would try, and the names the fixture holds.
const SEGMENTS: &[&str] = &[
    "..",
    ".",
    "",
    "%2e%2e",
    "%2E%2e",
    ".%2e",
    "%2e.",
    "%2e",
    "%2f",
    "%2F..%2F",
    "..%2f..%2f",
    "..\\",
    "..\\outside",
    "%5c..%5c",
    "%00",
    "a.html%00.png",
    "%c0%ae%c0%ae",
    "%c0%af",
    "%e0%80%ae",
    "%ff",
    "outside",
    "secret.txt",
    "site",
    "index.html",
    "a.html",
    "assets",
    "style.css",
    "img one.png",
    "img%20one.png",
    "logo.png",
    "link-out",
    "link-file-out.txt",
    "link-in.png",
    "loop",
    "sub",
    ".env",
    "%2eenv",
    ".git",
    "config",
    "back\\slash.txt",
    "back%5Cslash.txt",
    "caf%C3%A9.txt",
    "café.txt",
    "unreferenced.pdf",
    "fuzzed.html",
];

#[derive(Arbitrary, Debug)]
enum Segment {
    Known(u8),
    Any(String),
}

#[derive(Arbitrary, Debug)]
struct Target {
    leading_slash: bool,
    segments: Vec<Segment>,
    suffix: Option<String>,
}

impl Target {
    fn text(&self) -> String {
        let joined: Vec<&str> = self
            .segments
            .iter()
            .map(|segment| match segment {
                Segment::Known(index) => SEGMENTS[*index as usize % SEGMENTS.len()],
                Segment::Any(text) => text.as_str(),
            })
            .collect();
        let mut text = if self.leading_slash { "/" } else { "" }.to_owned();
        text.push_str(&joined.join("/"));
        if let Some(suffix) = &self.suffix {
            text.push_str(suffix);
        }
        text
    }
}

#[derive(Arbitrary, Debug)]
struct Input {
    /// Requests made to the fixed page's server and to the fuzzed page's.
    targets: Vec<Target>,
    /// Any text added to the fuzzed page, besides a reference to each target.
    page_text: String,
}

struct Fixture {
    top: PathBuf,
    root: PathBuf,
    fixed: ServedFiles,
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        // One folder per process under the fuzz crate's target folder (not in git), made anew.
        let top = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("target")
            .join(format!("served-paths-fixture-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&top);
        remove_fixtures_of_ended_runs(top.parent().expect("the target folder"));
        let write = |path: &Path, text: &str| {
            std::fs::create_dir_all(path.parent().expect("a parent")).expect("folder");
            std::fs::write(path, text).expect("fixture file");
        };
        write(&top.join("outside/secret.txt"), "secret");
        write(&top.join("outside/page-above.html"), "<img src=secret.txt>");
        let root_as_made = top.join("site");
        write(
            &root_as_made.join("index.html"),
            r#"<a href="a.html"></a><link href="assets/style.css"><img src="assets/img%20one.png">
               <img src="link-out/secret.txt"><img src="link-file-out.txt"><img src="link-in.png">
               <img src="loop"><img src=".env"><img src=".git/config"><img src="../outside/secret.txt">
               <img src="%2e%2e/outside/secret.txt"><img src="back%5Cslash.txt"><img src="caf%C3%A9.txt">
               <a href="sub/index.html"></a><img src="/..\outside\secret.txt">"#,
        );
        write(&root_as_made.join("a.html"), "<img src='../outside/page-above.html'>");
        write(
            &root_as_made.join("assets/style.css"),
            "body{background:url('../../outside/secret.txt')} @import 'logo.png';",
        );
        write(&root_as_made.join("assets/img one.png"), "png");
        write(&root_as_made.join("assets/logo.png"), "png");
        write(&root_as_made.join("sub/index.html"), "<img src='../link-out/secret.txt'>");
        write(&root_as_made.join(".env"), "TOKEN=1");
        write(&root_as_made.join(".git/config"), "[core]");
        write(&root_as_made.join("back\\slash.txt"), "backslash");
        write(&root_as_made.join("café.txt"), "accent");
        write(&root_as_made.join("unreferenced.pdf"), "%PDF");
        let symlink = |target: &str, link: &str| {
            std::os::unix::fs::symlink(target, root_as_made.join(link)).expect("symlink")
        };
        symlink("../outside", "link-out");
        symlink("../outside/secret.txt", "link-file-out.txt");
        symlink("assets/logo.png", "link-in.png");
        symlink("loop", "loop");
        let top = top.canonicalize().expect("canonical fixture");
        let root = top.join("site");
        let fixed = ServedFiles::collect(&root, &root.join("index.html"));
        Fixture { top, root, fixed }
    })
}

/// libFuzzer ends the process without dropping statics, so each run leaves its fixture; the next
/// run removes those whose process has ended.
fn remove_fixtures_of_ended_runs(folder: &Path) {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(process) = name.strip_prefix("served-paths-fixture-") else {
            continue;
        };
        if !Path::new("/proc").join(process).exists() {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

fuzz_target!(|input: Input| {
    let fixture = fixture();
    let targets: Vec<String> = input.targets.iter().map(Target::text).collect();
    for target in &targets {
        check_served(
            fixture,
            target,
            fixture.fixed.file_for_request_target(target),
        );
        check_served(fixture, target, fixture.fixed.lookup(target));
    }
    // A page whose references are the targets themselves: the walk over its references must
    // stay inside the folder too.
    let mut page = input.page_text.clone();
    for target in &targets {
        page.push_str(&format!("<img src=\"{}\">", target.replace('"', "")));
    }
    let entry = fixture.root.join("fuzzed.html");
    std::fs::write(&entry, page).expect("the fuzzed page");
    let fuzzed = ServedFiles::collect(&fixture.root, &entry);
    for target in &targets {
        check_served(fixture, target, fuzzed.file_for_request_target(target));
    }
});

fn check_served(fixture: &Fixture, target: &str, served: Option<PathBuf>) {
    let Some(file) = served else {
        return;
    };
    let inside = file
        .strip_prefix(&fixture.root)
        .unwrap_or_else(|_| panic!("{target:?} serves {} outside the folder", file.display()));
    assert!(
        !file.starts_with(fixture.top.join("outside")),
        "{target:?} serves {}",
        file.display()
    );
    assert!(
        inside.components().all(|component| matches!(
            component,
            Component::Normal(part) if !part.to_string_lossy().starts_with('.')
        )),
        "{target:?} serves a hidden or climbing path {}",
        file.display()
    );
    let metadata = std::fs::symlink_metadata(&file).expect("a served path exists");
    assert!(
        metadata.file_type().is_file(),
        "{target:?} serves {}, which is not a regular file",
        file.display()
    );
    assert_eq!(
        file.canonicalize().ok().as_ref(),
        Some(&file),
        "{target:?} serves a path that is not canonical"
    );
}
