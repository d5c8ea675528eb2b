//! Which lines of the text tree print their `[ref_N]` (docs/protocol/reading.md, "Which lines print
//! their reference"). A reference is printed where the agent can use it: on what it can act on, and on
//! what a tool accepts a reference for and needs. Everywhere else (paragraphs, headings, list
//! items, rows, cells, terms, ...) the reference token is a tenth of the line and carries nothing
//! an agent acts on, so the line leaves it out.
//!
//! Only the printing changes: the registry still numbers and stores every shown element exactly as
//! before (the renderer still asks it for a reference), so numbering stays stable across reads,
//! a reference from an older read still resolves while its element lives, and
//! `conversationRootRefId` names its element whether or not its line printed it.

use crate::aria::Role;
use crate::tree::{AxNode, AxRole};

/// Whether the line of `node` prints its reference. `is_start` is true for the node a rendering
/// starts from: the anchor of a `ref_id` read and each open overlay under the banner.
///
/// A line keeps its reference when the node is:
/// - interactive (`AxNode::interactive`: a widget role, a tabindex, editable content, an inline
///   click or press handler, a `<summary>`, its own `cursor: pointer`): the acting tools (click_ax, type_ax, set_field,
///   select_option, hover, press_key) take these;
/// - a list item whose nested list is hidden (`AxNode::collapsed`): clicking it is how a
///   hand-made folder tree shows what is inside;
/// - focusable in any way (`AxNode::focusable`: `tabindex="-1"` included): roving-tabindex items
///   and skip-link targets, which press_key and scroll target;
/// - an `<iframe>` or `<frame>`: screenshot, scroll and the frame tools start from its line;
/// - a shadow host, its root open or closed (read or not): get_shadow_dom and shadow_dom_query
///   take its reference;
/// - a scroll container (computed `overflow` `auto` or `scroll`): scroll moves it by its
///   reference;
/// - something that opens a popup (`aria-haspopup`), even on a role that is not a widget: hover
///   opens such menus;
/// - a container the agent zooms into with `ref_id` (the paging notice and the tool's description
///   tell it to): landmarks, articles, dialogs, tables and grids, lists, trees, tab panels, feeds
///   and logs (a chat or mail thread's container), figures; only when its lines are long enough
///   that zooming pays (`ReferencePrinting::IfLargeContainer`);
/// - an image: screenshot takes an element's reference, and a picture or chart is what an agent
///   screenshots; not an image inside a link or a control, whose own reference covers it (a
///   product photo inside its link, a logo inside the home link);
/// - the anchor of the read or an open overlay (the agent already holds that reference, and a
///   continuation repeats it), and the conversation root the read reports
///   (`conversationRootRefId`): the caller passes these as `is_start`.
///
/// One interactive role prints none: an option of a drop-down `<select>`
/// (`in_native_drop_down`). The browser draws those options in its own popup, outside the
/// page: they have no box to click, hover or screenshot, and select_option chooses them by
/// label or value through the reference of their select. Playwright's "ai" snapshot gives
/// them no reference either (its rule: non-rendered elements get none).
pub(crate) fn prints_reference(
    node: &AxNode,
    is_start: bool,
    parent_interactive: bool,
    in_native_drop_down: bool,
) -> ReferencePrinting {
    use ReferencePrinting::{Always, IfLargeContainer, Never};
    if in_native_drop_down && node.role == AxRole::Aria(Role::Option) {
        return if is_start { Always } else { Never };
    }
    if is_start
        || node.interactive
        || node.focusable
        || node.shadow_host
        || node.scroll_container
        || node.closed_shadow_root
        || node.collapsed
    {
        return Always;
    }
    let role = match node.role {
        AxRole::Iframe => return Always,
        AxRole::Text | AxRole::Document => return Never,
        AxRole::Aria(role) => role,
    };
    if opens_popup(node) || (is_screenshot_target(role) && !parent_interactive) {
        Always
    } else if is_zoom_container(role) {
        IfLargeContainer
    } else {
        Never
    }
}

/// Whether a line prints its reference.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum ReferencePrinting {
    Always,
    /// Only when the container's lines are long enough to be worth zooming into (the text tree
    /// measures them once they are rendered: `text::drop_references_of_small_containers`).
    IfLargeContainer,
    Never,
}

/// `aria-haspopup` with a value that means a popup (ARIA 1.2: anything but `false`).
fn opens_popup(node: &AxNode) -> bool {
    node.properties
        .iter()
        .any(|(key, value)| *key == "haspopup" && value.to_text() != "false")
}

/// Containers whose subtree is a unit an agent reads on its own with `ref_id`.
fn is_zoom_container(role: Role) -> bool {
    role.is_landmark()
        || matches!(
            role,
            Role::Article
                | Role::Dialog
                | Role::AlertDialog
                | Role::Table
                | Role::Grid
                | Role::TreeGrid
                | Role::Tree
                | Role::List
                | Role::TabPanel
                | Role::Feed
                | Role::Log
                | Role::Figure
                | Role::Application
                | Role::Document
        )
}

/// Roles whose element an agent screenshots to see what the text cannot say.
fn is_screenshot_target(role: Role) -> bool {
    matches!(role, Role::Image | Role::GraphicsDocument | Role::Math)
}
