//! `page.accessibilitySnapshot` over WebDriver BiDi: the version-1 snapshot of a page and all
//! its frames, byte for byte the document the extension writes for the same page
//! (docs/protocol/channels.md, section 3, `snapshot_document` and "The same snapshot over WebDriver BiDi").
//!
//! How it is collected:
//! - `browsingContext.getTree` with `root` gives the page's browsing contexts. Every frame is a
//!   context of its own, cross-origin frames included, so each document is collected in its own
//!   context, depth-first, the top document first.
//! - In each context the page-side collector (`embedded/bidi-snapshot.js`, written by ./scripts/build and embedded by build.rs)
//!   runs in a sandbox realm named [`SANDBOX`] (WebDriver BiDi, "script.callFunction" with
//!   `target.sandbox`): the page's own scripts see none of it, and nothing is compiled that the
//!   page's CSP could forbid (the collector carries the core as plain JS). Only the `aria-ref`
//!   attributes of "ai" mode are written to the page, as the spec says.
//! - The collector is evaluated once per document: each call first asks the sandbox for it and
//!   installs it only when it is missing (a new document has a new sandbox). It is not installed
//!   with `script.addPreloadScript`: a preload script runs in every document of the session,
//!   snapshotted or not, and pages that no snapshot reads should pay nothing.
//! - The documents are joined with the core's own [`allwright_ax::snapshot::assemble`], the rule
//!   the extension's background follows too (extension/background/reads/snapshot-plan.js).
//!
//! A frame that goes away while it is read (`no such frame`) fails the whole call with
//! [`SnapshotErrorKind::FrameDetached`], a script failure with [`SnapshotErrorKind::ScriptFailed`]:
//! never a partial snapshot. The timeout covers the whole call.

use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::bidi::{BidiConnection, BidiError, BidiErrorKind};

pub use allwright_ax::snapshot::Format as SnapshotFormat;

/// The page-side collector, as build.rs found it in `embedded/bidi-snapshot.js` (empty when the
/// build had none).
const COLLECTOR_SCRIPT: &str = include_str!(concat!(env!("OUT_DIR"), "/bidi-snapshot.js"));

/// The name of the sandbox realm the collector lives in, the same in every document.
pub const SANDBOX: &str = "allwright-snapshot";

/// The default of `timeoutMs` in docs/protocol/tools.md ("The tool table", `accessibility_snapshot`).
pub const DEFAULT_SNAPSHOT_TIMEOUT: Duration = Duration::from_secs(10);

/// Called in the sandbox of each document: the collector's document for the arguments (a JSON
/// text), or null when the collector is not installed in this realm yet.
const CALL_COLLECTOR: &str = "async function (argumentsJson) {
  const surface = globalThis.allwrightSurface;
  if (surface === undefined) return null;
  return await surface.snapshotDocument(JSON.parse(argumentsJson));
}";

/// Snapshot modes besides the default (docs/protocol/channels.md, section 3: the "ai" mode of the snapshot).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SnapshotMode {
    /// Elements that can be acted on carry an `aria-ref`, usable as `[aria-ref="..."]` in the
    /// document's frame, unique across the documents and stable across captures.
    Ai,
}

impl SnapshotMode {
    fn as_str(self) -> &'static str {
        match self {
            Self::Ai => "ai",
        }
    }
}

/// `page.accessibilitySnapshot({format, mode, timeoutMs})`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SnapshotOptions {
    pub format: SnapshotFormat,
    pub mode: Option<SnapshotMode>,
    /// For the whole call, every frame included.
    pub timeout: Duration,
}

impl Default for SnapshotOptions {
    fn default() -> Self {
        Self {
            format: SnapshotFormat::Json,
            mode: None,
            timeout: DEFAULT_SNAPSHOT_TIMEOUT,
        }
    }
}

