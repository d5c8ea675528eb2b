//! Who sees which tool: the tiers of docs/agent-tools.md ("Tiers") and the Dev mode that adds
//! developer tools to some of them.

use super::definition::ToolDefinition;
use super::table::TOOLS;

/// The tool tiers (docs/agent-tools.md, "Tiers"): Ask is read-only; Compact, Mid and Full act
/// with growing surfaces. `--dev` adds developer tools to Mid and Full.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Tier {
    Ask,
    Compact,
    Mid,
    Full,
}

/// Ask is read-only: the reading tools, scrolling (it changes what is looked at, nothing the
/// page keeps), waiting and listing tabs. Nothing that navigates, types, clicks or changes tabs.
const EVERY_TIER: &[Tier] = &[Tier::Ask, Tier::Compact, Tier::Mid, Tier::Full];
/// The core actions on a page: navigate, click, type, fill, choose, press, switch tabs.
const COMPACT_AND_ABOVE: &[Tier] = &[Tier::Compact, Tier::Mid, Tier::Full];
/// The larger surface: hovering, filling a form in one call, opening and closing tabs,
/// promoting an iframe.
const MID_AND_FULL: &[Tier] = &[Tier::Mid, Tier::Full];
/// The Full Act fallbacks (closed shadow roots, the frame inventory).
const FULL_ONLY: &[Tier] = &[Tier::Full];

/// Which tiers list a tool, without and with Dev mode.
pub struct Availability {
    pub tiers: &'static [Tier],
    /// Tiers that list the tool only in Dev mode (for example `get_frames` for Mid).
    pub dev_only_tiers: &'static [Tier],
    /// Listed only when the server holds a WebDriver BiDi session on the browser (`--launch`,
    /// `--webdriver`): the MCP server answers the tool itself, the extension never sees it,
    /// and it is left out of the extension's tool contract (docs/protocol/browser-bridge.md, "The browser
    /// bridge").
    pub needs_browser_bridge: bool,
}

impl Availability {
    pub fn is_listed(&self, tier: Tier, dev: bool) -> bool {
        self.tiers.contains(&tier) || (dev && self.dev_only_tiers.contains(&tier))
    }
}

pub const EVERYWHERE: Availability = Availability {
    tiers: EVERY_TIER,
    dev_only_tiers: &[],
    needs_browser_bridge: false,
};
pub const FROM_COMPACT: Availability = Availability {
    tiers: COMPACT_AND_ABOVE,
    dev_only_tiers: &[],
    needs_browser_bridge: false,
};
pub const FROM_MID: Availability = Availability {
    tiers: MID_AND_FULL,
    dev_only_tiers: &[],
    needs_browser_bridge: false,
};
/// The Full Act fallbacks: Full, and Mid in Dev mode, so that a page-debugging session on a Mid
/// provider can inspect web components and frames without giving Mid's ordinary Act sessions the
/// whole fallback surface.
pub const FULL_AND_DEV_MID: Availability = Availability {
    tiers: FULL_ONLY,
    dev_only_tiers: &[Tier::Mid],
    needs_browser_bridge: false,
};
/// Developer tools: every acting tier, in Dev mode only (Ask stays read-only, so Dev mode is
/// refused with Ask: see [`Tier::accepts_dev_mode`]).
pub const DEV_ONLY: Availability = Availability {
    tiers: &[],
    dev_only_tiers: COMPACT_AND_ABOVE,
    needs_browser_bridge: false,
};
/// Every acting tier, when the server holds a BiDi session: answering a dialog is an action (it
/// may confirm a deletion), so Ask leaves it to the person.
pub const FROM_COMPACT_WITH_BRIDGE: Availability = Availability {
    tiers: COMPACT_AND_ABOVE,
    dev_only_tiers: &[],
    needs_browser_bridge: true,
};
/// Full, when the server holds a BiDi session: emulating another device or user setting
/// (`emulate`) is a larger surface than the acting tiers below need.
pub const FULL_WITH_BRIDGE: Availability = Availability {
    tiers: FULL_ONLY,
    dev_only_tiers: &[],
    needs_browser_bridge: true,
};

