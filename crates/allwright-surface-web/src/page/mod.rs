//! Element operations on one browsing context (a tab or a frame), through WebDriver BiDi only.
//!
//! A [`Page`] pairs a [`BidiConnection`] with a browsing context id. Reading the page (finding
//! elements, visibility, text, hit tests, highlights) runs small functions in the `allwright`
//! sandbox realm ([`scripts`]); acting on it is real input (`input.performActions`), so the
//! page sees trusted events with `isTrusted: true`, CSS `:hover` applies, and ancestors get
//! their `mouseenter`. Screenshots are `browsingContext.captureScreenshot`. Nothing here speaks
//! CDP (the protocol rule in ARCHITECTURE.md, "Invariants").

pub mod files;
mod image;
pub mod keys;
pub mod params;
mod screenshot;
pub mod scripts;

use serde_json::Value;

use crate::bidi::{
    BidiConnection, BidiError, BidiErrorKind, CommandFailure, DEFAULT_COMMAND_TIMEOUT,
};
pub use image::image_dimensions;
use params::{
    boolean_argument, call_function_params, element_argument, read_call_function_result,
    remote_boolean, remote_elements, remote_json, remote_string, string_argument,
};
pub use params::{ChildContext, ImageFormat, ScreenshotArea};

/// A reference to one element: its BiDi shared id (WebDriver BiDi, script.SharedReference),
/// valid in every realm of the document it was found in until that document goes away.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ElementHandle {
    pub shared_id: String,
}

/// An element and the browsing context (document) it is in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ElementInContext {
    pub context: String,
    pub element: ElementHandle,
}

/// Where an element operation looks for elements.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct QueryOptions {
    /// Also match inside open shadow roots (a plain `querySelectorAll` stops at them).
    pub pierce_shadow_roots: bool,
}

/// The element found where the pointer would land instead of the target.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CoveringElement {
    pub tag: String,
    pub id: String,
    pub class_name: String,
    /// The start of its text, whitespace collapsed (at most 60 characters).
    pub text: String,
}

impl std::fmt::Display for CoveringElement {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(formatter, "<{}", self.tag)?;
        if !self.id.is_empty() {
            write!(formatter, " id=\"{}\"", self.id)?;
        }
        if !self.class_name.is_empty() {
            write!(formatter, " class=\"{}\"", self.class_name)?;
        }
        write!(formatter, ">")?;
        if !self.text.is_empty() {
            write!(formatter, " with text {:?}", self.text)?;
        }
        Ok(())
    }
}

/// Where a pointer action landed, in CSS pixels of the viewport of the page's own context.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PointerPoint {
    pub x: i64,
    pub y: i64,
}

/// How pointer input reaches an element inside a frame. Either way, the point is first checked
/// in every ancestor document: translated by each frame's position, it must hit the frame
/// element there, so a frame hidden behind something in its parent is refused like a covered
/// element.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PointerRouting {
    /// Send `input.performActions` to the frame's own context with coordinates of the frame's
    /// viewport (WebDriver BiDi, input.performActions: `origin: "viewport"` is the viewport of
    /// the navigable named by `context`). Works in Chromium 156 and Firefox 153, for
    /// same-origin and cross-origin frames alike.
    #[default]
    FrameViewport,
    /// Send `input.performActions` to the top-level context, with the point translated to the
    /// top-level viewport.
    ///
    /// SPEC DIFFERENCE: Firefox 153 loses such a click when the frame is cross-origin (an
    /// out-of-process frame under Fission): no event reaches the frame, nor the embedding
    /// page (`frame_element_click_lands_on_the_element_through_top_level_coordinates` in
    /// tests/element_operations.rs). Chromium 156 delivers it. Kept for comparison only.
    TopLevelViewport,
}

/// Where [`Page::drag`] releases the button.
#[derive(Debug, Clone, Copy)]
pub enum DragEnd<'a> {
    /// At the in-view centre of this element of the same document.
    OnElement(&'a ElementHandle),
    /// At the press point moved by this many CSS pixels.
    ByOffset { x: i64, y: i64 },
}

/// A drag planned by [`Page::press_for_drag`] (or [`Page::drag`]): the context its input goes
/// to, its press and release points there, and both in the frame's own viewport.
#[derive(Debug, Clone)]
pub struct PressedDrag {
    context: String,
    start: PointerPoint,
    end: PointerPoint,
    points_in_frame: (PointerPoint, PointerPoint),
}

