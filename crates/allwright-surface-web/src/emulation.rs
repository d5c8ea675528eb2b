//! What a top-level browsing context emulates, over WebDriver BiDi: its viewport and device pixel
//! ratio (`browsingContext.setViewport`), its user agent (`emulation.setUserAgentOverride`) and
//! its network (`emulation.setNetworkConditions`). Each setting is the context's own, and the
//! browser keeps it across the context's navigations (WebDriver BiDi keeps such overrides per
//! navigable; chromium-bidi and Firefox store them with the context).
//!
//! Which browser accepts which command is not written down here: a browser without one answers
//! `unknown command` (or `unsupported operation`), which reaches the caller as
//! [`BidiErrorKind::Unsupported`](crate::BidiErrorKind::Unsupported). Chromium 156 with
//! chromium-bidi 17 and Firefox 153 accept all four.
//!
//! The media features WebDriver BiDi has no command for (`prefers-color-scheme`,
//! `prefers-reduced-motion`) are Chromium's alone, over its CDP pipe
//! ([`crate::launch::MediaFeatureEmulation`]).

use serde_json::{json, Value};

use crate::bidi::{BidiConnection, BidiError};
use crate::page::{Page, PageError};

/// A viewport's size in CSS pixels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ViewportSize {
    pub width: u32,
    pub height: u32,
}

/// A setting given a value, or given back to the browser's own.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Override<T> {
    Set(T),
    Reset,
}

impl<T> Override<T> {
    /// The value BiDi takes: the setting, or null for "the browser's own".
    fn to_bidi(&self, value: impl Fn(&T) -> Value) -> Value {
        match self {
            Self::Set(setting) => value(setting),
            Self::Reset => Value::Null,
        }
    }
}

/// `browsingContext.setViewport` of the context's viewport, its device pixel ratio left as it is.
pub fn set_viewport_params(context: &str, size: ViewportSize) -> Value {
    json!({
        "context": context,
        "viewport": { "width": size.width, "height": size.height },
    })
}

/// `browsingContext.setViewport` of the context's device pixel ratio, its viewport left as it is
/// (an absent `viewport` changes nothing: WebDriver BiDi, "set viewport").
pub fn set_device_pixel_ratio_params(context: &str, ratio: Override<f64>) -> Value {
    json!({
        "context": context,
        "devicePixelRatio": ratio.to_bidi(|ratio| json!(ratio)),
    })
}

/// `emulation.setUserAgentOverride` for the context.
pub fn set_user_agent_params(context: &str, user_agent: Override<&str>) -> Value {
    json!({
        "contexts": [context],
        "userAgent": user_agent.to_bidi(|text| json!(text)),
    })
}

/// `emulation.setNetworkConditions` for the context: offline, or the network as it is.
pub fn set_offline_params(context: &str, offline: bool) -> Value {
    let conditions = if offline {
        json!({ "type": "offline" })
    } else {
        Value::Null
    };
    json!({ "contexts": [context], "networkConditions": conditions })
}

/// Gives the context's viewport `size`.
pub async fn set_viewport(
    connection: &BidiConnection,
    context: &str,
    size: ViewportSize,
) -> Result<(), BidiError> {
    connection
        .command(
            "browsingContext.setViewport",
            set_viewport_params(context, size),
        )
        .await
        .map(|_| ())
}

/// Gives the context's `window.devicePixelRatio` a value, or the screen's own back.
pub async fn set_device_pixel_ratio(
    connection: &BidiConnection,
    context: &str,
    ratio: Override<f64>,
) -> Result<(), BidiError> {
    connection
        .command(
            "browsingContext.setViewport",
            set_device_pixel_ratio_params(context, ratio),
        )
        .await
        .map(|_| ())
}

/// Gives the context's `navigator.userAgent` and its requests' `User-Agent` a value, or the
/// browser's own back.
pub async fn set_user_agent(
    connection: &BidiConnection,
    context: &str,
    user_agent: Override<&str>,
) -> Result<(), BidiError> {
    connection
        .command(
            "emulation.setUserAgentOverride",
            set_user_agent_params(context, user_agent),
        )
        .await
        .map(|_| ())
}

/// Takes the context offline (its requests fail as without a network), or brings it back.
pub async fn set_offline(
    connection: &BidiConnection,
    context: &str,
    offline: bool,
) -> Result<(), BidiError> {
    connection
        .command(
            "emulation.setNetworkConditions",
            set_offline_params(context, offline),
        )
        .await
        .map(|_| ())
}

/// The viewport the context's document has now (`window.innerWidth` and `innerHeight`, read in
/// the sandbox realm).
pub async fn viewport_size(
    connection: &BidiConnection,
    context: &str,
) -> Result<ViewportSize, PageError> {
    Page::new(connection, context).viewport_size().await
}

/// Reads `{"width": W, "height": H}` as a viewport size.
pub fn read_viewport_size(answer: &Value) -> Result<ViewportSize, PageError> {
    let side = |name: &str| {
        answer[name]
            .as_u64()
            .and_then(|side| u32::try_from(side).ok())
            .ok_or_else(|| {
                PageError::UnexpectedResult(format!(
                    "the viewport's {name} is not a size: {answer}"
                ))
            })
    };
    Ok(ViewportSize {
        width: side("width")?,
        height: side("height")?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_setting_is_one_command_for_the_one_context() {
        assert_eq!(
            set_viewport_params(
                "ctx",
                ViewportSize {
                    width: 390,
                    height: 844
                }
            ),
            json!({"context": "ctx", "viewport": {"width": 390, "height": 844}})
        );
        let ratio = set_device_pixel_ratio_params("ctx", Override::Set(2.625));
        assert_eq!(ratio, json!({"context": "ctx", "devicePixelRatio": 2.625}));
        assert!(
            ratio.get("viewport").is_none(),
            "the viewport is left as it is"
        );
        assert_eq!(
            set_device_pixel_ratio_params("ctx", Override::Reset),
            json!({"context": "ctx", "devicePixelRatio": null})
        );
        assert_eq!(
            set_user_agent_params("ctx", Override::Set("Phone/1.0")),
            json!({"contexts": ["ctx"], "userAgent": "Phone/1.0"})
        );
        assert_eq!(
            set_user_agent_params("ctx", Override::Reset),
            json!({"contexts": ["ctx"], "userAgent": null})
        );
        assert_eq!(
            set_offline_params("ctx", true),
            json!({"contexts": ["ctx"], "networkConditions": {"type": "offline"}})
        );
        assert_eq!(
            set_offline_params("ctx", false),
            json!({"contexts": ["ctx"], "networkConditions": null})
        );
    }

    #[test]
    fn a_viewport_size_is_two_whole_numbers() {
        assert_eq!(
            read_viewport_size(&json!({"width": 800, "height": 600})),
            Ok(ViewportSize {
                width: 800,
                height: 600
            })
        );
        for answer in [
            json!({"width": 800}),
            json!({"width": -1, "height": 600}),
            json!({"width": 800.5, "height": 600}),
            json!(null),
        ] {
            assert!(read_viewport_size(&answer).is_err(), "{answer}");
        }
    }
}
