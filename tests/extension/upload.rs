//! upload_file (docs/agent-tools.md, "Attaching files: upload_file"): every way
//! fixtures/pages/upload/ takes files, each checked in the page's own state (the name, size,
//! type and a hash of the bytes the page read from its `File` objects, the events it saw, and for
//! the form the bytes the fixture server received), and the refusals (outside the roots, `..`, a
//! link out of a root, a secret-looking name, a file `accept` excludes, several files to a
//! single input, too big). The same checks run in the user's own browser (the extension alone)
//! and in a launched browser with `--input trusted` (WebDriver BiDi `input.setFiles`) and
//! `--input synthetic`.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::bridge::LaunchedMcp;
use crate::support::{fixtures, Session, ToolError};

/// What the checks need of a session, whichever kind it is.
pub trait Agent {
    fn browser_name(&self) -> &'static str;
    async fn call(&self, tool: &str, arguments: Value) -> Result<Value, ToolError>;
}

impl Agent for Session {
    fn browser_name(&self) -> &'static str {
        self.browser.name()
    }
    async fn call(&self, tool: &str, arguments: Value) -> Result<Value, ToolError> {
        Session::call(self, tool, arguments).await
    }
}

impl Agent for LaunchedMcp {
    fn browser_name(&self) -> &'static str {
        self.browser.name()
    }
    async fn call(&self, tool: &str, arguments: Value) -> Result<Value, ToolError> {
        LaunchedMcp::call(self, tool, arguments).await
    }
}

/// The upload root of a test and the files in and around it.
pub struct UploadFolder {
    _folder: tempfile::TempDir,
    pub root: PathBuf,
}

const REPORT: &[u8] = b"%PDF-1.4\n% upload_file fixture report\n%%EOF\n";
const NOTES: &[u8] = b"Notes for the upload fixture.\n";
const A_TEXT: &[u8] = b"first attachment\n";
const B_TEXT: &[u8] = b"second attachment, a little longer\n";
/// A PNG signature and a few bytes: what the page reads, not a picture it decodes.
const PHOTO: &[u8] = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR fixture";

impl UploadFolder {
    pub fn new() -> UploadFolder {
        let folder = tempfile::tempdir().expect("a temporary folder");
        let base = std::fs::canonicalize(folder.path()).expect("canonical");
        let root = base.join("uploads");
        let outside = base.join("outside");
        std::fs::create_dir_all(root.join(".ssh")).expect("folders");
        std::fs::create_dir_all(&outside).expect("folders");
        for (name, bytes) in [
            ("report.pdf", REPORT),
            ("notes.txt", NOTES),
            ("a.txt", A_TEXT),
            ("b.txt", B_TEXT),
            ("photo.png", PHOTO),
            ("movie.mp4", b"not a movie".as_slice()),
            (
                ".ssh/id_rsa",
                b"-----BEGIN OPENSSH PRIVATE KEY-----".as_slice(),
            ),
        ] {
            std::fs::write(root.join(name), bytes).expect("a file");
        }
        std::fs::write(outside.join("secret.txt"), b"outside the root").expect("a file");
        std::os::unix::fs::symlink(outside.join("secret.txt"), root.join("link.txt"))
            .expect("a link");
        std::fs::write(root.join("big.bin"), vec![7u8; 10 * 1024 * 1024 + 1]).expect("a file");
        std::fs::write(root.join("large.txt"), large_file()).expect("a file");
        UploadFolder {
            _folder: folder,
            root,
        }
    }

    pub fn root_argument(&self) -> String {
        self.root.display().to_string()
    }
}

