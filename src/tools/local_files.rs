//! Which URLs reach a local file, the host's half of "local files are not opened unless the
//! session allows them" (`allwright mcp --allow-file-urls`; docs/agent-tools.md, "Local files").
//! A page can ask the agent, in text the agent reads, to open `file:///home/...` and read it
//! back: the agent would then carry the user's files into the page's reach. So `navigate` and
//! `new_tab` refuse a URL that reaches a local file in any spelling before the call leaves the
//! MCP server, and the extension refuses it again where the URL is finally known
//! (extension/background/tools/local-files.js: the same rule, for promote_iframe's frame URLs too).

use serde_json::{Map, Value};

use super::definition::{ArgumentKind, ToolDefinition};
use crate::tool_error::ToolError;

/// Schemes that wrap another URL and show or load what it names: Chromium's `view-source:` and
/// `filesystem:`, Firefox's `jar:` and `view-source:`, and `blob:` (whose origin is the URL
/// after it).
const WRAPPING_SCHEMES: &[&str] = &["view-source:", "jar:", "blob:", "filesystem:"];

/// The scheme as given (`"file:"`, or the outer wrapper, `"view-source:"`), when `text` names a
/// local file the way a browser's URL parser reads it (WHATWG URL, "basic URL parser"): leading
/// and trailing C0 controls and spaces are dropped, tabs and newlines anywhere are removed, and
/// the scheme is ASCII case-insensitive; so `FILE:///`, `file:/etc`, `file://localhost/etc` and
/// ` file:///x` all count. A wrapper is looked through, however deep.
pub fn local_file_scheme(text: &str) -> Option<String> {
    let cleaned: String = text
        .trim_matches(|character: char| character <= ' ')
        .chars()
        .filter(|character| !matches!(character, '\t' | '\n' | '\r'))
        .collect::<String>()
        .to_ascii_lowercase();
    let mut rest = cleaned.as_str();
    let mut outer: Option<&str> = None;
    loop {
        if rest.starts_with("file:") {
            return Some(outer.unwrap_or("file:").to_owned());
        }
        let wrapper = WRAPPING_SCHEMES
            .iter()
            .find(|scheme| rest.starts_with(**scheme))?;
        outer.get_or_insert(wrapper);
        rest = rest[wrapper.len()..].trim_start_matches(|character: char| character <= ' ');
    }
}

impl ToolDefinition {
    /// The URL arguments of this call that the browser would open as a page, as given.
    fn opened_urls<'a>(&self, arguments: Option<&'a Map<String, Value>>) -> Vec<&'a str> {
        let Some(arguments) = arguments else {
            return Vec::new();
        };
        self.arguments
            .iter()
            .filter(|argument| matches!(argument.kind, ArgumentKind::NavigableUrl))
            .filter_map(|argument| arguments.get(argument.name)?.as_str())
            .collect()
    }

    /// `file_url_refused` when this call would open a local file and the session does not allow
    /// it. Run before validation, so that every spelling gets this code rather than
    /// `invalid_arguments`.
    pub fn local_file_refusal(
        &self,
        arguments: Option<&Map<String, Value>>,
        file_urls_allowed: bool,
    ) -> Result<(), ToolError> {
        if file_urls_allowed {
            return Ok(());
        }
        match self
            .opened_urls(arguments)
            .into_iter()
            .find_map(local_file_scheme)
        {
            Some(scheme) => Err(ToolError::file_url_refused(self.name, &scheme)),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The cases both rules run (tests/cases/local-file-urls.json).
    #[test]
    fn every_spelling_of_a_local_file_is_found() {
        let cases: serde_json::Value =
            serde_json::from_str(include_str!("../../tests/cases/local-file-urls.json"))
                .expect("the shared cases are JSON");
        let local = cases["local"].as_array().expect("local cases");
        assert!(local.len() >= 10);
        for case in local {
            let (url, scheme) = (case[0].as_str().expect("url"), case[1].as_str());
            assert_eq!(local_file_scheme(url).as_deref(), scheme, "{url:?}");
        }
        for url in cases["not_local"].as_array().expect("other cases") {
            let url = url.as_str().expect("url");
            assert_eq!(local_file_scheme(url), None, "{url:?}");
        }
    }

    #[test]
    fn navigate_and_new_tab_refuse_local_files_unless_the_session_allows_them() {
        for tool_name in ["navigate", "new_tab"] {
            let tool = crate::tools::find_tool(tool_name).expect("tool");
            let arguments = json!({"url": "view-source:file:///etc/passwd"});
            let error = tool
                .local_file_refusal(arguments.as_object(), false)
                .expect_err("refused");
            assert_eq!(error.code, "file_url_refused");
            assert!(error.message.contains("view-source:"), "{}", error.message);
            assert!(
                error
                    .hint
                    .as_deref()
                    .unwrap_or_default()
                    .contains("--allow-file-urls"),
                "{error:?}"
            );
            assert!(tool.local_file_refusal(arguments.as_object(), true).is_ok());
            let web = json!({"url": "https://example.com/"});
            assert!(tool.local_file_refusal(web.as_object(), false).is_ok());
        }
        // Tools without a URL to open have nothing to refuse.
        let tree = crate::tools::find_tool("get_accessibility_tree").expect("tool");
        assert!(tree
            .local_file_refusal(json!({"url": "file:///etc"}).as_object(), false)
            .is_ok());
    }
}