/// The Full tier, wherever allwright runs: the page's console and requests (the bridge's records
/// in a browser allwright holds, the extension's elsewhere).
pub const FULL: Availability = Availability {
    tiers: FULL_ONLY,
    dev_only_tiers: &[],
    needs_browser_bridge: false,
};
impl Tier {
    /// The tier's name on the command line (`--tier compact`) and in the tool contract.
    pub fn name(self) -> &'static str {
        match self {
            Tier::Ask => "ask",
            Tier::Compact => "compact",
            Tier::Mid => "mid",
            Tier::Full => "full",
        }
    }

    /// Dev mode adds tools that can change the page (`execute_js`), so it applies to the
    /// acting tiers only: Ask is read-only whatever the mode.
    pub fn accepts_dev_mode(self) -> bool {
        self != Tier::Ask
    }
}

/// The active tool access of a session: a tier and whether Dev mode is on. The extension holds
/// the active one (docs/protocol/access.md, "Tool access"); the MCP server lists tools for its copy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ToolAccess {
    pub tier: Tier,
    pub dev: bool,
}

impl ToolAccess {
    /// Dev mode is meaningless in Ask (read-only): an Ask access never carries it, whoever
    /// asked for it (the side panel offers no such combination, a hand-written message might).
    pub fn new(tier: Tier, dev: bool) -> Self {
        Self {
            tier,
            dev: dev && tier.accepts_dev_mode(),
        }
    }

    /// How people read it: "mid", "full + dev".
    pub fn describe(self) -> String {
        if self.dev {
            format!("{} + dev", self.tier.name())
        } else {
            self.tier.name().to_owned()
        }
    }
}

/// The table's row for `name`, whatever the tier: tells a tool outside the tier from no tool.
pub fn tool_named(name: &str) -> Option<&'static ToolDefinition> {
    TOOLS.iter().find(|tool| tool.name == name)
}

/// The tools listed for a tier, in table order, without the tools of the browser bridge.
#[cfg(test)]
pub fn listed_tools(tier: Tier, dev: bool) -> impl Iterator<Item = &'static ToolDefinition> {
    listed_tools_in_session(tier, dev, false)
}

/// The tools listed for a tier in a session served by the extension, in table order;
/// `browser_bridge` says whether the server holds a BiDi session on the browser (see
/// [`Availability::needs_browser_bridge`]).
#[cfg(test)]
pub fn listed_tools_in_session(
    tier: Tier,
    dev: bool,
    browser_bridge: bool,
) -> impl Iterator<Item = &'static ToolDefinition> {
    listed_tools_served_by(tier, dev, ServedBy::Extension { browser_bridge })
}

/// Where a session's tools are served, which decides which of them it lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ServedBy {
    /// The extension's native host, with or without a WebDriver BiDi session on the browser
    /// beside it (the browser bridge).
    Extension { browser_bridge: bool },
    /// WebDriver BiDi alone, no extension in the browser (`--no-extension`, or a `--webdriver`
    /// remote end on another machine): docs/grid.md, "BiDi-only mode".
    BidiOnly,
}

/// The tools BiDi-only mode serves completely, every argument included, and tests
/// (tests/extension/bidi_only.rs). The one place that says it: the tool list of such a session is
/// these tools of its tier, and every other tool answers [`why_bidi_only_lacks`]'s reason.
pub const SERVED_WITHOUT_EXTENSION: &[&str] = &[
    "get_accessibility_tree",
    "accessibility_snapshot",
    "screenshot",
    "navigate",
    "click_ax",
    "type_ax",
    "set_field",
    "select_option",
    "hover",
    "press_key",
    "scroll",
    "go_back",
    "go_forward",
    "reload",
    "list_tabs",
    "new_tab",
    "select_tab",
    "close_tab",
    "handle_dialog",
    "wait_for_stable",
    "wait_for",
    "save_pdf",
    "resize",
    "emulate",
    "console_messages",
    "network_requests",
];

/// Why BiDi-only mode does not list `tool`: either it needs the extension for good (it reaches
/// something a WebDriver BiDi client cannot), or the mode does not serve it yet (issue 31,
/// item 1, is done in slices: docs/grid.md, "BiDi-only mode").
pub fn why_bidi_only_lacks(tool: &str) -> &'static str {
    match tool {
        "get_shadow_dom" | "shadow_dom_query" => {
            "it reads closed shadow roots through the extension's debugger session, which WebDriver BiDi does not offer"
        }
        "get_frames" | "iframe_read" | "iframe_click" | "iframe_type" | "promote_iframe" => {
            "its frame ids are the extension's (webNavigation), and BiDi-only mode does not number frames yet"
        }
        _ => "BiDi-only mode does not serve it yet (docs/grid.md, \"BiDi-only mode\", lists what it serves)",
    }
}