/// A failed element operation.
#[derive(Debug, Clone, PartialEq)]
pub enum PageError {
    /// A BiDi command failed (the context is gone, the connection closed, a timeout).
    Bidi(BidiError),
    /// `input.performActions` was sent, then failed: an error answer, a closed connection, or
    /// no answer in time (a handler that holds the page's thread holds the command too). The
    /// input may have reached the page, wholly or in part, so it must not be sent again.
    InputOutcomeUnknown(BidiError),
    /// The selector is not valid CSS.
    InvalidSelector { selector: String, message: String },
    /// No element matched the selector.
    NoElement { selector: String },
    /// A page function threw (the element went away mid-call, for example).
    Script { message: String },
    /// Something else is where the pointer would land.
    Covered {
        covering: CoveringElement,
        point: PointerPoint,
    },
    /// The element has no box a pointer could reach (hidden, empty, or scrolled out of reach).
    NotVisible,
    /// The element is no longer in its document.
    Detached,
    /// The element does not take typed text (a checkbox, a date picker, disabled, read-only).
    NotEditable,
    /// The element did not take focus.
    NotFocusable,
    /// A key name that is not known.
    InvalidKey(String),
    /// The frame's element could not be found in its parent document.
    FrameElementNotFound { context: String },
    /// A drag would end outside the viewport, where pointer input cannot go.
    OutsideViewport { point: PointerPoint },
    /// The browser answered something this client cannot read.
    UnexpectedResult(String),
}

impl PageError {
    /// The allwright tool error code this failure becomes (docs/protocol/tools.md, "Error codes").
    pub fn tool_error_code(&self) -> &'static str {
        match self {
            Self::Bidi(error) => error.kind.tool_error_code(),
            Self::InputOutcomeUnknown(_) => "outcome_unknown",
            Self::InvalidSelector { .. } | Self::InvalidKey(_) => "invalid_arguments",
            Self::NoElement { .. } | Self::Detached => "ref_not_found",
            Self::Covered { .. }
            | Self::NotVisible
            | Self::NotEditable
            | Self::NotFocusable
            | Self::OutsideViewport { .. } => "not_actionable",
            Self::FrameElementNotFound { .. } => "frame_not_found",
            Self::Script { .. } | Self::UnexpectedResult(_) => "script_failed",
        }
    }
}

impl std::fmt::Display for PageError {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Bidi(error) => write!(formatter, "{error}"),
            Self::InputOutcomeUnknown(error) => write!(
                formatter,
                "the input was sent to the browser, then failed ({error}): it may have reached the page"
            ),
            Self::InvalidSelector { selector, message } => {
                write!(formatter, "invalid CSS selector {selector:?}: {message}")
            }
            Self::NoElement { selector } => write!(formatter, "no element matches {selector:?}"),
            Self::Script { message } => write!(formatter, "the page function failed: {message}"),
            Self::Covered { covering, point } => write!(
                formatter,
                "the element is covered by {covering} at ({}, {})",
                point.x, point.y
            ),
            Self::NotVisible => write!(formatter, "the element is not visible"),
            Self::Detached => write!(formatter, "the element is no longer in the document"),
            Self::NotEditable => write!(formatter, "the element does not take typed text"),
            Self::NotFocusable => write!(formatter, "the element cannot take focus"),
            Self::InvalidKey(detail) => write!(formatter, "invalid key: {detail}"),
            Self::FrameElementNotFound { context } => write!(
                formatter,
                "the frame element of context {context} is not in its parent document"
            ),
            Self::OutsideViewport { point } => write!(
                formatter,
                "the drag would end at ({}, {}), outside the viewport",
                point.x, point.y
            ),
            Self::UnexpectedResult(detail) => write!(formatter, "{detail}"),
        }
    }
}

impl std::error::Error for PageError {}

impl From<BidiError> for PageError {
    fn from(error: BidiError) -> Self {
        // A shared id that no longer resolves means the element (or its document) went away.
        if error.kind == BidiErrorKind::NoSuchElement {
            return Self::Detached;
        }
        Self::Bidi(error)
    }
}

/// The result of [`Page::fill`]: the control's value after typing (a `maxlength` or an input
/// handler may have changed it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FillOutcome {
    pub value: String,
}

/// The colour of [`Page::highlight`] outlines.
pub const HIGHLIGHT_COLOUR: &str = "#e8590c";

/// One browsing context, driven over a BiDi connection.
#[derive(Clone, Copy)]
pub struct Page<'connection> {
    connection: &'connection BidiConnection,
    context: &'connection str,
    pointer_routing: PointerRouting,
}