/// A file of 6 MiB, of varied bytes: over the 512 KiB above which the host cuts a message toward
/// the browser into chunks (src/native_messaging.rs), some 32 of them as base64.
fn large_file() -> Vec<u8> {
    (0..6 * 1024 * 1024u32)
        .map(|index| (index.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect()
}

/// FNV-1a 32, as record.js hashes files over 64 KiB.
fn fnv32(bytes: &[u8]) -> String {
    let hash = bytes.iter().fold(0x811c_9dc5u32, |hash, byte| {
        (hash ^ u32::from(*byte)).wrapping_mul(0x0100_0193)
    });
    format!("fnv32-{hash:08x}")
}

/// FNV-1a 64, as fixtures/pages/upload/record.js and the fixture server compute it.
fn fnv(bytes: &[u8]) -> String {
    format!("{:016x}", crate::support::fixture_server::fnv1a64(bytes))
}

/// How the page's result region describes one file it received.
fn received(name: &str, bytes: &[u8], mime: &str) -> String {
    format!("{name}:{}:{mime}:{}:true", bytes.len(), fnv(bytes))
}

/// The ref of the first line that names `name`, whatever its role.
fn ref_named(browser: &str, tree: &str, name: &str) -> String {
    let marker = format!("\"{name}\" [ref_");
    tree.lines()
        .find_map(|line| {
            let start = line.find(&marker)? + marker.len();
            line[start..].split(']').next()
        })
        .map(|number| format!("ref_{number}"))
        .unwrap_or_else(|| panic!("{browser}: no line names {name:?} with a ref:\n{tree}"))
}

async fn ok(agent: &impl Agent, tool: &str, arguments: Value) -> Value {
    match agent.call(tool, arguments.clone()).await {
        Ok(result) => result,
        Err(error) => panic!(
            "{}: {tool}({arguments}) failed: {}",
            agent.browser_name(),
            error.0
        ),
    }
}

async fn tree(agent: &impl Agent, arguments: Value) -> String {
    ok(agent, "get_accessibility_tree", arguments).await["tree"]
        .as_str()
        .expect("a tree")
        .to_owned()
}

/// Waits for `text` to show in the frame (wait_for, which looks at the page itself).
async fn shows(agent: &impl Agent, text: &str, frame_id: Option<i64>) {
    let mut arguments = json!({"text": text, "timeoutMs": 5_000});
    if let Some(frame_id) = frame_id {
        arguments["frameId"] = json!(frame_id);
    }
    let result = ok(agent, "wait_for", arguments).await;
    if result["met"] != true {
        let text = tree(agent, json!({})).await;
        eprintln!("{}: the page shows:\n{text}", agent.browser_name());
    }
    assert_eq!(
        result["met"],
        true,
        "{}: the page never showed {text:?}: {result}",
        agent.browser_name()
    );
}

/// One upload that must succeed; returns its result and how long it took.
async fn upload(agent: &impl Agent, arguments: Value) -> (Value, Duration) {
    let started = Instant::now();
    let result = ok(agent, "upload_file", arguments).await;
    (result, started.elapsed())
}

/// One upload that must be refused with `code`.
async fn refused(agent: &impl Agent, arguments: Value, code: &str) -> Value {
    match agent.call("upload_file", arguments.clone()).await {
        Ok(result) => panic!(
            "{}: upload_file({arguments}) succeeded, expected {code}: {result}",
            agent.browser_name()
        ),
        Err(error) => {
            assert_eq!(
                error.code(),
                code,
                "{}: upload_file({arguments}): {}",
                agent.browser_name(),
                error.0
            );
            error.0
        }
    }
}

/// The events a person's choice fires at a file input, as record.js writes them (HTML, "update
/// the file selection": input bubbles and is composed, change bubbles).
const CHOICE_EVENTS: &str = " | events: input+b+c,change+b";
/// What Firefox's remote agent fires after `input.setFiles`: its own `input` event, which is not
/// composed (a real chooser's is).
const FIREFOX_SET_FILES_EVENTS: &str = " | events: input+b,change+b";

/// Every way of fixtures/pages/upload/, then the refusals. `route` names the session for the
/// timings printed (`upload_file time`), which docs/agent-tools.md quotes.
pub async fn every_way_a_page_takes_files(agent: &impl Agent, folder: &UploadFolder, route: &str) {
    let browser = agent.browser_name();
    let events = if browser == "firefox" && route == "launched trusted" {
        FIREFOX_SET_FILES_EVENTS
    } else {
        CHOICE_EVENTS
    };
    let page = fixtures().url("/pages/upload/index.html");
    ok(agent, "navigate", json!({ "url": page })).await;
    let text = tree(agent, json!({})).await;
    let named = |name: &str| ref_named(browser, &text, name);

    // A visible single input with accept, by a relative path: the page's File, then the form
    // post that the fixture server answers with what it received.
    let (result, took) = upload(
        agent,
        json!({"ref_id": named("Report"), "paths": ["report.pdf"]}),
    )
    .await;
    eprintln!(
        "{browser} {route}: upload_file time {took:?} ({})",
        result["method"]
    );
    assert_eq!(
        result["files"][0]["name"], "report.pdf",
        "{browser}: {result}"
    );
    assert_eq!(result["target"], "input", "{browser}: {result}");
    shows(
        agent,
        &format!(
            "{}{events}",
            received("report.pdf", REPORT, "application/pdf")
        ),
        None,
    )
    .await;

    // Several files to a multiple input (off-screen), by absolute paths inside the root.
    let absolute = |name: &str| folder.root.join(name).display().to_string();
    upload(
        agent,
        json!({"ref_id": named("Attachments"), "paths": [absolute("a.txt"), absolute("b.txt")]}),
    )
    .await;
    shows(
        agent,
        &format!(
            "{};{}{events}",
            received("a.txt", A_TEXT, "text/plain"),
            received("b.txt", B_TEXT, "text/plain")
        ),
        None,
    )
    .await;

    // A file of 6 MiB, whose bytes cross the host in chunks on the extension's route.
    let large = large_file();
    let (result, took) = upload(
        agent,
        json!({"ref_id": named("Attachments"), "paths": ["large.txt"]}),
    )
    .await;
    eprintln!(
        "{browser} {route}: upload_file (6 MiB) time {took:?} ({})",
        result["method"]
    );
    shows(
        agent,
        &format!(
            "large.txt:{}:text/plain:{}:true{events}",
            large.len(),
            fnv32(&large)
        ),
        None,
    )
    .await;

    // A display:none input that a button's click handler opens: the ref is the button.
    let (result, _) = upload(
        agent,
        json!({"ref_id": named("Choose a text file"), "paths": ["notes.txt"]}),
    )
    .await;
    // The extension's discovery click finds it; with real input the cheap ways do not, and the
    // real click and the browser's file dialog event do.
    let via = if route == "launched trusted" {
        "dialog"
    } else {
        "button"
    };
    assert_eq!(result["via"], via, "{browser}: {result}");
    shows(
        agent,
        &format!("{}{events}", received("notes.txt", NOTES, "text/plain")),
        None,
    )
    .await;

    // A display:none input opened by its label.
    upload(
        agent,
        json!({"ref_id": named("Upload a photo"), "paths": ["photo.png"]}),
    )
    .await;
    shows(
        agent,
        &format!("{}{events}", received("photo.png", PHOTO, "image/png")),
        None,
    )
    .await;

    // A drop zone: the whole sequence, one DataTransfer holding both files.
    let (result, took) = upload(
        agent,
        json!({"ref_id": named("Drop files here"), "paths": ["a.txt", "photo.png"]}),
    )
    .await;
    eprintln!("{browser} {route}: upload_file (drop) time {took:?}");
    assert_eq!(result["target"], "drop", "{browser}: {result}");
    shows(
        agent,
        &format!(
            "{};{} | events: dragenter,dragover,drop",
            received("a.txt", A_TEXT, "text/plain"),
            received("photo.png", PHOTO, "image/png")
        ),
        None,
    )
    .await;

    // An input inside an open shadow root.
    upload(
        agent,
        json!({"ref_id": named("Shadow file"), "paths": ["notes.txt"]}),
    )
    .await;
    shows(
        agent,
        &format!("{}{events}", received("notes.txt", NOTES, "text/plain")),
        None,
    )
    .await;

    // An input inside an iframe, by frameId and the ref iframe_read printed.
    let frame_line = text
        .lines()
        .find(|line| line.contains("Upload frame") && line.contains("frameId="))
        .unwrap_or_else(|| panic!("{browser}: no iframe line with its frameId:\n{text}"));
    let frame_id: i64 = frame_line
        .split("frameId=")
        .nth(1)
        .and_then(|rest| rest.split(|c: char| !c.is_ascii_digit()).next())
        .and_then(|digits| digits.parse().ok())
        .expect("a frameId");
    let frame_tree = ok(agent, "iframe_read", json!({ "frameId": frame_id })).await;
    let frame_text = frame_tree["tree"].as_str().expect("a tree");
    upload(
        agent,
        json!({"ref_id": ref_named(browser, frame_text, "Frame file"), "paths": ["b.txt"], "frameId": frame_id}),
    )
    .await;
    shows(
        agent,
        &format!("{}{events}", received("b.txt", B_TEXT, "text/plain")),
        Some(frame_id),
    )
    .await;

    // Refusals: nothing outside the roots is read, whatever the spelling; nothing a browser's
    // chooser would not offer is attached.
    let report = named("Report");
    for path in [
        "/etc/passwd".to_owned(),
        "../outside/secret.txt".to_owned(),
        "link.txt".to_owned(),
        folder
            .root
            .parent()
            .expect("a parent")
            .join("outside/secret.txt")
            .display()
            .to_string(),
    ] {
        refused(
            agent,
            json!({"ref_id": report, "paths": [path]}),
            "path_outside_upload_roots",
        )
        .await;
    }
    refused(
        agent,
        json!({"ref_id": report, "paths": [".ssh/id_rsa"]}),
        "secret_path_refused",
    )
    .await;
    refused(
        agent,
        json!({"ref_id": report, "paths": ["big.bin"]}),
        "file_too_large",
    )
    .await;
    let excluded = refused(
        agent,
        json!({"ref_id": report, "paths": ["movie.mp4"]}),
        "file_not_accepted",
    )
    .await;
    assert!(
        excluded["message"]
            .as_str()
            .is_some_and(|message| message.contains(".pdf,image/*")),
        "{browser}: the refusal names the accept list: {excluded}"
    );
    refused(
        agent,
        json!({"ref_id": report, "paths": ["a.txt", "b.txt"]}),
        "file_not_accepted",
    )
    .await;
    // The refusals left the page's file as it was.
    shows(
        agent,
        &format!(
            "{}{events}",
            received("report.pdf", REPORT, "application/pdf")
        ),
        None,
    )
    .await;

    // The form way: the fixture server received the bytes.
    let send = named("Send report");
    ok(agent, "click_ax", json!({ "ref_id": send })).await;
    shows(
        agent,
        &format!("report.pdf {} {}", REPORT.len(), fnv(REPORT)),
        None,
    )
    .await;
}

/// Whether upload_file is listed: only with `--upload-root`.
pub async fn listed(agent: &impl Agent, tools: &[String], expected: bool) {
    assert_eq!(
        tools.iter().any(|tool| tool == "upload_file"),
        expected,
        "{}: {tools:?}",
        agent.browser_name()
    );
}

/// fixtures/pages/upload/dialog.html: the pages whose file dialog only a real click opens (a
/// handler that ignores untrusted clicks, `showPicker()`, an input never put in the document),
/// reached in a launched browser with real input through the browser's file dialog event and
/// out of the extension's reach otherwise (not_a_file_target, with a hint that says why), and an
/// input in a closed shadow root, which BiDi cannot reach: the trusted route hands it to the
/// extension's. The page counts its button's clicks: exactly one per upload.
pub async fn file_dialog_pages(agent: &impl Agent, route: &str) {
    let browser = agent.browser_name();
    let trusted = route == "launched trusted";
    let events = if browser == "firefox" && trusted {
        FIREFOX_SET_FILES_EVENTS
    } else {
        CHOICE_EVENTS
    };
    let page = fixtures().url("/pages/upload/dialog.html");
    ok(agent, "navigate", json!({ "url": page })).await;
    let text = tree(agent, json!({})).await;
    let named = |name: &str| ref_named(browser, &text, name);
    let trusted_button = named("Attach a trusted file");
    let picker_button = named("Open the picker");
    let detached_button = named("Pick a detached file");

    if trusted {
        // A handler that ignores untrusted clicks: one real click, the dialog event, the files.
        let (result, took) = upload(
            agent,
            json!({"ref_id": trusted_button, "paths": ["notes.txt"]}),
        )
        .await;
        eprintln!("{browser} {route}: upload_file (file dialog) time {took:?}");
        assert_eq!(result["via"], "dialog", "{browser}: {result}");
        assert_eq!(result["target"], "input", "{browser}: {result}");
        shows(
            agent,
            &format!("{}{events}", received("notes.txt", NOTES, "text/plain")),
            None,
        )
        .await;
        shows(agent, "clicks: 1", None).await;

        // showPicker() from the real click's activation.
        let (result, _) = upload(agent, json!({"ref_id": picker_button, "paths": ["a.txt"]})).await;
        assert_eq!(result["via"], "dialog", "{browser}: {result}");
        shows(
            agent,
            &format!("{}{events}", received("a.txt", A_TEXT, "text/plain")),
            None,
        )
        .await;

        // An input the page never put in the document (multiple).
        let (result, _) = upload(
            agent,
            json!({"ref_id": detached_button, "paths": ["a.txt", "b.txt"]}),
        )
        .await;
        assert_eq!(result["via"], "dialog", "{browser}: {result}");
        shows(
            agent,
            &format!(
                "{};{}{events}",
                received("a.txt", A_TEXT, "text/plain"),
                received("b.txt", B_TEXT, "text/plain")
            ),
            None,
        )
        .await;

        // The input the event named keeps its accept: a PNG is refused, nothing is set. The
        // input is remembered for the button, so no second click is made (Firefox would not
        // open a second chooser for it), and a later upload sets it directly.
        let excluded = refused(
            agent,
            json!({"ref_id": trusted_button, "paths": ["photo.png"]}),
            "file_not_accepted",
        )
        .await;
        assert!(
            excluded["message"]
                .as_str()
                .is_some_and(|message| message.contains("text/plain")),
            "{browser}: {excluded}"
        );
        shows(
            agent,
            &format!("{}{events}", received("notes.txt", NOTES, "text/plain")),
            None,
        )
        .await;
        let (result, _) =
            upload(agent, json!({"ref_id": trusted_button, "paths": ["b.txt"]})).await;
        assert_eq!(result["via"], "button", "{browser}: {result}");
        shows(
            agent,
            &format!("{}{events}", received("b.txt", B_TEXT, "text/plain")),
            None,
        )
        .await;
        shows(agent, "clicks: 1", None).await;

        // click_ax on a button that opens a chooser says so, and points at upload_file.
        // (The detached button: its click makes a new input each time.)
        let clicked = ok(agent, "click_ax", json!({ "ref_id": detached_button })).await;
        assert!(
            clicked.to_string().contains("file_chooser_opened")
                && clicked.to_string().contains("upload_file"),
            "{browser}: click_ax on a file button: {clicked}"
        );
    } else {
        // The extension's click is untrusted and carries no user activation: none of the three
        // opens a dialog, and the refusal says why and where it works.
        for button in [&trusted_button, &picker_button, &detached_button] {
            let refusal = refused(
                agent,
                json!({"ref_id": button, "paths": ["notes.txt"]}),
                "not_a_file_target",
            )
            .await;
            assert!(
                refusal.to_string().contains("--input trusted"),
                "{browser}: the refusal says where such a page works: {refusal}"
            );
        }
        // One discovery click, not two.
        shows(agent, "clicks: 1", None).await;
    }

    // An input in a closed shadow root (the tree shows its host): the extension finds it inside,
    // BiDi cannot reach it, so the trusted route hands the files to the extension's, which
    // builds them (the events of a person's choice).
    let host = text
        .lines()
        .find(|line| line.contains("closed-shadow-root"))
        .and_then(|line| line.split("[ref_").nth(1)?.split(']').next())
        .map(|number| format!("ref_{number}"))
        .unwrap_or_else(|| panic!("{browser}: no closed host in\n{text}"));
    let (result, _) = upload(agent, json!({"ref_id": host, "paths": ["notes.txt"]})).await;
    if trusted {
        assert!(
            result.to_string().contains("closed shadow root"),
            "{browser}: the trusted route says it handed over: {result}"
        );
    }
    shows(
        agent,
        &format!(
            "{}{CHOICE_EVENTS}",
            received("notes.txt", NOTES, "text/plain")
        ),
        None,
    )
    .await;
}