/// The tools listed for a tier, in table order, for a session whose tools `served_by` serves.
pub fn listed_tools_served_by(
    tier: Tier,
    dev: bool,
    served_by: ServedBy,
) -> impl Iterator<Item = &'static ToolDefinition> {
    TOOLS.iter().filter(move |tool| {
        tool.availability.is_listed(tier, dev)
            && match served_by {
                ServedBy::Extension { browser_bridge } => {
                    browser_bridge || !tool.availability.needs_browser_bridge
                }
                ServedBy::BidiOnly => SERVED_WITHOUT_EXTENSION.contains(&tool.name),
            }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tier_names_are_the_command_line_values() {
        use clap::ValueEnum;
        for tier in Tier::value_variants() {
            let possible = tier.to_possible_value().expect("a listed value");
            assert_eq!(possible.get_name(), tier.name());
        }
    }

    #[test]
    fn each_tier_lists_its_tools_in_table_order() {
        let ask = vec![
            "get_accessibility_tree",
            "iframe_read",
            "find",
            "accessibility_snapshot",
            "screenshot",
            "scroll",
            "wait_for_stable",
            "wait_for",
            "list_tabs",
        ];
        let compact = vec![
            "get_accessibility_tree",
            "iframe_read",
            "find",
            "accessibility_snapshot",
            "screenshot",
            "navigate",
            "click_ax",
            "iframe_click",
            "type_ax",
            "iframe_type",
            "set_field",
            "select_option",
            "press_key",
            "scroll",
            "go_back",
            "wait_for_stable",
            "wait_for",
            "list_tabs",
            "select_tab",
        ];
        let mid = vec![
            "get_accessibility_tree",
            "iframe_read",
            "find",
            "accessibility_snapshot",
            "screenshot",
            "navigate",
            "promote_iframe",
            "click_ax",
            "iframe_click",
            "type_ax",
            "iframe_type",
            "set_field",
            "select_option",
            "fill_form",
            "upload_file",
            "hover",
            "drag",
            "press_key",
            "scroll",
            "go_back",
            "go_forward",
            "reload",
            "wait_for_stable",
            "wait_for",
            "list_tabs",
            "new_tab",
            "select_tab",
            "close_tab",
            "resize",
            "list_downloads",
            "get_download",
        ];
        let fallbacks = [
            "get_frames",
            "get_shadow_dom",
            "shadow_dom_query",
            "save_pdf",
            "console_messages",
            "network_requests",
        ];
        let with = |base: &[&'static str], extra: &[&'static str]| -> Vec<&'static str> {
            // Table order: keep the order of TOOLS.
            TOOLS
                .iter()
                .map(|tool| tool.name)
                .filter(|name| base.contains(name) || extra.contains(name))
                .collect()
        };
        let full = with(&mid, &fallbacks);
        let expected: [(Tier, bool, Vec<&str>); 8] = [
            (Tier::Ask, false, ask.clone()),
            (Tier::Ask, true, ask),
            (Tier::Compact, false, compact.clone()),
            (Tier::Compact, true, with(&compact, &["execute_js"])),
            (Tier::Mid, false, mid.clone()),
            (
                Tier::Mid,
                true,
                with(
                    &mid,
                    &[
                        "execute_js",
                        "get_frames",
                        "get_shadow_dom",
                        "shadow_dom_query",
                    ],
                ),
            ),
            (Tier::Full, false, full.clone()),
            (Tier::Full, true, with(&full, &["execute_js"])),
        ];
        for (tier, dev, names) in expected {
            let listed: Vec<&str> = listed_tools(tier, dev).map(|tool| tool.name).collect();
            assert_eq!(listed, names, "{tier:?} dev={dev}");
        }
        assert_eq!(
            TOOLS.len(),
            full.len() + 3,
            "every tool is listed somewhere (execute_js in Dev mode, emulate and handle_dialog with a bridge)"
        );
        for tier in [Tier::Compact, Tier::Mid, Tier::Full] {
            let with_bridge: Vec<&str> = listed_tools_in_session(tier, false, true)
                .map(|tool| tool.name)
                .collect();
            assert_eq!(
                with_bridge.last(),
                Some(&"handle_dialog"),
                "{tier:?}: handle_dialog is listed with a browser bridge"
            );
        }
        assert!(
            !listed_tools_in_session(Tier::Ask, false, true)
                .any(|tool| tool.name == "handle_dialog"),
            "Ask does not answer dialogs"
        );
        // emulate: Full only, and only with a browser bridge (a person's browser has no way to
        // emulate per tab).
        for (tier, dev) in [
            (Tier::Ask, false),
            (Tier::Compact, true),
            (Tier::Mid, true),
            (Tier::Full, true),
        ] {
            let listed = |bridge: bool| {
                listed_tools_in_session(tier, dev, bridge).any(|tool| tool.name == "emulate")
            };
            assert!(!listed(false), "{tier:?}: emulate needs a browser bridge");
            assert_eq!(listed(true), tier == Tier::Full, "{tier:?} with a bridge");
        }
    }

    #[test]
    fn ask_lists_only_tools_that_do_not_change_the_page() {
        for tool in listed_tools_in_session(Tier::Ask, false, true) {
            assert!(
                tool.read_only || tool.name == "scroll",
                "{} is listed in Ask but is not read-only",
                tool.name
            );
        }
        assert!(!Tier::Ask.accepts_dev_mode());
    }

    #[test]
    fn an_ask_access_never_carries_dev_mode() {
        assert_eq!(
            ToolAccess::new(Tier::Ask, true),
            ToolAccess::new(Tier::Ask, false)
        );
        assert!(ToolAccess::new(Tier::Mid, true).dev);
        assert_eq!(ToolAccess::new(Tier::Full, true).describe(), "full + dev");
        assert_eq!(ToolAccess::new(Tier::Compact, false).describe(), "compact");
        assert_eq!(tool_named("hover").map(|tool| tool.name), Some("hover"));
        assert!(tool_named("teleport").is_none());
    }

    /// Every tool BiDi-only mode serves is a row of the table, and in Full it lists exactly
    /// those; the tools it lacks each have a reason.
    #[test]
    fn bidi_only_mode_lists_exactly_the_tools_it_serves() {
        for name in SERVED_WITHOUT_EXTENSION {
            assert!(tool_named(name).is_some(), "{name} is not a tool");
        }
        let full: Vec<&str> = listed_tools_served_by(Tier::Full, true, ServedBy::BidiOnly)
            .map(|tool| tool.name)
            .collect();
        let mut served = SERVED_WITHOUT_EXTENSION.to_vec();
        served.sort_unstable();
        let mut listed = full.clone();
        listed.sort_unstable();
        assert_eq!(listed, served);
        let ask: Vec<&str> = listed_tools_served_by(Tier::Ask, false, ServedBy::BidiOnly)
            .map(|tool| tool.name)
            .collect();
        assert_eq!(
            ask,
            [
                "get_accessibility_tree",
                "accessibility_snapshot",
                "screenshot",
                "scroll",
                "wait_for_stable",
                "wait_for",
                "list_tabs"
            ],
            "Ask keeps to the read-only tools, and scroll, in BiDi-only mode too"
        );
        assert!(
            !listed_tools_served_by(Tier::Ask, false, ServedBy::BidiOnly)
                .any(|tool| tool.name == "handle_dialog"),
            "Ask leaves dialogs to the person in BiDi-only mode too"
        );
        assert!(why_bidi_only_lacks("get_shadow_dom").contains("debugger"));
        assert!(why_bidi_only_lacks("drag").contains("not serve it yet"));
    }

    #[test]
    fn dev_only_tiers_add_tools_only_in_dev_mode() {
        let availability = Availability {
            tiers: &[Tier::Full],
            dev_only_tiers: &[Tier::Mid],
            needs_browser_bridge: false,
        };
        assert!(availability.is_listed(Tier::Full, false));
        assert!(!availability.is_listed(Tier::Mid, false));
        assert!(availability.is_listed(Tier::Mid, true));
        assert!(!availability.is_listed(Tier::Ask, true));
    }
}