/// Why a snapshot failed, as a closed set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SnapshotErrorKind {
    /// A frame (or the page) went away while it was read.
    FrameDetached,
    /// The collector threw, or its answer was unusable.
    ScriptFailed,
    /// The call did not finish within its timeout.
    Timeout,
    /// The crate was built without `embedded/bidi-snapshot.js` (`ALLWRIGHT_ALLOW_MISSING_EXTENSION=1`).
    BundleMissing,
    /// The BiDi connection is gone.
    NotConnected,
}

impl SnapshotErrorKind {
    /// The allwright tool error code (docs/protocol/tools.md, "Error codes").
    pub fn code(self) -> &'static str {
        match self {
            Self::FrameDetached => "frame_detached",
            Self::ScriptFailed => "script_failed",
            Self::Timeout => "timeout",
            Self::BundleMissing => "bundle_missing",
            Self::NotConnected => "not_connected",
        }
    }
}

/// A failed snapshot: what kind of failure, and a sentence for people.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SnapshotError {
    pub kind: SnapshotErrorKind,
    pub message: String,
}

impl SnapshotError {
    fn new(kind: SnapshotErrorKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
        }
    }

    fn timeout(after: Duration) -> Self {
        Self::new(
            SnapshotErrorKind::Timeout,
            format!(
                "the accessibility snapshot did not finish within {} ms",
                after.as_millis()
            ),
        )
    }

    /// A failed BiDi command while `what` was done.
    fn from_bidi(error: &BidiError, what: &str, timeout: Duration) -> Self {
        match error.kind {
            BidiErrorKind::NoSuchFrame => Self::new(
                SnapshotErrorKind::FrameDetached,
                format!("{what}: the browsing context went away ({error})"),
            ),
            BidiErrorKind::Timeout => Self::timeout(timeout),
            BidiErrorKind::ConnectionClosed => {
                Self::new(SnapshotErrorKind::NotConnected, format!("{what}: {error}"))
            }
            _ => Self::new(SnapshotErrorKind::ScriptFailed, format!("{what}: {error}")),
        }
    }
}

impl std::fmt::Display for SnapshotError {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(formatter, "{}: {}", self.kind.code(), self.message)
    }
}

impl std::error::Error for SnapshotError {}

/// One document to collect: its browsing context and its parent's (none for the top).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlannedDocument {
    pub context: String,
    pub parent: Option<String>,
}

/// The documents of a `browsingContext.getTree` result (with `root`), depth-first, each context
/// followed by its children in the order the browser lists them, the root first with no parent
/// (the top page followed by its frames' documents in depth-first order, as the extension
/// orders them: docs/protocol/channels.md, section 3).
pub fn plan_documents(tree: &Value) -> Result<Vec<PlannedDocument>, SnapshotError> {
    let root = tree
        .get("contexts")
        .and_then(Value::as_array)
        .and_then(|contexts| contexts.first())
        .ok_or_else(|| {
            SnapshotError::new(
                SnapshotErrorKind::FrameDetached,
                format!("browsingContext.getTree named no context: {tree}"),
            )
        })?;
    let mut planned = Vec::new();
    // An explicit stack: frames can nest deeply; children are pushed in reverse so that the
    // first child is visited first.
    let mut stack: Vec<(&Value, Option<String>)> = vec![(root, None)];
    while let Some((info, parent)) = stack.pop() {
        let context = info
            .get("context")
            .and_then(Value::as_str)
            .ok_or_else(|| {
                SnapshotError::new(
                    SnapshotErrorKind::ScriptFailed,
                    format!("browsingContext.getTree gave a context without an id: {info}"),
                )
            })?
            .to_owned();
        let children = info
            .get("children")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default();
        for child in children.iter().rev() {
            stack.push((child, Some(context.clone())));
        }
        planned.push(PlannedDocument { context, parent });
    }
    Ok(planned)
}