impl<'connection> Page<'connection> {
    pub fn new(connection: &'connection BidiConnection, context: &'connection str) -> Self {
        Self {
            connection,
            context,
            pointer_routing: PointerRouting::default(),
        }
    }

    /// `page.accessibilitySnapshot({format, mode, timeoutMs})`: the version-1 snapshot of this
    /// page and all its frames (crate::snapshot, docs/protocol/core.md "The same snapshot over
    /// WebDriver BiDi"). Called on a frame's page, the frame is the snapshot's top document.
    pub async fn accessibility_snapshot(
        &self,
        options: &crate::snapshot::SnapshotOptions,
    ) -> Result<String, crate::snapshot::SnapshotError> {
        crate::snapshot::accessibility_snapshot(self.connection, self.context, options).await
    }

    pub fn with_pointer_routing(mut self, routing: PointerRouting) -> Self {
        self.pointer_routing = routing;
        self
    }

    pub fn context(&self) -> &str {
        self.context
    }

    pub fn connection(&self) -> &'connection BidiConnection {
        self.connection
    }

    /// Runs a sandbox function and returns its remote value.
    async fn call(&self, function: &str, arguments: Vec<Value>) -> Result<Value, PageError> {
        self.call_in(self.context, function, arguments).await
    }

    async fn call_in(
        &self,
        context: &str,
        function: &str,
        arguments: Vec<Value>,
    ) -> Result<Value, PageError> {
        let result = self
            .connection
            .command(
                "script.callFunction",
                call_function_params(context, function, arguments),
            )
            .await?;
        read_call_function_result(&result)
    }

    // ----- Finding elements and reading them -----

    /// Every element matching `selector` (CSS; `[aria-ref="..."]` is CSS too), in document
    /// order, then each open shadow root's matches when asked.
    pub async fn query_all(
        &self,
        selector: &str,
        options: QueryOptions,
    ) -> Result<Vec<ElementHandle>, PageError> {
        let remote = self
            .call(
                scripts::QUERY_SELECTOR_ALL,
                vec![
                    string_argument(selector),
                    boolean_argument(options.pierce_shadow_roots),
                ],
            )
            .await
            .map_err(|error| match error {
                // querySelectorAll throws a SyntaxError (a DOMException) for a bad selector.
                PageError::Script { message } => PageError::InvalidSelector {
                    selector: selector.to_owned(),
                    message,
                },
                other => other,
            })?;
        remote_elements(&remote)
    }

    /// The first element matching `selector`, or [`PageError::NoElement`].
    pub async fn query(
        &self,
        selector: &str,
        options: QueryOptions,
    ) -> Result<ElementHandle, PageError> {
        self.query_all(selector, options)
            .await?
            .into_iter()
            .next()
            .ok_or_else(|| PageError::NoElement {
                selector: selector.to_owned(),
            })
    }

    pub async fn count(&self, selector: &str, options: QueryOptions) -> Result<usize, PageError> {
        Ok(self.query_all(selector, options).await?.len())
    }

    pub async fn exists(&self, selector: &str, options: QueryOptions) -> Result<bool, PageError> {
        Ok(self.count(selector, options).await? > 0)
    }

    /// Whether each element is visible (rendered, `visibility: visible`, a non-empty box).
    pub async fn visibility(&self, elements: &[ElementHandle]) -> Result<Vec<bool>, PageError> {
        let remote = self
            .call(
                scripts::VISIBILITY_OF_ELEMENTS,
                elements.iter().map(element_argument).collect(),
            )
            .await?;
        let visible = remote_json(&remote)?;
        visible
            .as_array()
            .map(|items| {
                items
                    .iter()
                    .map(|item| item.as_bool() == Some(true))
                    .collect()
            })
            .ok_or_else(|| PageError::UnexpectedResult(format!("visibility answered {visible}")))
    }

    /// Whether at least one element matching `selector` is visible.
    pub async fn is_visible(
        &self,
        selector: &str,
        options: QueryOptions,
    ) -> Result<bool, PageError> {
        let elements = self.query_all(selector, options).await?;
        if elements.is_empty() {
            return Ok(false);
        }
        Ok(self.visibility(&elements).await?.contains(&true))
    }

    /// The element's rendered text (`innerText`).
    pub async fn inner_text(&self, element: &ElementHandle) -> Result<String, PageError> {
        self.read_text(element, "innerText").await
    }

    /// All the element's text, rendered or not (`textContent`).
    pub async fn text_content(&self, element: &ElementHandle) -> Result<String, PageError> {
        self.read_text(element, "textContent").await
    }

    async fn read_text(&self, element: &ElementHandle, which: &str) -> Result<String, PageError> {
        let remote = self
            .call(
                scripts::READ_TEXT,
                vec![element_argument(element), string_argument(which)],
            )
            .await?;
        remote_string(&remote)
    }

    /// The value of a text control, or the text of an editable element.
    pub async fn value(&self, element: &ElementHandle) -> Result<String, PageError> {
        let remote = self
            .call(scripts::READ_VALUE, vec![element_argument(element)])
            .await?;
        remote_string(&remote)
    }

    // ----- Focus and keyboard -----

    /// Focuses the element (`element.focus()` in the sandbox: a focus change by script, as
    /// the page's own code would do it; BiDi has no focus command).
    pub async fn focus(&self, element: &ElementHandle) -> Result<(), PageError> {
        let remote = self
            .call(scripts::FOCUS, vec![element_argument(element)])
            .await?;
        if remote_boolean(&remote)? {
            Ok(())
        } else {
            Err(PageError::NotFocusable)
        }
    }

    /// The viewport's size in CSS pixels, as the page's media queries see it.
    pub async fn viewport_size(&self) -> Result<crate::emulation::ViewportSize, PageError> {
        let remote = self.call(scripts::INNER_VIEWPORT_SIZE, Vec::new()).await?;
        crate::emulation::read_viewport_size(&remote_json(&remote)?)
    }

    /// Whether the element holds its document's focus now (key input would reach it).
    pub async fn holds_focus(&self, element: &ElementHandle) -> Result<bool, PageError> {
        let remote = self
            .call(scripts::HOLDS_FOCUS, vec![element_argument(element)])
            .await?;
        remote_boolean(&remote)
    }

    /// Presses one key combination (`"Enter"`, `"Control+a"`, `"Shift+ArrowLeft"`) in the
    /// focused element, with real key input (WebDriver BiDi, input.performActions, key source).
    pub async fn press(&self, chord: &str) -> Result<(), PageError> {
        let chord = keys::parse_key_chord(chord).map_err(PageError::InvalidKey)?;
        self.perform_actions(params::key_chord_actions_params(self.context, &chord))
            .await
    }

    /// Types `text` into the focused element, one real key press per character.
    pub async fn type_text(&self, text: &str) -> Result<(), PageError> {
        let values = keys::typing_key_values(text);
        if values.is_empty() {
            return Ok(());
        }
        self.perform_actions(params::typing_actions_params(self.context, &values))
            .await
    }

    /// Replaces the value of a text control or editable element with `text`, as a user does:
    /// focus, select everything, then type (or press Backspace to empty it).
    ///
    /// Typing was chosen over setting `value` and firing `input`/`change` from the sandbox:
    /// real key input runs the page's `keydown`/`beforeinput`/`input` handlers with trusted
    /// events, in the order a browser fires them, and frameworks that track the value through
    /// their own setter (React's controlled inputs) see the change without a special case. The
    /// price is one key press per character, so a long text takes longer.
    pub async fn fill(
        &self,
        element: &ElementHandle,
        text: &str,
    ) -> Result<FillOutcome, PageError> {
        let remote = self
            .call(scripts::PREPARE_FILL, vec![element_argument(element)])
            .await?;
        let prepared = remote_json(&remote)?;
        match prepared["status"].as_str() {
            Some("ok") => {}
            Some("not-editable") => return Err(PageError::NotEditable),
            Some("not-focusable") => return Err(PageError::NotFocusable),
            _ => {
                return Err(PageError::UnexpectedResult(format!(
                    "preparing the fill answered {prepared}"
                )))
            }
        }
        let had_value = prepared["value"]
            .as_str()
            .is_some_and(|value| !value.is_empty());
        if text.is_empty() {
            if had_value {
                self.press("Backspace").await?;
            }
        } else {
            self.type_text(text).await?;
        }
        Ok(FillOutcome {
            value: self.value(element).await?,
        })
    }

    // ----- Pointer -----

    /// Clicks the element with the main mouse button at its in-view centre, after scrolling it
    /// into view and checking that nothing covers that point.
    pub async fn click(&self, element: &ElementHandle) -> Result<PointerPoint, PageError> {
        self.pointer_at(element, true).await
    }

    /// Moves the mouse onto the element's in-view centre (same checks as [`Page::click`]).
    pub async fn hover(&self, element: &ElementHandle) -> Result<PointerPoint, PageError> {
        self.pointer_at(element, false).await
    }

    /// Drags the element with the main mouse button: pressed at its in-view centre, moved in
    /// steps to `end` (another element's in-view centre, or an offset from the press), released
    /// there (`params::drag_actions_params`). Both ends are scrolled into view and hit-tested as
    /// a click's target is, the source last, then the drop target once more, so that neither is
    /// covered nor scrolled away when the input goes; an end outside the viewport is refused
    /// before anything is sent. Answers where the press and the release were.
    pub async fn drag(
        &self,
        source: &ElementHandle,
        end: DragEnd<'_>,
    ) -> Result<(PointerPoint, PointerPoint), PageError> {
        let planned = self.plan_drag(source, end).await?;
        self.perform_actions(params::drag_actions_params(
            &planned.context,
            planned.start,
            planned.end,
        ))
        .await?;
        Ok(planned.points_in_frame)
    }

    /// The first half of [`Page::drag`], for a browser that must be asked between the press and
    /// the moves (src/browser_bridge/input.rs: Firefox, whose native HTML5 drag from real input
    /// never ends): the same checks, then the press alone. The button stays down until
    /// [`Page::finish_pressed_drag`] or [`Page::release_pressed_drag`].
    pub async fn press_for_drag(
        &self,
        source: &ElementHandle,
        end: DragEnd<'_>,
    ) -> Result<PressedDrag, PageError> {
        let planned = self.plan_drag(source, end).await?;
        self.perform_actions(params::drag_press_params(&planned.context, planned.start))
            .await?;
        Ok(planned)
    }

    /// The moves and the release of a drag begun with [`Page::press_for_drag`].
    pub async fn finish_pressed_drag(&self, pressed: &PressedDrag) -> Result<(), PageError> {
        self.perform_actions(params::drag_move_and_release_params(
            &pressed.context,
            pressed.start,
            pressed.end,
        ))
        .await
    }

    /// The release, where it was pressed, of a drag begun with [`Page::press_for_drag`] whose
    /// moves will not come (the page's drag was finished by other means).
    pub async fn release_pressed_drag(&self, pressed: &PressedDrag) -> Result<(), PageError> {
        self.perform_actions(params::release_in_place_params(&pressed.context))
            .await
    }

    /// Where a drag presses and releases, in the coordinates of the context its input goes to,
    /// after every check of [`Page::drag`]; nothing is sent.
    async fn plan_drag(
        &self,
        source: &ElementHandle,
        end: DragEnd<'_>,
    ) -> Result<PressedDrag, PageError> {
        let drop_point = match end {
            DragEnd::OnElement(target) => Some((target, self.pointer_target(target).await?)),
            DragEnd::ByOffset { .. } => None,
        };
        let start = self.pointer_target(source).await?;
        let end_point = match (end, &drop_point) {
            (_, Some((target, point))) => {
                self.check_hit_in(self.context, target, *point, &scripts::HIT_TEST_AT_POINT)
                    .await?;
                *point
            }
            (DragEnd::ByOffset { x, y }, None) => PointerPoint {
                x: start.x + x,
                y: start.y + y,
            },
            (DragEnd::OnElement(_), None) => unreachable!("an element's point was measured"),
        };
        let viewport = self.viewport_size().await?;
        let inside = |point: PointerPoint| {
            point.x >= 0
                && point.y >= 0
                && point.x < i64::from(viewport.width)
                && point.y < i64::from(viewport.height)
        };
        if !inside(end_point) {
            return Err(PageError::OutsideViewport { point: end_point });
        }
        let (top_level_context, top_level_start) = self.translate_to_top_level(start).await?;
        self.check_hit_in(self.context, source, start, &scripts::HIT_TEST_AT_POINT)
            .await?;
        let (context, offset) = match self.pointer_routing {
            PointerRouting::FrameViewport => (self.context.to_owned(), (0, 0)),
            PointerRouting::TopLevelViewport => (
                top_level_context,
                (top_level_start.x - start.x, top_level_start.y - start.y),
            ),
        };
        let shift = |point: PointerPoint| PointerPoint {
            x: point.x + offset.0,
            y: point.y + offset.1,
        };
        Ok(PressedDrag {
            context,
            start: shift(start),
            end: shift(end_point),
            points_in_frame: (start, end_point),
        })
    }

    /// Releases every key and button this session's input sources hold (WebDriver BiDi,
    /// input.releaseActions). Needed after an action was cut short, for instance by a prompt
    /// that opened between the press and the release of a click, so that the next action does
    /// not start with a button still down.
    pub async fn release_input(&self) -> Result<(), PageError> {
        self.connection
            .command(
                "input.releaseActions",
                serde_json::json!({ "context": self.context }),
            )
            .await?;
        Ok(())
    }

    /// The in-view centre of the element in its own viewport, after scrolling it into view, or
    /// the reason a pointer cannot reach it there.
    pub async fn pointer_target(&self, element: &ElementHandle) -> Result<PointerPoint, PageError> {
        self.pointer_target_in(self.context, element).await
    }

    async fn pointer_target_in(
        &self,
        context: &str,
        element: &ElementHandle,
    ) -> Result<PointerPoint, PageError> {
        let remote = self
            .call_in(
                context,
                &scripts::PREPARE_POINTER_TARGET,
                vec![element_argument(element)],
            )
            .await?;
        read_pointer_target(&remote_json(&remote)?)
    }

    async fn pointer_at(
        &self,
        element: &ElementHandle,
        click: bool,
    ) -> Result<PointerPoint, PageError> {
        let point = self.pointer_target(element).await?;
        // The translation checks the frame chain even when the input goes to the frame.
        let (top_level_context, top_level_point) = self.translate_to_top_level(point).await?;
        // The last look before the input, after the round trips above: the element must still
        // be the top hit at the same point of its viewport (a page that scrolled, re-rendered or
        // laid something over it meanwhile is refused, naming the cover), and a document that
        // navigated no longer holds the element at all (docs/protocol/action-safety.md, "A ref means one
        // element").
        self.check_hit_in(self.context, element, point, &scripts::HIT_TEST_AT_POINT)
            .await?;
        let (context, sent_point) = match self.pointer_routing {
            PointerRouting::FrameViewport => (self.context.to_owned(), point),
            PointerRouting::TopLevelViewport => (top_level_context, top_level_point),
        };
        self.perform_actions(params::pointer_actions_params(
            &context,
            sent_point.x,
            sent_point.y,
            click,
        ))
        .await?;
        Ok(point)
    }

    /// Sends `input.performActions` with `params`. A failure once the command was sent is
    /// [`PageError::InputOutcomeUnknown`], never an error that invites a retry: the browser may
    /// have dispatched the input (a handler that busy-loops in `mousedown` holds the answer
    /// until the client's wait is over, and the click still happens afterwards).
    async fn perform_actions(&self, params: Value) -> Result<(), PageError> {
        match self
            .connection
            .command_telling_whether_sent("input.performActions", params, real_input_timeout())
            .await
        {
            Ok(_) => Ok(()),
            Err(CommandFailure::NotSent(error)) => Err(PageError::from(error)),
            Err(CommandFailure::AfterSending(error)) => Err(PageError::InputOutcomeUnknown(error)),
        }
    }

    /// Translates a point of this context's viewport to the top-level context's viewport,
    /// frame by frame: in each parent, the frame element is scrolled into view if needed, the
    /// point is offset by the frame's content box, and the parent's hit test must find the
    /// frame element there (a frame hidden behind something in its parent is refused).
    async fn translate_to_top_level(
        &self,
        point: PointerPoint,
    ) -> Result<(String, PointerPoint), PageError> {
        let mut context = self.context.to_owned();
        let mut point = point;
        while let Some(parent) = self.parent_context(&context).await? {
            let (frame_element, origin_x, origin_y) =
                self.frame_element_and_origin(&parent, &context).await?;
            point = PointerPoint {
                x: (origin_x + point.x as f64).floor() as i64,
                y: (origin_y + point.y as f64).floor() as i64,
            };
            self.check_hit_in(
                &parent,
                &frame_element,
                point,
                scripts::FRAME_HIT_TEST_AT_POINT,
            )
            .await?;
            context = parent;
        }
        Ok((context, point))
    }

    /// The top-level context and where this context's viewport starts in the top-level
    /// viewport (the sum of the frames' content-box origins on the way up).
    async fn viewport_origin_in_top_level(&self) -> Result<(String, f64, f64), PageError> {
        let mut context = self.context.to_owned();
        let (mut x, mut y) = (0.0, 0.0);
        while let Some(parent) = self.parent_context(&context).await? {
            let (_, origin_x, origin_y) = self.frame_element_and_origin(&parent, &context).await?;
            x += origin_x;
            y += origin_y;
            context = parent;
        }
        Ok((context, x, y))
    }

    /// The element embedding `child` in the `parent` document, and where the child's viewport
    /// starts in the parent's viewport.
    async fn frame_element_and_origin(
        &self,
        parent: &str,
        child: &str,
    ) -> Result<(ElementHandle, f64, f64), PageError> {
        let frames = self
            .call_in(parent, scripts::FRAME_ELEMENTS_WITH_WINDOWS, Vec::new())
            .await?;
        let frame_element = params::remote_frame_elements(&frames)
            .into_iter()
            .find(|(_, frame_context)| frame_context == child)
            .map(|(frame_element, _)| frame_element)
            .ok_or_else(|| PageError::FrameElementNotFound {
                context: child.to_owned(),
            })?;
        let origin = remote_json(
            &self
                .call_in(
                    parent,
                    scripts::FRAME_CONTENT_ORIGIN,
                    vec![element_argument(&frame_element)],
                )
                .await?,
        )?;
        match (origin["x"].as_f64(), origin["y"].as_f64()) {
            (Some(x), Some(y)) => Ok((frame_element, x, y)),
            _ => Err(PageError::UnexpectedResult(format!(
                "the frame origin is {origin}"
            ))),
        }
    }

    /// Checks that the point of `context`'s viewport reaches `element`, as `hit_test` (one of
    /// HIT_TEST_AT_POINT, for the target, and FRAME_HIT_TEST_AT_POINT, for a frame element)
    /// judges it.
    async fn check_hit_in(
        &self,
        context: &str,
        element: &ElementHandle,
        point: PointerPoint,
        hit_test: &str,
    ) -> Result<(), PageError> {
        let remote = self
            .call_in(
                context,
                hit_test,
                vec![
                    element_argument(element),
                    params::number_argument(point.x),
                    params::number_argument(point.y),
                ],
            )
            .await?;
        read_pointer_target(&remote_json(&remote)?).map(|_| ())
    }

    async fn parent_context(&self, context: &str) -> Result<Option<String>, PageError> {
        let tree = self
            .connection
            .command(
                "browsingContext.getTree",
                serde_json::json!({ "root": context, "maxDepth": 0 }),
            )
            .await?;
        Ok(params::read_parent_context(&tree))
    }

    // ----- Highlight -----

    /// Draws an outline over the element (an overlay that takes no pointer input).
    pub async fn highlight(&self, element: &ElementHandle) -> Result<(), PageError> {
        self.call(
            scripts::HIGHLIGHT,
            vec![element_argument(element), string_argument(HIGHLIGHT_COLOUR)],
        )
        .await?;
        Ok(())
    }

    /// Removes every highlight of this document and answers how many there were.
    pub async fn remove_highlights(&self) -> Result<u64, PageError> {
        let remote = self.call(scripts::REMOVE_HIGHLIGHTS, Vec::new()).await?;
        remote["value"].as_u64().ok_or_else(|| {
            PageError::UnexpectedResult(format!("removing highlights answered {remote}"))
        })
    }

    // ----- Frames -----

    /// The frames of this document (its child browsing contexts), in document order.
    pub async fn child_contexts(&self) -> Result<Vec<ChildContext>, PageError> {
        let tree = self
            .connection
            .command(
                "browsingContext.getTree",
                params::child_contexts_params(self.context),
            )
            .await?;
        Ok(params::read_child_contexts(&tree))
    }

    /// Every element matching `selector` in this document and in all its frames, depth first
    /// in document order, each with the context it is in. This is how an element marked by the
    /// extension (a short-lived marker attribute) is found without knowing its frame: the
    /// extension's frame ids and BiDi context ids are different namespaces.
    pub async fn query_all_in_frames(
        &self,
        selector: &str,
        options: QueryOptions,
    ) -> Result<Vec<ElementInContext>, PageError> {
        let tree = self
            .connection
            .command(
                "browsingContext.getTree",
                params::context_tree_params(self.context),
            )
            .await?;
        let mut found = Vec::new();
        for context in params::contexts_depth_first(&tree) {
            let frame = Page {
                connection: self.connection,
                context: &context,
                pointer_routing: self.pointer_routing,
            };
            match frame.query_all(selector, options).await {
                Ok(elements) => {
                    found.extend(elements.into_iter().map(|element| ElementInContext {
                        context: context.clone(),
                        element,
                    }))
                }
                // A frame that went away during the walk has nothing to find.
                Err(PageError::Bidi(error)) if error.kind == BidiErrorKind::NoSuchFrame => {}
                Err(error) => return Err(error),
            }
        }
        Ok(found)
    }

    /// A page for another context on the same connection (a frame from
    /// [`Page::child_contexts`]), with the same pointer routing.
    pub fn frame(&self, context: &'connection str) -> Page<'connection> {
        Page {
            connection: self.connection,
            context,
            pointer_routing: self.pointer_routing,
        }
    }
}

