//! Who sees which tool: the tiers of docs/agent-tools.md ("Tiers") and the Dev mode that adds
//! developer tools to some of them.

use super::definition::ToolDefinition;
use super::table::TOOLS;

/// The tool tiers (docs/agent-tools.md, "Tiers"): Ask is read-only; Compact, Mid and Full act
/// with growing surfaces. `--dev` adds developer tools to Mid and Full.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Tier {
    Ask,
    Compact,
    Mid,
    Full,
}

/// Read-only tools, and the moves that only change what is looked at (navigate, go_back, scroll,
/// tabs): listed everywhere.
const EVERY_TIER: &[Tier] = &[Tier::Ask, Tier::Compact, Tier::Mid, Tier::Full];
/// The core actions on a page: click, type, fill, choose, press.
const COMPACT_AND_ABOVE: &[Tier] = &[Tier::Compact, Tier::Mid, Tier::Full];
/// The larger surface: hovering, opening and closing tabs.
const MID_AND_FULL: &[Tier] = &[Tier::Mid, Tier::Full];

/// Which tiers list a tool, without and with Dev mode.
pub struct Availability {
    pub tiers: &'static [Tier],
    /// Tiers that list the tool only in Dev mode (for example `get_frames` for Mid).
    pub dev_only_tiers: &'static [Tier],
    /// Listed only when the server holds a WebDriver BiDi session on the browser (`--launch`,
    /// `--webdriver`): the MCP server answers the tool itself, the extension never sees it,
    /// and it is left out of the extension's tool contract (docs/protocol.md, "The browser
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
/// Every tier, when the server holds a BiDi session: a tool that unblocks reads too (an open
/// dialog stops them as much as actions).
pub const EVERYWHERE_WITH_BRIDGE: Availability = Availability {
    tiers: EVERY_TIER,
    dev_only_tiers: &[],
    needs_browser_bridge: true,
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
}

/// The tools listed for a tier, in table order, without the tools of the browser bridge.
#[cfg(test)]
pub fn listed_tools(tier: Tier, dev: bool) -> impl Iterator<Item = &'static ToolDefinition> {
    listed_tools_in_session(tier, dev, false)
}

/// The tools listed for a tier, in table order; `browser_bridge` says whether the server holds
/// a BiDi session on the browser (see [`Availability::needs_browser_bridge`]).
pub fn listed_tools_in_session(
    tier: Tier,
    dev: bool,
    browser_bridge: bool,
) -> impl Iterator<Item = &'static ToolDefinition> {
    TOOLS.iter().filter(move |tool| {
        tool.availability.is_listed(tier, dev)
            && (browser_bridge || !tool.availability.needs_browser_bridge)
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
        let ask = [
            "get_accessibility_tree",
            "accessibility_snapshot",
            "screenshot",
            "navigate",
            "scroll",
            "go_back",
            "wait_for_stable",
            "list_tabs",
            "select_tab",
        ];
        let compact = [
            "get_accessibility_tree",
            "accessibility_snapshot",
            "screenshot",
            "navigate",
            "click_ax",
            "type_ax",
            "set_field",
            "select_option",
            "press_key",
            "scroll",
            "go_back",
            "wait_for_stable",
            "list_tabs",
            "select_tab",
        ];
        let everything = [
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
            "wait_for_stable",
            "list_tabs",
            "new_tab",
            "select_tab",
            "close_tab",
        ];
        let expected: [(Tier, &[&str]); 4] = [
            (Tier::Ask, &ask),
            (Tier::Compact, &compact),
            (Tier::Mid, &everything),
            (Tier::Full, &everything),
        ];
        for (tier, names) in expected {
            // No tool of this table is a developer tool: Dev mode lists the same ones.
            for dev in [false, true] {
                let listed: Vec<&str> = listed_tools(tier, dev).map(|tool| tool.name).collect();
                assert_eq!(listed, names, "{tier:?} dev={dev}");
            }
        }
        assert_eq!(
            TOOLS.len(),
            everything.len() + 1,
            "every tool is listed somewhere"
        );
        for tier in [Tier::Ask, Tier::Compact, Tier::Mid, Tier::Full] {
            let with_bridge: Vec<&str> = listed_tools_in_session(tier, false, true)
                .map(|tool| tool.name)
                .collect();
            assert_eq!(
                with_bridge.last(),
                Some(&"handle_dialog"),
                "{tier:?}: handle_dialog is listed with a browser bridge"
            );
        }
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
