//! The tools of docs/protocol/tools.md ("The tool table"): one table (`table.rs`) and what is derived from it.
//!
//! - `definition`: the shape of a row (arguments, rules, waits);
//! - `table`: the rows, the single source of the tool contract;
//! - `tiers`: which tiers list which tool;
//! - `schema`: the MCP JSON Schemas;
//! - `validation`: the checks every call passes before it reaches the browser;
//! - `keys`: the KeyboardEvent key names of press_key;
//! - `local_files`: which URLs reach a local file (`file_url_refused`);
//! - `contract`: `extension/shared/tool-contract.json`, the extension's copy of the contract;
//! - `argument_conformance` (a test): the cases both argument validators run
//!   (tests/cases/tool-arguments.json).

#[cfg(test)]
mod argument_conformance;
mod contract;
#[cfg(test)]
mod deadline_order;
mod definition;
mod keys;
mod local_files;
mod schema;
mod table;
mod tiers;
mod validation;

pub use contract::tool_contract_json;
pub use definition::{ReplyShape, ToolDefinition};
pub use keys::{COMMON_NAMED_KEYS, KEY_SPELLINGS};
pub use tiers::{
    listed_tools_served_by, tool_named, why_bidi_only_lacks, ServedBy, Tier, ToolAccess,
};

/// The table's row for `name`, whatever the tier.
#[cfg(test)]
fn find_tool(name: &str) -> Option<&'static ToolDefinition> {
    table::TOOLS.iter().find(|tool| tool.name == name)
}

/// Every row of the table, whatever the tier.
#[cfg(test)]
pub fn all_tools() -> &'static [ToolDefinition] {
    table::TOOLS
}