/// The arguments of the collector's `snapshotDocument` for one document.
pub fn collector_arguments(options: &SnapshotOptions, document: &PlannedDocument) -> Value {
    let mut arguments = json!({
        "format": options.format.as_str(),
        "contextId": document.context,
        "parentContextId": document.parent,
    });
    if let Some(mode) = options.mode {
        arguments["mode"] = json!(mode.as_str());
    }
    arguments
}

/// `script.callFunction` of [`CALL_COLLECTOR`] in the document's sandbox.
pub fn call_collector_params(context: &str, arguments: &Value) -> Value {
    json!({
        "functionDeclaration": CALL_COLLECTOR,
        "arguments": [{"type": "string", "value": arguments.to_string()}],
        "target": {"context": context, "sandbox": SANDBOX},
        "awaitPromise": true,
        "resultOwnership": "none",
    })
}

/// `script.evaluate` of the collector in the document's sandbox.
pub fn install_collector_params(context: &str, script: &str) -> Value {
    json!({
        "expression": script,
        "target": {"context": context, "sandbox": SANDBOX},
        "awaitPromise": false,
        "resultOwnership": "none",
    })
}

/// What one collector call gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CollectorAnswer {
    Document(String),
    /// The sandbox has no collector yet (a new document).
    NotInstalled,
}

/// Reads a `script.callFunction` / `script.evaluate` result (WebDriver BiDi,
/// "script.EvaluateResult"): a string is the document, null says the collector is missing, an
/// exception is the collector's failure.
pub fn read_collector_answer(
    result: &Value,
    context: &str,
) -> Result<CollectorAnswer, SnapshotError> {
    if result["type"] == "exception" {
        let details = &result["exceptionDetails"];
        let text = details["text"]
            .as_str()
            .map(str::to_owned)
            .unwrap_or_else(|| details.to_string());
        return Err(SnapshotError::new(
            SnapshotErrorKind::ScriptFailed,
            format!("the collector failed in browsing context {context}: {text}"),
        ));
    }
    match result["result"]["type"].as_str() {
        Some("string") => result["result"]["value"]
            .as_str()
            .map(|document| CollectorAnswer::Document(document.to_owned()))
            .ok_or_else(|| unusable(result, context)),
        Some("null") => Ok(CollectorAnswer::NotInstalled),
        _ => Err(unusable(result, context)),
    }
}

fn unusable(result: &Value, context: &str) -> SnapshotError {
    SnapshotError::new(
        SnapshotErrorKind::ScriptFailed,
        format!("the collector gave no document in browsing context {context}: {result}"),
    )
}

/// The version-1 snapshot of the page in `top_context` and all its frames, as JSON or YAML
/// (docs/protocol/core.md, "The same snapshot over WebDriver BiDi").
pub async fn accessibility_snapshot(
    connection: &BidiConnection,
    top_context: &str,
    options: &SnapshotOptions,
) -> Result<String, SnapshotError> {
    accessibility_snapshot_of_documents(connection, top_context, options)
        .await
        .map(|(snapshot, _)| snapshot)
}

/// [`accessibility_snapshot`], with how many documents it joined (the tool's `documentCount`).
pub async fn accessibility_snapshot_of_documents(
    connection: &BidiConnection,
    top_context: &str,
    options: &SnapshotOptions,
) -> Result<(String, usize), SnapshotError> {
    if COLLECTOR_SCRIPT.is_empty() {
        return Err(bundle_missing());
    }
    let deadline = Deadline::new(options.timeout);
    let tree = deadline
        .command(
            connection,
            "browsingContext.getTree",
            json!({ "root": top_context }),
        )
        .await
        .map_err(|error| {
            SnapshotError::from_bidi(&error, "reading the page's frames", options.timeout)
        })?;
    let mut documents = Vec::new();
    for planned in plan_documents(&tree)? {
        documents.push(collect_document(connection, &deadline, options, &planned).await?);
    }
    Ok((
        allwright_ax::snapshot::assemble(options.format, &documents),
        documents.len(),
    ))
}

