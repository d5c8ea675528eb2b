//! Typed helpers for the BiDi commands allwright uses today. Each pairs a parameter builder and a
//! result reader (pure functions, unit-tested) with a method on [`BidiConnection`].

use std::path::Path;
use std::time::Duration;

use serde_json::{json, Value};

use super::connection::BidiConnection;
use super::protocol::BidiError;

/// `session.new` with no required capabilities (Firefox's remote agent, and the BiDi mapper in a
/// Chromium that allwright launched; a chromedriver remote end creates the BiDi session itself
/// when the classic session asks for `webSocketUrl: true`).
pub fn session_new_params() -> Value {
    json!({ "capabilities": {} })
}

/// `webExtension.install` of an unpacked extension folder.
pub fn web_extension_install_params(extension_folder: &Path) -> Value {
    json!({ "extensionData": { "type": "path", "path": extension_folder.to_string_lossy() } })
}

/// The installed extension's id from a `webExtension.install` result: `{"extension": "<id>"}`.
pub fn installed_extension_id(result: &Value) -> Result<String, BidiError> {
    result
        .get("extension")
        .and_then(Value::as_str)
        .map(str::to_owned)
        .ok_or_else(|| {
            BidiError::protocol(format!(
                "webExtension.install returned no extension id: {result}"
            ))
        })
}

/// `browsingContext.navigate` that returns once the load event fired.
pub fn navigate_params(context: &str, url: &str) -> Value {
    json!({ "context": context, "url": url, "wait": "complete" })
}

/// The first top-level browsing context of a `browsingContext.getTree` result, i.e. the first tab.
pub fn first_top_level_context(result: &Value) -> Result<String, BidiError> {
    result
        .get("contexts")
        .and_then(Value::as_array)
        .and_then(|contexts| contexts.first())
        .and_then(|context| context.get("context"))
        .and_then(Value::as_str)
        .map(str::to_owned)
        .ok_or_else(|| {
            BidiError::protocol(format!(
                "browsingContext.getTree returned no top-level context: {result}"
            ))
        })
}

impl BidiConnection {
    /// Starts a BiDi session on a remote end that needs one (Firefox's remote agent).
    pub async fn new_session(&self) -> Result<Value, BidiError> {
        self.command("session.new", session_new_params()).await
    }

    /// Starts a BiDi session with these capabilities (`{alwaysMatch: {...}}`).
    pub async fn new_session_with(&self, capabilities: Value) -> Result<Value, BidiError> {
        self.command("session.new", json!({ "capabilities": capabilities }))
            .await
    }

    /// Installs the unpacked extension in `extension_folder` and returns its id.
    pub async fn install_web_extension(
        &self,
        extension_folder: &Path,
    ) -> Result<String, BidiError> {
        let result = self
            .command(
                "webExtension.install",
                web_extension_install_params(extension_folder),
            )
            .await?;
        installed_extension_id(&result)
    }

    /// The id of the first top-level browsing context (tab).
    pub async fn first_tab(&self) -> Result<String, BidiError> {
        let result = self
            .command("browsingContext.getTree", json!({ "maxDepth": 0 }))
            .await?;
        first_top_level_context(&result)
    }

    /// Navigates `context` to `url` and waits for the load event, at most `timeout`.
    pub async fn navigate(
        &self,
        context: &str,
        url: &str,
        timeout: Duration,
    ) -> Result<Value, BidiError> {
        self.command_with_timeout(
            "browsingContext.navigate",
            navigate_params(context, url),
            timeout,
        )
        .await
    }

    /// Asks the browser to close all its windows and end the session (`browser.close`).
    pub async fn close_browser(&self) -> Result<(), BidiError> {
        self.command_with_timeout("browser.close", json!({}), Duration::from_secs(5))
            .await
            .map(|_| ())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extension_install_names_the_folder_as_a_path() {
        assert_eq!(
            web_extension_install_params(Path::new("/repo/dist/chrome")),
            json!({"extensionData": {"type": "path", "path": "/repo/dist/chrome"}})
        );
        assert_eq!(
            installed_extension_id(&json!({"extension": "abc"})),
            Ok("abc".to_owned())
        );
        assert!(installed_extension_id(&json!({})).is_err());
    }

    #[test]
    fn navigation_waits_for_the_load_event() {
        assert_eq!(
            navigate_params("ctx", "http://x/"),
            json!({"context": "ctx", "url": "http://x/", "wait": "complete"})
        );
    }

    #[test]
    fn the_first_top_level_context_is_read_from_get_tree() {
        let tree = json!({"contexts": [{"context": "A", "children": null, "url": "about:blank"}, {"context": "B"}]});
        assert_eq!(first_top_level_context(&tree), Ok("A".to_owned()));
        assert!(first_top_level_context(&json!({"contexts": []})).is_err());
    }
}
