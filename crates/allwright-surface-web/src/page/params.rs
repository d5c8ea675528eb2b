//! Parameter builders and result readers for the BiDi commands a [`super::Page`] sends. Pure
//! functions, so that every message shape is unit-tested without a browser.

use serde_json::{json, Value};

use super::keys::KeyChord;
use super::{ElementHandle, PageError, PointerPoint};

/// The sandbox realm allwright's page functions run in (WebDriver BiDi, script.callFunction:
/// `target: {context, sandbox}`). The browser creates it on first use, once per document.
pub const SANDBOX_NAME: &str = "allwright";

/// The id of the one pointer input source allwright uses. The id names the source across
/// `input.performActions` calls, so the browser remembers where this mouse is: a later move
/// from there fires the right `mouseout`/`mouseleave` events.
pub const MOUSE_SOURCE_ID: &str = "allwright-mouse";
pub const KEYBOARD_SOURCE_ID: &str = "allwright-keyboard";

/// A `script.callFunction` argument (WebDriver BiDi, script.LocalValue).
pub fn string_argument(value: &str) -> Value {
    json!({ "type": "string", "value": value })
}

pub fn boolean_argument(value: bool) -> Value {
    json!({ "type": "boolean", "value": value })
}

pub fn number_argument(value: i64) -> Value {
    json!({ "type": "number", "value": value })
}

/// An element passed by reference (script.SharedReference): the same node in any realm of the
/// document, the sandbox included.
pub fn element_argument(element: &ElementHandle) -> Value {
    json!({ "sharedId": element.shared_id })
}

/// `script.callFunction` in the allwright sandbox of `context`. Promises are awaited; results are
/// not kept alive in the realm (`resultOwnership: "none"`), since nodes come back by shared id.
pub fn call_function_params(context: &str, function: &str, arguments: Vec<Value>) -> Value {
    json!({
        "functionDeclaration": function,
        "arguments": arguments,
        "target": { "context": context, "sandbox": SANDBOX_NAME },
        "awaitPromise": true,
        "resultOwnership": "none",
        "serializationOptions": { "maxDomDepth": 0, "maxObjectDepth": 2 },
    })
}

/// The remote value a `script.callFunction` produced, or the exception it threw
/// (WebDriver BiDi, script.EvaluateResult: `{type: "success", result}` or
/// `{type: "exception", exceptionDetails: {text, ...}}`).
pub fn read_call_function_result(result: &Value) -> Result<Value, PageError> {
    match result.get("type").and_then(Value::as_str) {
        Some("success") => Ok(result.get("result").cloned().unwrap_or(Value::Null)),
        Some("exception") => {
            let details = &result["exceptionDetails"];
            let text = details["text"]
                .as_str()
                .or_else(|| details["exception"]["value"].as_str())
                .unwrap_or("the script threw an exception")
                .to_owned();
            Err(PageError::Script { message: text })
        }
        _ => Err(PageError::UnexpectedResult(format!(
            "script.callFunction returned neither success nor exception: {result}"
        ))),
    }
}

/// A string remote value's text.
pub fn remote_string(remote: &Value) -> Result<String, PageError> {
    match (remote["type"].as_str(), remote["value"].as_str()) {
        (Some("string"), Some(text)) => Ok(text.to_owned()),
        _ => Err(PageError::UnexpectedResult(format!(
            "expected a string from the page, got {remote}"
        ))),
    }
}

/// A boolean remote value.
pub fn remote_boolean(remote: &Value) -> Result<bool, PageError> {
    match (remote["type"].as_str(), remote["value"].as_bool()) {
        (Some("boolean"), Some(value)) => Ok(value),
        _ => Err(PageError::UnexpectedResult(format!(
            "expected a boolean from the page, got {remote}"
        ))),
    }
}

/// A JSON document the page function returned as a string.
pub fn remote_json(remote: &Value) -> Result<Value, PageError> {
    let text = remote_string(remote)?;
    serde_json::from_str(&text).map_err(|error| {
        PageError::UnexpectedResult(format!("the page function returned bad JSON: {error}"))
    })
}