/// One document, from its own browsing context's sandbox; installs the collector when the
/// sandbox lacks it.
async fn collect_document(
    connection: &BidiConnection,
    deadline: &Deadline,
    options: &SnapshotOptions,
    planned: &PlannedDocument,
) -> Result<String, SnapshotError> {
    let context = planned.context.as_str();
    let call = call_collector_params(context, &collector_arguments(options, planned));
    call_with_collector(connection, deadline, context, call).await
}

/// Called in the sandbox of a document for `get_accessibility_tree` in BiDi-only mode: the
/// collector's `readTree` answer for the arguments (a JSON text), or null when the collector
/// is not installed in this realm yet.
const CALL_READ_TREE: &str = "async function (argumentsJson, ...closedShadowRootHosts) {
  const surface = globalThis.allwrightSurface;
  if (surface === undefined) return null;
  return await surface.readTree(JSON.parse(argumentsJson), closedShadowRootHosts);
}";

/// `get_accessibility_tree` of the document in `context` over WebDriver BiDi alone, read by the
/// collector in its sandbox, whose registry keeps the document's refs (docs/grid.md,
/// "BiDi-only mode"). `arguments` are the tool's, plus `refFloor`; `closed_shadow_root_hosts`
/// the shared ids of the custom elements hosting a closed shadow root, which the sandbox cannot
/// tell by itself (their lines say `closed-shadow-root`, as the extension's do). The answer is
/// the collector's JSON text: `{ok: true, result}` with the extension's tree result, or
/// `{ok: false, error}` with a tool error.
pub async fn read_tree(
    connection: &BidiConnection,
    context: &str,
    arguments: &Value,
    closed_shadow_root_hosts: &[String],
    timeout: Duration,
) -> Result<String, SnapshotError> {
    let mut call_arguments = vec![json!({"type": "string", "value": arguments.to_string()})];
    call_arguments.extend(
        closed_shadow_root_hosts
            .iter()
            .map(|host| json!({ "sharedId": host })),
    );
    call_collector_function(connection, context, CALL_READ_TREE, call_arguments, timeout).await
}

/// Calls `function_declaration` with `arguments` (BiDi local values, remote references
/// included) in the collector's sandbox of the document in `context`, installing the collector
/// first when the sandbox lacks it. The function answers a string, or null when
/// `globalThis.allwrightSurface` is missing (the collector is not installed yet).
pub async fn call_collector_function(
    connection: &BidiConnection,
    context: &str,
    function_declaration: &str,
    arguments: Vec<Value>,
    timeout: Duration,
) -> Result<String, SnapshotError> {
    if COLLECTOR_SCRIPT.is_empty() {
        return Err(bundle_missing());
    }
    let deadline = Deadline::new(timeout);
    let call = json!({
        "functionDeclaration": function_declaration,
        "arguments": arguments,
        "target": {"context": context, "sandbox": SANDBOX},
        "awaitPromise": true,
        "resultOwnership": "none",
    });
    call_with_collector(connection, &deadline, context, call).await
}

/// The error of a build without the collector.
fn bundle_missing() -> SnapshotError {
    SnapshotError::new(
        SnapshotErrorKind::BundleMissing,
        "this build of allwright-surface-web has no page-side collector (embedded/bidi-snapshot.js was not built): run ./scripts/build, then build again",
    )
}