/// Reads the JSON answer of PREPARE_POINTER_TARGET, HIT_TEST_AT_POINT or FRAME_HIT_TEST_AT_POINT.
pub fn read_pointer_target(answer: &Value) -> Result<PointerPoint, PageError> {
    let point = || -> Result<PointerPoint, PageError> {
        match (answer["x"].as_f64(), answer["y"].as_f64()) {
            (Some(x), Some(y)) => Ok(PointerPoint {
                x: x.floor() as i64,
                y: y.floor() as i64,
            }),
            _ => Err(PageError::UnexpectedResult(format!(
                "the pointer target has no point: {answer}"
            ))),
        }
    };
    match answer["status"].as_str() {
        Some("ok") => point(),
        Some("covered") => {
            let covering = &answer["covering"];
            let text = |key: &str| covering[key].as_str().unwrap_or_default().to_owned();
            Err(PageError::Covered {
                covering: CoveringElement {
                    tag: text("tag"),
                    id: text("id"),
                    class_name: text("className"),
                    text: text("text"),
                },
                point: point()?,
            })
        }
        Some("not-visible") => Err(PageError::NotVisible),
        Some("detached") => Err(PageError::Detached),
        _ => Err(PageError::UnexpectedResult(format!(
            "the pointer target answered {answer}"
        ))),
    }
}

