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
}

impl Availability {
    pub fn is_listed(&self, tier: Tier, dev: bool) -> bool {
        self.tiers.contains(&tier) || (dev && self.dev_only_tiers.contains(&tier))
    }
}

pub const EVERYWHERE: Availability = Availability {
    tiers: EVERY_TIER,
    dev_only_tiers: &[],
};
pub const FROM_COMPACT: Availability = Availability {
    tiers: COMPACT_AND_ABOVE,
    dev_only_tiers: &[],
};
pub const FROM_MID: Availability = Availability {
    tiers: MID_AND_FULL,
    dev_only_tiers: &[],
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

/// The tools listed for a tier, in table order.
pub fn listed_tools(tier: Tier, dev: bool) -> impl Iterator<Item = &'static ToolDefinition> {
    TOOLS
        .iter()
        .filter(move |tool| tool.availability.is_listed(tier, dev))
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
            everything.len(),
            "every tool is listed somewhere"
        );
    }

    #[test]
    fn dev_only_tiers_add_tools_only_in_dev_mode() {
        let availability = Availability {
            tiers: &[Tier::Full],
            dev_only_tiers: &[Tier::Mid],
        };
        assert!(availability.is_listed(Tier::Full, false));
        assert!(!availability.is_listed(Tier::Mid, false));
        assert!(availability.is_listed(Tier::Mid, true));
        assert!(!availability.is_listed(Tier::Ask, true));
    }
}