/// `call` (a `script.callFunction` in the document's sandbox that answers a string, or null
/// when the collector is missing there) with the collector installed first when the sandbox
/// lacks it: the string it answers.
async fn call_with_collector(
    connection: &BidiConnection,
    deadline: &Deadline,
    context: &str,
    call: Value,
) -> Result<String, SnapshotError> {
    let answer = match deadline
        .command(connection, "script.callFunction", call.clone())
        .await
    {
        Ok(answer) => answer,
        Err(error) => return Err(classify(connection, deadline, context, &error).await),
    };
    if let CollectorAnswer::Document(document) = read_collector_answer(&answer, context)? {
        return Ok(document);
    }
    let installed = match deadline
        .command(
            connection,
            "script.evaluate",
            install_collector_params(context, COLLECTOR_SCRIPT),
        )
        .await
    {
        Ok(installed) => installed,
        Err(error) => return Err(classify(connection, deadline, context, &error).await),
    };
    if installed["type"] == "exception" {
        return Err(SnapshotError::new(
            SnapshotErrorKind::ScriptFailed,
            format!(
                "the collector could not be installed in browsing context {context}: {}",
                installed["exceptionDetails"]
            ),
        ));
    }
    let answer = match deadline
        .command(connection, "script.callFunction", call)
        .await
    {
        Ok(answer) => answer,
        Err(error) => return Err(classify(connection, deadline, context, &error).await),
    };
    match read_collector_answer(&answer, context)? {
        CollectorAnswer::Document(document) => Ok(document),
        // The document was replaced between the installation and the call (a navigation):
        // its new sandbox has no collector, and the document read would not be the one planned.
        CollectorAnswer::NotInstalled => Err(SnapshotError::new(
            SnapshotErrorKind::FrameDetached,
            format!("browsing context {context} loaded another document while it was read"),
        )),
    }
}

/// The error of a command that failed in a document's context. Browsers do not all say
/// `no such frame` when a frame goes away during a script call (the realm may be destroyed
/// first, which is an `unknown error`), so a failure other than a timeout or a closed connection
/// asks whether the context still exists: if not, the frame was detached.
async fn classify(
    connection: &BidiConnection,
    deadline: &Deadline,
    context: &str,
    error: &BidiError,
) -> SnapshotError {
    let what = format!("reading browsing context {context}");
    let first = SnapshotError::from_bidi(error, &what, deadline.timeout);
    if first.kind != SnapshotErrorKind::ScriptFailed {
        return first;
    }
    match deadline
        .command(
            connection,
            "browsingContext.getTree",
            json!({ "root": context, "maxDepth": 0 }),
        )
        .await
    {
        Err(gone) if gone.kind == BidiErrorKind::NoSuchFrame => SnapshotError::new(
            SnapshotErrorKind::FrameDetached,
            format!("{what}: the browsing context went away ({error})"),
        ),
        _ => first,
    }
}

/// The one timeout of a snapshot call, shared by its commands.
struct Deadline {
    timeout: Duration,
    end: Instant,
}

impl Deadline {
    fn new(timeout: Duration) -> Self {
        Self {
            timeout,
            end: Instant::now() + timeout,
        }
    }

    /// A command with the time that is left; none left is a timeout.
    async fn command(
        &self,
        connection: &BidiConnection,
        method: &str,
        params: Value,
    ) -> Result<Value, BidiError> {
        let left = self.end.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(BidiError::timeout(method, self.timeout));
        }
        connection.command_with_timeout(method, params, left).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn planned(context: &str, parent: Option<&str>) -> PlannedDocument {
        PlannedDocument {
            context: context.to_owned(),
            parent: parent.map(str::to_owned),
        }
    }

    #[test]
    fn documents_are_planned_depth_first_from_the_top() {
        let tree = json!({"contexts": [{"context": "top", "url": "http://a/", "children": [
            {"context": "one", "children": [{"context": "one-a", "children": []}]},
            {"context": "two", "children": null},
        ]}]});
        assert_eq!(
            plan_documents(&tree),
            Ok(vec![
                planned("top", None),
                planned("one", Some("top")),
                planned("one-a", Some("one")),
                planned("two", Some("top")),
            ])
        );
    }

    #[test]
    fn a_tree_without_the_context_is_a_detached_frame() {
        let error = plan_documents(&json!({"contexts": []})).expect_err("no context");
        assert_eq!(error.kind, SnapshotErrorKind::FrameDetached);
    }

