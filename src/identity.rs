//! The extension's fixed identity (manifest/identity.json, owned by the extension): the Chrome
//! extension id, the Firefox gecko id and the native host name. The file is compiled in, so the
//! binary and the extension it was built with always agree.

use serde::Deserialize;

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExtensionIdentity {
    pub chrome_extension_id: String,
    pub gecko_id: String,
    pub native_host_name: String,
}

const IDENTITY_JSON: &str = include_str!("../manifest/identity.json");

impl ExtensionIdentity {
    /// The identity compiled into this binary. The file is part of the build, so a failure here
    /// is a broken checkout, reported as such rather than a panic.
    pub fn compiled_in() -> Result<Self, String> {
        serde_json::from_str(IDENTITY_JSON)
            .map_err(|error| format!("manifest/identity.json is unreadable in this build: {error}"))
    }

    /// `chrome-extension://<id>/`, the origin Chrome passes to the host and the manifest allows.
    pub fn chrome_origin(&self) -> String {
        format!("chrome-extension://{}/", self.chrome_extension_id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_compiled_identity_is_readable() {
        let identity = ExtensionIdentity::compiled_in().expect("identity.json parses");
        assert_eq!(identity.chrome_extension_id.len(), 32);
        assert!(identity.chrome_origin().starts_with("chrome-extension://"));
        assert!(!identity.gecko_id.is_empty());
        assert!(!identity.native_host_name.is_empty());
    }
}