/// The environment variable that sets how long real input (`input.performActions`) may wait for
/// the browser's answer, in milliseconds (1,000 to 300,000; anything else keeps the default).
pub const REAL_INPUT_TIMEOUT_VARIABLE: &str = "ALLWRIGHT_INPUT_TIMEOUT_MS";

/// How long real input waits for the browser's answer: [`DEFAULT_COMMAND_TIMEOUT`], or
/// [`REAL_INPUT_TIMEOUT_VARIABLE`]. A page whose handler holds its thread longer makes the input
/// `outcome_unknown` (never retried); the browser tests shorten the wait so that their busy page
/// need not hold its thread for half a minute (tests/extension/once.rs).
fn real_input_timeout() -> std::time::Duration {
    static TIMEOUT: std::sync::OnceLock<std::time::Duration> = std::sync::OnceLock::new();
    *TIMEOUT.get_or_init(|| {
        std::env::var(REAL_INPUT_TIMEOUT_VARIABLE)
            .ok()
            .and_then(|text| text.trim().parse::<u64>().ok())
            .filter(|milliseconds| (1_000..=300_000).contains(milliseconds))
            .map_or(DEFAULT_COMMAND_TIMEOUT, std::time::Duration::from_millis)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn pointer_targets_are_read_and_covering_elements_named() {
        assert_eq!(
            read_pointer_target(&json!({"status": "ok", "x": 10, "y": 20})),
            Ok(PointerPoint { x: 10, y: 20 })
        );
        let covered = read_pointer_target(&json!({
            "status": "covered", "x": 5, "y": 6,
            "covering": {"tag": "div", "id": "cookie-banner", "className": "overlay modal", "text": "We use cookies"}
        }));
        let Err(error) = covered else {
            panic!("expected a refusal, got {covered:?}")
        };
        assert_eq!(error.tool_error_code(), "not_actionable");
        assert_eq!(
            error.to_string(),
            "the element is covered by <div id=\"cookie-banner\" class=\"overlay modal\"> with text \"We use cookies\" at (5, 6)"
        );
        assert_eq!(
            read_pointer_target(&json!({"status": "not-visible"})),
            Err(PageError::NotVisible)
        );
        assert_eq!(
            read_pointer_target(&json!({"status": "detached"})),
            Err(PageError::Detached)
        );
        assert!(read_pointer_target(&json!({"status": "ok"})).is_err());
        assert!(read_pointer_target(&json!(null)).is_err());
    }

    #[test]
    fn a_stale_shared_id_is_a_detached_element() {
        let error = PageError::from(BidiError::from_remote("no such node", "gone"));
        assert_eq!(error, PageError::Detached);
        assert_eq!(error.tool_error_code(), "ref_not_found");
        let other = PageError::from(BidiError::from_remote("no such frame", "gone"));
        assert_eq!(other.tool_error_code(), "frame_not_found");
    }
}