    #[test]
    fn the_collector_gets_the_contexts_format_and_mode() {
        let options = SnapshotOptions {
            format: SnapshotFormat::Yaml,
            mode: Some(SnapshotMode::Ai),
            timeout: Duration::from_secs(1),
        };
        assert_eq!(
            collector_arguments(&options, &planned("frame", Some("top"))),
            json!({"format": "yaml", "mode": "ai", "contextId": "frame", "parentContextId": "top"})
        );
        assert_eq!(
            collector_arguments(&SnapshotOptions::default(), &planned("top", None)),
            json!({"format": "json", "contextId": "top", "parentContextId": null})
        );
    }

    #[test]
    fn the_collector_runs_in_the_named_sandbox_of_its_context() {
        let call = call_collector_params("frame", &json!({"format": "json"}));
        assert_eq!(
            call["target"],
            json!({"context": "frame", "sandbox": SANDBOX})
        );
        assert_eq!(call["awaitPromise"], true);
        assert_eq!(call["arguments"][0]["value"], "{\"format\":\"json\"}");
        let install = install_collector_params("frame", "1");
        assert_eq!(install["target"], call["target"]);
    }

    #[test]
    fn collector_answers_are_documents_missing_collectors_or_failures() {
        let document =
            json!({"type": "success", "realm": "r", "result": {"type": "string", "value": "{}"}});
        assert_eq!(
            read_collector_answer(&document, "c"),
            Ok(CollectorAnswer::Document("{}".to_owned()))
        );
        let missing = json!({"type": "success", "realm": "r", "result": {"type": "null"}});
        assert_eq!(
            read_collector_answer(&missing, "c"),
            Ok(CollectorAnswer::NotInstalled)
        );
        let thrown = json!({"type": "exception", "realm": "r", "exceptionDetails": {"text": "Error: script_failed: boom"}});
        let error = read_collector_answer(&thrown, "c").expect_err("an exception");
        assert_eq!(error.kind, SnapshotErrorKind::ScriptFailed);
        assert!(error.message.contains("boom"), "{error}");
        let number = json!({"type": "success", "result": {"type": "number", "value": 1}});
        assert_eq!(
            read_collector_answer(&number, "c")
                .expect_err("not a string")
                .kind,
            SnapshotErrorKind::ScriptFailed
        );
    }

    #[test]
    fn bidi_failures_map_to_snapshot_errors() {
        let timeout = Duration::from_secs(2);
        let gone = BidiError::from_remote("no such frame", "context discarded");
        assert_eq!(
            SnapshotError::from_bidi(&gone, "reading", timeout)
                .kind
                .code(),
            "frame_detached"
        );
        let slow = BidiError::timeout("script.callFunction", timeout);
        assert_eq!(
            SnapshotError::from_bidi(&slow, "reading", timeout)
                .kind
                .code(),
            "timeout"
        );
        let closed = BidiError::connection_closed("gone");
        assert_eq!(
            SnapshotError::from_bidi(&closed, "reading", timeout).kind,
            SnapshotErrorKind::NotConnected
        );
        let other = BidiError::from_remote("unknown error", "odd");
        assert_eq!(
            SnapshotError::from_bidi(&other, "reading", timeout).kind,
            SnapshotErrorKind::ScriptFailed
        );
    }

    #[test]
    fn the_documents_are_joined_as_the_extension_joins_them() {
        // extension/background/reads/snapshot-plan.js `assembleSnapshot` writes the same bytes.
        let documents = vec!["{\"a\":1}".to_owned(), "{\"b\":2}".to_owned()];
        assert_eq!(
            allwright_ax::snapshot::assemble(SnapshotFormat::Json, &documents),
            "{\"version\":1,\"documents\":[{\"a\":1},{\"b\":2}]}"
        );
        assert_eq!(
            allwright_ax::snapshot::assemble(SnapshotFormat::Yaml, &[]),
            "\"version\": 1\n\"documents\": []\n"
        );
    }
}
