//! The attributes allwright itself sets on page elements for a moment, each holding a random
//! marker that one side sets and the other side looks for (docs/protocol/browser-bridge.md,
//! "The browser bridge"). Both sides spell them from here: the server's BiDi queries use these
//! constants, and the extension imports `extension/shared/generated/marker-attributes.js`, which
//! `allwright generated-modules` writes from them (src/generated_modules.rs). The content script
//! treats any attribute with the prefix as allwright's own coming and going, never as the page's
//! reaction to an action.

/// What every marker attribute's name starts with.
pub const MARKER_ATTRIBUTE_PREFIX: &str = "data-allwright-";

/// The marker of a tab's document element, which a BiDi sandbox query finds to map an
/// extension tab id to a browsing context (extension/background/host/bridge.js sets it).
pub const TAB_MARKER_ATTRIBUTE: &str = "data-allwright-tab";

/// The marker of a real input's target, which the server's BiDi query finds and hit-tests
/// (extension/content/actions/external-input.js sets it).
pub const INPUT_MARKER_ATTRIBUTE: &str = "data-allwright-input";

/// The marker of a real drag's drop target, with the same marker as its source (the same file).
pub const DROP_MARKER_ATTRIBUTE: &str = "data-allwright-drop";

/// The marker of the target of Chrome's trusted fallback click, which the background's debugger
/// check looks for (extension/content/actions/trusted-target.js sets it).
pub const TRUSTED_MARKER_ATTRIBUTE: &str = "data-allwright-trusted";

/// The marker of a shadow host that names a ref's element to the background's debugger query
/// (extension/content/shadow/shadow-roots.js sets it).
pub const SHADOW_HOST_MARKER_ATTRIBUTE: &str = "data-allwright-shadow-host";

/// Every marker attribute by the name the generated JS module exports it under.
pub const MARKER_ATTRIBUTES: &[(&str, &str)] = &[
    ("TAB_MARKER_ATTRIBUTE", TAB_MARKER_ATTRIBUTE),
    ("INPUT_MARKER_ATTRIBUTE", INPUT_MARKER_ATTRIBUTE),
    ("DROP_MARKER_ATTRIBUTE", DROP_MARKER_ATTRIBUTE),
    ("TRUSTED_MARKER_ATTRIBUTE", TRUSTED_MARKER_ATTRIBUTE),
    ("SHADOW_HOST_MARKER_ATTRIBUTE", SHADOW_HOST_MARKER_ATTRIBUTE),
];

#[cfg(test)]
mod tests {
    use super::*;

    /// The content script recognises a marker by the prefix alone (`isMarkerRecord`), so a
    /// marker without it would read as a change the page made.
    #[test]
    fn every_marker_attribute_starts_with_the_prefix_and_is_distinct() {
        for (index, (_, attribute)) in MARKER_ATTRIBUTES.iter().enumerate() {
            let suffix = attribute
                .strip_prefix(MARKER_ATTRIBUTE_PREFIX)
                .unwrap_or_default();
            assert!(
                !suffix.is_empty()
                    && suffix
                        .bytes()
                        .all(|byte| byte.is_ascii_lowercase() || byte == b'-'),
                "{attribute} is the prefix and a lower-case name"
            );
            assert!(
                MARKER_ATTRIBUTES[..index]
                    .iter()
                    .all(|(_, other)| other != attribute),
                "{attribute} appears once"
            );
        }
    }
}
