//! The two surfaces agree: the WebDriver BiDi snapshot (`allwright_surface_web::accessibility_snapshot`,
//! its collector in a sandbox realm of every browsing context) is byte for byte the extension's
//! `accessibility_snapshot` of the same page, once the parts that name the surface are
//! normalised: context ids (the extension derives them from tab and frame ids, BiDi uses its
//! browsing context ids; docs/protocol/channels.md, section 3) and the random per-document prefix of
//! "ai" references (docs/protocol/channels.md, section 3).

use allwright_surface_web::{
    accessibility_snapshot, SnapshotFormat, SnapshotMode, SnapshotOptions,
};
use serde_json::{json, Value};

use crate::support::{fixtures, nodes, Session, PATIENCE};

/// Pages with frames (same-origin, cross-origin, hidden, srcdoc, about:blank), shadow roots,
/// strict CSPs and every state the surface tests check.
const PAGES: &[&str] = &[
    "/pages/surface.html",
    "/pages/shadow.html",
    "/pages/frames.html",
    "/pages/csp/script-self.html",
    "/pages/csp/default-none.html",
    "/pages/bidi/page-globals.html",
];

/// Pages read again in "ai" mode.
const AI_PAGES: &[&str] = &["/pages/surface.html", "/pages/frames.html"];

pub async fn bidi_snapshot_equals_the_extensions(session: &Session) {
    let browser = session.browser.name();
    let server = fixtures();
    for (page, ai) in PAGES
        .iter()
        .map(|page| (page, false))
        .chain(AI_PAGES.iter().map(|page| (page, true)))
    {
        for format in [SnapshotFormat::Json, SnapshotFormat::Yaml] {
            // A fresh document for each pair, so that both surfaces start their "ai" counters
            // from nothing; BiDi reads first, then the extension.
            session.open(&server.url(page)).await;
            let (connection, context) = session.bidi();
            let options = SnapshotOptions {
                format,
                mode: ai.then_some(SnapshotMode::Ai),
                timeout: PATIENCE,
            };
            let from_bidi = accessibility_snapshot(connection, context, &options)
                .await
                .unwrap_or_else(|error| panic!("{browser} {page}: BiDi snapshot: {error}"));
            let mut arguments = json!({"format": format.as_str()});
            if ai {
                arguments["mode"] = json!("ai");
            }
            let from_extension = session.ok("accessibility_snapshot", arguments).await["snapshot"]
                .as_str()
                .expect("a snapshot string")
                .to_owned();
            let bidi_normalised = normalised(&from_bidi, format);
            let extension_normalised = normalised(&from_extension, format);
            if bidi_normalised != extension_normalised {
                let at = bidi_normalised
                    .bytes()
                    .zip(extension_normalised.bytes())
                    .position(|(left, right)| left != right)
                    .unwrap_or(bidi_normalised.len().min(extension_normalised.len()));
                let from = at.saturating_sub(200);
                panic!(
                    "{browser} {page} ({}, ai: {ai}): the BiDi snapshot differs from the extension's at byte {at}:\nBiDi:      {:?}\nextension: {:?}",
                    format.as_str(),
                    bidi_normalised.get(from..(at + 200).min(bidi_normalised.len())).unwrap_or(""),
                    extension_normalised.get(from..(at + 200).min(extension_normalised.len())).unwrap_or(""),
                );
            }
        }
    }
}

/// The snapshot text with each document's context id replaced by `context-N` (N: the document's
/// index) and each document's "ai" reference prefix by `prefix-N-`; everything else untouched.
fn normalised(snapshot: &str, format: SnapshotFormat) -> String {
    let parsed: Value = match format {
        SnapshotFormat::Json => serde_json::from_str(snapshot).expect("the JSON snapshot parses"),
        SnapshotFormat::Yaml => serde_yaml::from_str(snapshot).expect("the YAML snapshot parses"),
    };
    let mut text = snapshot.to_owned();
    for (index, document) in parsed["documents"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
    {
        if let Some(context) = document["contextId"].as_str() {
            text = text.replace(&quoted(context), &quoted(&format!("context-{index}")));
        }
        // References are `<prefix>e<N>` with one random prefix per document.
        let prefix = nodes(&document["root"])
            .into_iter()
            .filter_map(|node| node["aria-ref"].as_str())
            .find_map(|reference| reference.rfind('e').map(|end| reference[..end].to_owned()));
        if let Some(prefix) = prefix {
            text = text.replace(&format!("\"{prefix}e"), &format!("\"prefix-{index}-e"));
        }
    }
    text
}

/// A string as both formats quote it (a JSON string; the YAML writer quotes the same way for
/// these ASCII identifiers).
fn quoted(text: &str) -> String {
    serde_json::to_string(text).expect("a string")
}