/// The elements of an array remote value of nodes (script.NodeRemoteValue with `sharedId`).
pub fn remote_elements(remote: &Value) -> Result<Vec<ElementHandle>, PageError> {
    let items = match (remote["type"].as_str(), remote["value"].as_array()) {
        (Some("array"), Some(items)) => items,
        _ => {
            return Err(PageError::UnexpectedResult(format!(
                "expected an array of elements from the page, got {remote}"
            )))
        }
    };
    items
        .iter()
        .map(
            |item| match (item["type"].as_str(), item["sharedId"].as_str()) {
                (Some("node"), Some(shared_id)) => Ok(ElementHandle {
                    shared_id: shared_id.to_owned(),
                }),
                _ => Err(PageError::UnexpectedResult(format!(
                    "expected a node with a sharedId, got {item}"
                ))),
            },
        )
        .collect()
}

/// The pairs `[frame element, window]` that FRAME_ELEMENTS_WITH_WINDOWS returns, as
/// (element, child context id). A frame whose window has no context (not loaded) is skipped.
pub fn remote_frame_elements(remote: &Value) -> Vec<(ElementHandle, String)> {
    remote["value"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .filter_map(|pair| {
            let pair = pair["value"].as_array()?;
            let shared_id = pair.first()?["sharedId"].as_str()?;
            let window = pair.get(1)?;
            let context = window["value"]["context"].as_str()?;
            Some((
                ElementHandle {
                    shared_id: shared_id.to_owned(),
                },
                context.to_owned(),
            ))
        })
        .collect()
}

/// `input.performActions` that moves the mouse to a point of the context's viewport and, for a
/// click, presses and releases the main button there (WebDriver BiDi, input.performActions:
/// a pointer source, `pointerMove` with `origin: "viewport"`, then `pointerDown`/`pointerUp`).
/// Coordinates are whole CSS pixels: the in-view centre point is floored already.
pub fn pointer_actions_params(context: &str, x: i64, y: i64, click: bool) -> Value {
    let mut actions = vec![json!({
        "type": "pointerMove", "x": x, "y": y, "origin": "viewport", "duration": 0
    })];
    if click {
        actions.push(json!({ "type": "pointerDown", "button": 0 }));
        actions.push(json!({ "type": "pointerUp", "button": 0 }));
    }
    json!({
        "context": context,
        "actions": [{
            "type": "pointer",
            "id": MOUSE_SOURCE_ID,
            "parameters": { "pointerType": "mouse" },
            "actions": actions,
        }],
    })
}

/// How many moves carry a drag from its press to its release (the content script's drag takes
/// as many: extension/content/actions/drag.js).
pub const DRAG_STEPS: i64 = 12;
/// How long each of those moves takes, in milliseconds: about a frame, as a hand moves.
const DRAG_STEP_MS: i64 = 25;
/// The first move's distance from the press, below every library's activation distance.
const DRAG_FIRST_MOVE_PX: f64 = 2.0;

/// `input.performActions` of a drag: the mouse moved to `start`, the main button pressed, a
/// first small move, [`DRAG_STEPS`] moves to `end` (each over [`DRAG_STEP_MS`]), one more there
/// (libraries that rearranged the list on the last move see the pointer settled), and the
/// release. One command, so that nothing can come between the press and the release.
pub fn drag_actions_params(context: &str, start: PointerPoint, end: PointerPoint) -> Value {
    let mut actions = drag_press_actions(start);
    actions.extend(drag_move_and_release_actions(start, end));
    mouse_actions_params(context, actions)
}

/// The press of a drag alone: the mouse moved to `start` and the main button pressed. The
/// button stays down (the session's input state keeps it, WebDriver BiDi, "input state") until
/// [`drag_move_and_release_params`] or [`release_in_place_params`] follows.
pub fn drag_press_params(context: &str, start: PointerPoint) -> Value {
    mouse_actions_params(context, drag_press_actions(start))
}

/// The rest of a drag pressed with [`drag_press_params`]: the moves and the release.
pub fn drag_move_and_release_params(
    context: &str,
    start: PointerPoint,
    end: PointerPoint,
) -> Value {
    mouse_actions_params(context, drag_move_and_release_actions(start, end))
}

/// The release of a pressed button where the mouse is, without moving it.
pub fn release_in_place_params(context: &str) -> Value {
    mouse_actions_params(context, vec![json!({ "type": "pointerUp", "button": 0 })])
}

fn drag_press_actions(start: PointerPoint) -> Vec<Value> {
    vec![
        json!({ "type": "pointerMove", "x": start.x, "y": start.y, "origin": "viewport", "duration": 0 }),
        json!({ "type": "pointerDown", "button": 0 }),
    ]
}

fn drag_move_and_release_actions(start: PointerPoint, end: PointerPoint) -> Vec<Value> {
    let (dx, dy) = ((end.x - start.x) as f64, (end.y - start.y) as f64);
    let length = dx.hypot(dy);
    let (unit_x, unit_y) = if length == 0.0 {
        (1.0, 0.0)
    } else {
        (dx / length, dy / length)
    };
    let move_to = |x: i64, y: i64, duration: i64| json!({ "type": "pointerMove", "x": x, "y": y, "origin": "viewport", "duration": duration });
    let mut actions = vec![move_to(
        start.x + (unit_x * DRAG_FIRST_MOVE_PX).round() as i64,
        start.y + (unit_y * DRAG_FIRST_MOVE_PX).round() as i64,
        DRAG_STEP_MS,
    )];
    for step in 1..=DRAG_STEPS {
        actions.push(move_to(
            start.x + (end.x - start.x) * step / DRAG_STEPS,
            start.y + (end.y - start.y) * step / DRAG_STEPS,
            DRAG_STEP_MS,
        ));
    }
    actions.push(move_to(end.x, end.y, 2 * DRAG_STEP_MS));
    actions.push(json!({ "type": "pointerUp", "button": 0 }));
    actions
}

/// One `input.performActions` of the session's mouse ([`MOUSE_SOURCE_ID`]).
fn mouse_actions_params(context: &str, actions: Vec<Value>) -> Value {
    json!({
        "context": context,
        "actions": [{
            "type": "pointer",
            "id": MOUSE_SOURCE_ID,
            "parameters": { "pointerType": "mouse" },
            "actions": actions,
        }],
    })
}

/// `input.performActions` that holds the chord's modifiers, presses and releases its key, then
/// releases the modifiers in reverse order.
pub fn key_chord_actions_params(context: &str, chord: &KeyChord) -> Value {
    let mut actions = Vec::new();
    for modifier in &chord.modifiers {
        actions.push(json!({ "type": "keyDown", "value": modifier }));
    }
    actions.push(json!({ "type": "keyDown", "value": chord.key }));
    actions.push(json!({ "type": "keyUp", "value": chord.key }));
    for modifier in chord.modifiers.iter().rev() {
        actions.push(json!({ "type": "keyUp", "value": modifier }));
    }
    key_actions_params(context, actions)
}

/// `input.performActions` that types each key value (down, then up).
pub fn typing_actions_params(context: &str, key_values: &[String]) -> Value {
    let actions = key_values
        .iter()
        .flat_map(|value| {
            [
                json!({ "type": "keyDown", "value": value }),
                json!({ "type": "keyUp", "value": value }),
            ]
        })
        .collect();
    key_actions_params(context, actions)
}

fn key_actions_params(context: &str, actions: Vec<Value>) -> Value {
    json!({
        "context": context,
        "actions": [{ "type": "key", "id": KEYBOARD_SOURCE_ID, "actions": actions }],
    })
}

/// What a screenshot shows.
#[derive(Debug, Clone, PartialEq)]
pub enum ScreenshotArea {
    /// What is in the viewport now.
    Viewport,
    /// The whole document, scrolled parts included (`origin: "document"`).
    FullPage,
    /// One element's border box; nothing is scrolled, and the element may lie outside the
    /// viewport. `Page::screenshot` captures it as a [`ScreenshotArea::DocumentBox`] (see there
    /// why not as `clip: {type: "element"}`).
    Element(ElementHandle),
    /// A rectangle in CSS pixels of the viewport (`clip: {type: "box"}`, `origin: "viewport"`).
    Box {
        x: f64,
        y: f64,
        width: f64,
        height: f64,
    },
    /// A rectangle in CSS pixels of the document (`clip: {type: "box"}`, `origin: "document"`):
    /// the same place whatever the page's scroll.
    DocumentBox {
        x: f64,
        y: f64,
        width: f64,
        height: f64,
    },
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ImageFormat {
    Png,
    /// JPEG with a quality from 0 to 100.
    Jpeg {
        quality: u8,
    },
}

/// `browsingContext.captureScreenshot` (WebDriver BiDi, browsingContext.captureScreenshot:
/// `origin` "viewport" or "document", `format: {type, quality}` with quality from 0.0 to 1.0,
/// `clip` an element or a box).
pub fn capture_screenshot_params(
    context: &str,
    area: &ScreenshotArea,
    format: ImageFormat,
) -> Value {
    let mut params = json!({ "context": context });
    params["format"] = match format {
        ImageFormat::Png => json!({ "type": "image/png" }),
        ImageFormat::Jpeg { quality } => {
            json!({ "type": "image/jpeg", "quality": f64::from(quality.min(100)) / 100.0 })
        }
    };
    match area {
        ScreenshotArea::Viewport => params["origin"] = json!("viewport"),
        ScreenshotArea::FullPage => params["origin"] = json!("document"),
        ScreenshotArea::Element(element) => {
            params["origin"] = json!("document");
            params["clip"] = json!({ "type": "element", "element": element_argument(element) });
        }
        ScreenshotArea::DocumentBox {
            x,
            y,
            width,
            height,
        } => {
            params["origin"] = json!("document");
            params["clip"] =
                json!({ "type": "box", "x": x, "y": y, "width": width, "height": height });
        }
        ScreenshotArea::Box {
            x,
            y,
            width,
            height,
        } => {
            params["origin"] = json!("viewport");
            params["clip"] =
                json!({ "type": "box", "x": x, "y": y, "width": width, "height": height });
        }
    }
    params
}

/// The image bytes of a `browsingContext.captureScreenshot` result (`{data: base64}`).
pub fn screenshot_bytes(result: &Value) -> Result<Vec<u8>, PageError> {
    let data = result["data"].as_str().ok_or_else(|| {
        PageError::UnexpectedResult(format!("captureScreenshot returned no data: {result}"))
    })?;
    crate::base64::decode(data).map_err(|error| {
        PageError::UnexpectedResult(format!("captureScreenshot data is not base64: {error}"))
    })
}

/// The ids of the top-level contexts (the tabs) of a `browsingContext.getTree` result without a
/// root.
pub fn top_level_contexts(tree: &Value) -> Vec<String> {
    tree["contexts"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|context| context["context"].as_str().map(str::to_owned))
        .collect()
}

/// A child browsing context (a frame) from `browsingContext.getTree`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChildContext {
    pub context: String,
    pub url: String,
}

/// `browsingContext.getTree` rooted at one context, one level down: its frames.
pub fn child_contexts_params(context: &str) -> Value {
    json!({ "root": context, "maxDepth": 1 })
}

/// The direct children of the root of a `browsingContext.getTree` result, in document order.
pub fn read_child_contexts(result: &Value) -> Vec<ChildContext> {
    result["contexts"][0]["children"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .filter_map(|child| {
            Some(ChildContext {
                context: child["context"].as_str()?.to_owned(),
                url: child["url"].as_str().unwrap_or_default().to_owned(),
            })
        })
        .collect()
}

/// `browsingContext.getTree` rooted at one context, all the way down.
pub fn context_tree_params(context: &str) -> Value {
    json!({ "root": context })
}

/// Every context of a `browsingContext.getTree` result, depth first in document order (the
/// root, then each frame followed by its own frames).
pub fn contexts_depth_first(result: &Value) -> Vec<String> {
    let mut order = Vec::new();
    let mut pending: Vec<&Value> = result["contexts"]
        .as_array()
        .map(|contexts| contexts.iter().rev().collect())
        .unwrap_or_default();
    while let Some(info) = pending.pop() {
        if let Some(context) = info["context"].as_str() {
            order.push(context.to_owned());
        }
        if let Some(children) = info["children"].as_array() {
            pending.extend(children.iter().rev());
        }
    }
    order
}

/// The parent of a context from a `browsingContext.getTree` result rooted at it (`parent` is
/// null or absent for a top-level context).
pub fn read_parent_context(result: &Value) -> Option<String> {
    result["contexts"][0]["parent"].as_str().map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::page::keys::parse_key_chord;

    fn element(id: &str) -> ElementHandle {
        ElementHandle {
            shared_id: id.to_owned(),
        }
    }

    #[test]
    fn functions_run_in_the_allwright_sandbox_with_typed_arguments() {
        let params = call_function_params(
            "ctx",
            "(a, b, c) => 1",
            vec![
                string_argument("#x"),
                boolean_argument(true),
                element_argument(&element("s1")),
            ],
        );
        assert_eq!(
            params["target"],
            json!({"context": "ctx", "sandbox": "allwright"})
        );
        assert_eq!(params["awaitPromise"], json!(true));
        assert_eq!(
            params["arguments"],
            json!([{"type": "string", "value": "#x"}, {"type": "boolean", "value": true}, {"sharedId": "s1"}])
        );
    }

    #[test]
    fn call_results_and_exceptions_are_read() {
        let success =
            json!({"type": "success", "result": {"type": "string", "value": "hi"}, "realm": "r"});
        let remote = read_call_function_result(&success).expect("success");
        assert_eq!(remote_string(&remote), Ok("hi".to_owned()));
        assert!(remote_boolean(&remote).is_err());
        let thrown = json!({"type": "exception", "exceptionDetails": {"text": "SyntaxError: bad selector", "lineNumber": 0}});
        assert_eq!(
            read_call_function_result(&thrown),
            Err(PageError::Script {
                message: "SyntaxError: bad selector".into()
            })
        );
        assert!(read_call_function_result(&json!({})).is_err());
        assert_eq!(
            remote_json(&json!({"type": "string", "value": "{\"a\":1}"})),
            Ok(json!({"a": 1}))
        );
    }

    #[test]
    fn node_arrays_become_element_handles() {
        let remote = json!({"type": "array", "value": [
            {"type": "node", "sharedId": "f.1.d.2.e.3", "value": {"nodeType": 1}},
            {"type": "node", "sharedId": "f.1.d.2.e.4"}
        ]});
        assert_eq!(
            remote_elements(&remote),
            Ok(vec![element("f.1.d.2.e.3"), element("f.1.d.2.e.4")])
        );
        assert!(remote_elements(
            &json!({"type": "array", "value": [{"type": "number", "value": 1}]})
        )
        .is_err());
        assert!(remote_elements(&json!({"type": "null"})).is_err());
    }

    #[test]
    fn frame_elements_pair_with_their_window_context() {
        let remote = json!({"type": "array", "value": [
            {"type": "array", "value": [{"type": "node", "sharedId": "n1"}, {"type": "window", "value": {"context": "C1"}}]},
            {"type": "array", "value": [{"type": "node", "sharedId": "n2"}, {"type": "null"}]}
        ]});
        assert_eq!(
            remote_frame_elements(&remote),
            vec![(element("n1"), "C1".to_owned())]
        );
    }

    #[test]
    fn a_click_is_a_move_then_press_and_release_of_the_main_button() {
        let params = pointer_actions_params("ctx", 10, 20, true);
        let source = &params["actions"][0];
        assert_eq!(source["type"], "pointer");
        assert_eq!(source["parameters"]["pointerType"], "mouse");
        assert_eq!(
            source["actions"],
            json!([
                {"type": "pointerMove", "x": 10, "y": 20, "origin": "viewport", "duration": 0},
                {"type": "pointerDown", "button": 0},
                {"type": "pointerUp", "button": 0}
            ])
        );
        let hover = pointer_actions_params("ctx", 1, 2, false);
        assert_eq!(
            hover["actions"][0]["actions"].as_array().map(Vec::len),
            Some(1)
        );
    }

    #[test]
    fn a_drag_presses_moves_in_steps_and_releases_in_one_command() {
        let start = PointerPoint { x: 10, y: 20 };
        let end = PointerPoint { x: 130, y: 20 };
        let params = drag_actions_params("ctx", start, end);
        let actions = params["actions"][0]["actions"]
            .as_array()
            .expect("the pointer's actions");
        assert_eq!(params["actions"][0]["id"], MOUSE_SOURCE_ID);
        assert_eq!(actions[0]["x"], 10);
        assert_eq!(actions[1], json!({"type": "pointerDown", "button": 0}));
        // A first small move, below every activation distance.
        assert_eq!(
            (actions[2]["x"].as_i64(), actions[2]["y"].as_i64()),
            (Some(12), Some(20))
        );
        let moves = &actions[3..actions.len() - 1];
        assert_eq!(moves.len() as i64, DRAG_STEPS + 1);
        assert!(moves.iter().all(|action| action["type"] == "pointerMove"
            && action["duration"].as_i64().is_some_and(|ms| ms > 0)));
        assert_eq!(moves[0]["x"], 20);
        assert_eq!(moves[moves.len() - 1]["x"], 130);
        assert_eq!(
            actions.last(),
            Some(&json!({"type": "pointerUp", "button": 0}))
        );
        // Up and to the left: the steps go that way.
        let back = drag_actions_params("ctx", end, start);
        assert_eq!(back["actions"][0]["actions"][2]["x"], 128);
    }

    #[test]
    fn a_chord_holds_its_modifiers_around_the_key() {
        let chord = parse_key_chord("Control+Shift+a").expect("chord");
        let params = key_chord_actions_params("ctx", &chord);
        let values: Vec<(String, String)> = params["actions"][0]["actions"]
            .as_array()
            .expect("actions")
            .iter()
            .map(|action| {
                (
                    action["type"].as_str().unwrap_or_default().to_owned(),
                    action["value"].as_str().unwrap_or_default().to_owned(),
                )
            })
            .collect();
        let expected = [
            ("keyDown", "\u{E009}"),
            ("keyDown", "\u{E008}"),
            ("keyDown", "a"),
            ("keyUp", "a"),
            ("keyUp", "\u{E008}"),
            ("keyUp", "\u{E009}"),
        ];
        assert_eq!(
            values,
            expected.map(|(kind, value)| (kind.to_owned(), value.to_owned()))
        );
        let typing = typing_actions_params("ctx", &["x".to_owned()]);
        assert_eq!(typing["actions"][0]["type"], "key");
        assert_eq!(
            typing["actions"][0]["actions"].as_array().map(Vec::len),
            Some(2)
        );
    }

    #[test]
    fn screenshots_name_origin_clip_and_format() {
        let viewport = capture_screenshot_params("c", &ScreenshotArea::Viewport, ImageFormat::Png);
        assert_eq!(
            viewport,
            json!({"context": "c", "origin": "viewport", "format": {"type": "image/png"}})
        );
        let full = capture_screenshot_params(
            "c",
            &ScreenshotArea::FullPage,
            ImageFormat::Jpeg { quality: 80 },
        );
        assert_eq!(full["origin"], "document");
        assert_eq!(
            full["format"],
            json!({"type": "image/jpeg", "quality": 0.8})
        );
        let one = capture_screenshot_params(
            "c",
            &ScreenshotArea::Element(element("s9")),
            ImageFormat::Png,
        );
        assert_eq!(
            one["clip"],
            json!({"type": "element", "element": {"sharedId": "s9"}})
        );
        let boxed = capture_screenshot_params(
            "c",
            &ScreenshotArea::Box {
                x: 1.0,
                y: 2.0,
                width: 3.0,
                height: 4.0,
            },
            ImageFormat::Png,
        );
        assert_eq!(
            boxed["clip"],
            json!({"type": "box", "x": 1.0, "y": 2.0, "width": 3.0, "height": 4.0})
        );
        assert_eq!(
            screenshot_bytes(&json!({"data": "iVBORw=="})),
            Ok(vec![0x89, b'P', b'N', b'G'])
        );
        assert!(screenshot_bytes(&json!({})).is_err());
    }

    #[test]
    fn child_contexts_and_parents_are_read_from_get_tree() {
        let tree = json!({"contexts": [{"context": "top", "parent": null, "url": "http://a/", "children": [
            {"context": "f1", "url": "http://a/frame.html", "children": []},
            {"context": "f2", "url": "about:blank"}
        ]}]});
        assert_eq!(
            read_child_contexts(&tree),
            vec![
                ChildContext {
                    context: "f1".into(),
                    url: "http://a/frame.html".into()
                },
                ChildContext {
                    context: "f2".into(),
                    url: "about:blank".into()
                }
            ]
        );
        assert_eq!(read_parent_context(&tree), None);
        let child = json!({"contexts": [{"context": "f1", "parent": "top", "children": []}]});
        assert_eq!(read_parent_context(&child), Some("top".to_owned()));
        assert!(read_child_contexts(&json!({})).is_empty());
    }

    #[test]
    fn the_context_tree_is_walked_depth_first_in_document_order() {
        let tree = json!({"contexts": [{"context": "top", "children": [
            {"context": "a", "children": [{"context": "a1", "children": []}]},
            {"context": "b", "children": []}
        ]}]});
        assert_eq!(contexts_depth_first(&tree), ["top", "a", "a1", "b"]);
        assert_eq!(context_tree_params("top"), json!({"root": "top"}));
    }
}
