//! `resize` and `emulate` in a browser the server holds a BiDi session on (docs/agent-tools.md,
//! "resize" and "emulate"). Both act on the tab's top-level browsing context only, never on its
//! window, and the browser keeps what they set for that context across its navigations.
//!
//! - resize: `browsingContext.setViewport` (allwright_surface_web::emulation). A tab the bridge
//!   could not map to a context is resized by the extension, as in the user's own browser (the
//!   window).
//! - emulate: each setting by the best route this browser has ([`route_of`]): WebDriver BiDi
//!   for the device pixel ratio, the user agent and the network; Chromium's CDP pipe for the two
//!   media features BiDi has no command for. A setting no route reaches is named in
//!   `notSupportedHere`; a call that reaches none is `not_supported_here`.

use std::sync::Arc;
use std::time::Duration;

use allwright_surface_web::emulation::{self, Override, ViewportSize};
use allwright_surface_web::launch::MediaFeature;
use allwright_surface_web::{BidiError, BidiErrorKind};
use serde_json::{json, Value};

use crate::host_client::HostClient;
use crate::tool_error::ToolError;

use super::{dialog_open_error, BidiSessionOwner, BrowserBridge, TargetTab, IDENTIFY_TIMEOUT};

/// One setting of `emulate`, as the agent names it (its argument).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Setting {
    ColorScheme,
    ReducedMotion,
    DeviceScaleFactor,
    UserAgent,
    Offline,
}

impl Setting {
    const ALL: [Setting; 5] = [
        Setting::ColorScheme,
        Setting::ReducedMotion,
        Setting::DeviceScaleFactor,
        Setting::UserAgent,
        Setting::Offline,
    ];

    /// The argument's name, which the reply uses too.
    fn name(self) -> &'static str {
        match self {
            Setting::ColorScheme => "colorScheme",
            Setting::ReducedMotion => "reducedMotion",
            Setting::DeviceScaleFactor => "deviceScaleFactor",
            Setting::UserAgent => "userAgent",
            Setting::Offline => "offline",
        }
    }
}

/// One requested change, read from the validated arguments. A media feature's `None` and an
/// [`Override::Reset`] give the browser's own back.
#[derive(Debug, Clone, PartialEq)]
enum Change {
    MediaFeature(Setting, MediaFeature, Option<String>),
    DeviceScaleFactor(Override<f64>),
    UserAgent(Override<String>),
    Offline(bool),
}

impl Change {
    fn setting(&self) -> Setting {
        match self {
            Change::MediaFeature(setting, ..) => *setting,
            Change::DeviceScaleFactor(_) => Setting::DeviceScaleFactor,
            Change::UserAgent(_) => Setting::UserAgent,
            Change::Offline(_) => Setting::Offline,
        }
    }
}

/// How a setting reaches the browser.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Route {
    /// A WebDriver BiDi command; a browser without it answers `unknown command`.
    Bidi,
    /// Chromium's CDP pipe (`MediaFeatureEmulation`): only in a Chromium allwright launched.
    ChromiumPipe,
    /// Nothing this session holds can set it.
    Nowhere,
}

/// The route of each setting. The media features have no WebDriver BiDi command (neither the
/// specification nor chromium-bidi 17 nor Firefox 153 has one for `prefers-color-scheme` or
/// `prefers-reduced-motion`); the others are BiDi's own.
fn route_of(setting: Setting, has_chromium_pipe: bool) -> Route {
    match setting {
        Setting::ColorScheme | Setting::ReducedMotion if has_chromium_pipe => Route::ChromiumPipe,
        Setting::ColorScheme | Setting::ReducedMotion => Route::Nowhere,
        Setting::DeviceScaleFactor | Setting::UserAgent | Setting::Offline => Route::Bidi,
    }
}

/// The changes `emulate` asks for, in the order of [`Setting::ALL`]; an argument left out or
/// null asks for none. At least one is needed.
fn requested_changes(arguments: &Value) -> Result<Vec<Change>, ToolError> {
    let mut changes = Vec::new();
    for setting in Setting::ALL {
        let value = &arguments[setting.name()];
        if value.is_null() {
            continue;
        }
        let change = match setting {
            Setting::ColorScheme => {
                media_change(setting, MediaFeature::PrefersColorScheme, value.as_str())
            }
            Setting::ReducedMotion => {
                media_change(setting, MediaFeature::PrefersReducedMotion, value.as_str())
            }
            // 0 is "the screen's own" (as CDP's deviceScaleFactor 0 is).
            Setting::DeviceScaleFactor => value.as_f64().map(|ratio| {
                Change::DeviceScaleFactor(if ratio == 0.0 {
                    Override::Reset
                } else {
                    Override::Set(ratio)
                })
            }),
            // An empty user agent is no user agent a browser accepts (both refuse it), so it
            // means "the browser's own".
            Setting::UserAgent => value.as_str().map(|text| {
                Change::UserAgent(if text.is_empty() {
                    Override::Reset
                } else {
                    Override::Set(text.to_owned())
                })
            }),
            Setting::Offline => value.as_bool().map(Change::Offline),
        };
        // The table's checks ran before: a value of another type cannot arrive here.
        let Some(change) = change else {
            return Err(ToolError::invalid_arguments(format!(
                "emulate: {} cannot be {value}",
                setting.name()
            )));
        };
        changes.push(change);
    }
    if changes.is_empty() {
        return Err(ToolError::invalid_arguments("emulate needs at least one setting to change")
            .with_hint("Pass one or more of colorScheme, reducedMotion, deviceScaleFactor, userAgent and offline, for example {\"colorScheme\": \"dark\"}."));
    }
    Ok(changes)
}

/// A media feature's change: "default" removes the feature, any other choice sets it.
fn media_change(setting: Setting, feature: MediaFeature, value: Option<&str>) -> Option<Change> {
    value.map(|value| {
        let value = (value != "default").then(|| value.to_owned());
        Change::MediaFeature(setting, feature, value)
    })
}

/// Why `setting` cannot be emulated in `browser` when no route reaches it.
fn no_route_reason(setting: Setting, browser: &str) -> String {
    match setting {
        Setting::ColorScheme | Setting::ReducedMotion => format!(
            "{browser} has no WebDriver BiDi command for prefers-color-scheme or prefers-reduced-motion; only a Chromium allwright launched itself (--launch chromium) sets them"
        ),
        _ => format!("{browser} cannot emulate {}", setting.name()),
    }
}

/// What `emulate` found it could not set, and why.
struct NotSupported {
    setting: Setting,
    reason: String,
}

/// The reply's hint about the settings this browser cannot emulate.
fn not_supported_hint(not_supported: &[NotSupported]) -> String {
    let mut reasons: Vec<&str> = Vec::new();
    for entry in not_supported {
        if !reasons.contains(&entry.reason.as_str()) {
            reasons.push(&entry.reason);
        }
    }
    format!("{}.", reasons.join("; "))
}

fn names(settings: impl Iterator<Item = Setting>) -> Vec<&'static str> {
    settings.map(Setting::name).collect()
}

/// A BiDi command refused because the browser does not have it.
fn is_unsupported(error: &BidiError) -> bool {
    error.kind == BidiErrorKind::Unsupported
}

impl BrowserBridge {
    /// `resize({width, height, tabId?})`: the tab's viewport over BiDi, measured after.
    pub(super) async fn resize(
        &self,
        host: &Arc<HostClient>,
        target: &TargetTab,
        arguments: Value,
        timeout: Duration,
    ) -> Result<Value, ToolError> {
        let Some(context) = &target.context else {
            // Not mapped: the extension resizes the window, as in the user's own browser.
            return self
                .unless_prompt_blocks(target, host.call("resize", arguments, timeout))
                .await;
        };
        if let Some(open) = self.blocking_prompt(target) {
            return Err(dialog_open_error(&open));
        }
        resize_context(self.bidi(), context, &arguments).await
    }

    /// `emulate({colorScheme?, reducedMotion?, deviceScaleFactor?, userAgent?, offline?, tabId?})`.
    pub(super) async fn emulate(
        &self,
        host: &Arc<HostClient>,
        target: &TargetTab,
        arguments: Value,
    ) -> Result<Value, ToolError> {
        // The arguments are checked before the tab is looked for.
        requested_changes(&arguments)?;
        let Some(context) = &target.context else {
            // The extension says why when the tab does not exist (no_tab).
            host.call(
                "bridge_identify_tab",
                json!({ "tabId": target.tab_id }),
                IDENTIFY_TIMEOUT,
            )
            .await?;
            return Err(ToolError::not_supported_here(
                "the tab's browsing context is not known to WebDriver BiDi, so nothing was emulated",
            )
            .with_hint("Navigate the tab to an http(s) page, or open one with new_tab, then call emulate again."));
        };
        if let Some(open) = self.blocking_prompt(target) {
            return Err(dialog_open_error(&open));
        }
        emulate_context(self.owner.as_ref(), context, &arguments).await
    }
}

/// resize of one top-level context, with no prompt open in its tab: `browsingContext.setViewport`,
/// then the viewport measured (the bridge's and BiDi-only mode's resize).
pub(crate) async fn resize_context(
    bidi: &allwright_surface_web::BidiConnection,
    context: &str,
    arguments: &Value,
) -> Result<Value, ToolError> {
    let side = |name: &str| {
        arguments[name]
            .as_u64()
            .and_then(|side| u32::try_from(side).ok())
            .ok_or_else(|| ToolError::invalid_arguments(format!("resize needs {name}")))
    };
    let asked = ViewportSize {
        width: side("width")?,
        height: side("height")?,
    };
    emulation::set_viewport(bidi, context, asked)
        .await
        .map_err(|error| {
            ToolError::element_operation_failed(
                error.kind.tool_error_code(),
                format!("the browser did not resize the tab's viewport: {error}"),
            )
        })?;
    // The size the page sees now; a page whose sandbox cannot run (a browser page) is
    // taken at the browser's word.
    let reached = emulation::viewport_size(bidi, context)
        .await
        .unwrap_or(asked);
    Ok(viewport_reply(asked, reached))
}

/// emulate's changes in one top-level context, with no prompt open in its tab, each by the best
/// route `owner`'s browser has ([`route_of`]) (the bridge's and BiDi-only mode's emulate).
pub(crate) async fn emulate_context(
    owner: &dyn BidiSessionOwner,
    context: &str,
    arguments: &Value,
) -> Result<Value, ToolError> {
    let changes = requested_changes(arguments)?;
    let browser = owner.browser_name();
    let media = owner.media_features();
    let mut applied: Vec<Setting> = Vec::new();
    let mut not_supported: Vec<NotSupported> = Vec::new();
    let failed = |setting: Setting, applied: &[Setting], error: String| {
        let done = if applied.is_empty() {
            "nothing else was changed".to_owned()
        } else {
            format!("already set: {}", names(applied.iter().copied()).join(", "))
        };
        ToolError::script_failed(format!(
            "{browser} did not set {}: {error} ({done})",
            setting.name()
        ))
    };
    // The media features go in one command (it replaces all of the tab's at once).
    let media_changes: Vec<(Setting, MediaFeature, Option<&str>)> = changes
        .iter()
        .filter_map(|change| match change {
            Change::MediaFeature(setting, feature, value) => {
                Some((*setting, *feature, value.as_deref()))
            }
            _ => None,
        })
        .collect();
    if let Some(&(first, ..)) = media_changes.first() {
        match (route_of(first, media.is_some()), media) {
            (Route::ChromiumPipe, Some(media)) => {
                let features: Vec<(MediaFeature, Option<&str>)> = media_changes
                    .iter()
                    .map(|(_, feature, value)| (*feature, *value))
                    .collect();
                media
                    .set(context, &features)
                    .await
                    .map_err(|error| failed(first, &applied, error))?;
                applied.extend(media_changes.iter().map(|(setting, ..)| *setting));
            }
            _ => not_supported.extend(media_changes.iter().map(|(setting, ..)| NotSupported {
                setting: *setting,
                reason: no_route_reason(*setting, &browser),
            })),
        }
    }
    for change in &changes {
        let setting = change.setting();
        if route_of(setting, media.is_some()) != Route::Bidi {
            continue;
        }
        let sent = match change {
            Change::DeviceScaleFactor(ratio) => {
                emulation::set_device_pixel_ratio(owner.bidi(), context, *ratio).await
            }
            Change::UserAgent(user_agent) => {
                let user_agent = match user_agent {
                    Override::Set(text) => Override::Set(text.as_str()),
                    Override::Reset => Override::Reset,
                };
                emulation::set_user_agent(owner.bidi(), context, user_agent).await
            }
            Change::Offline(offline) => {
                emulation::set_offline(owner.bidi(), context, *offline).await
            }
            Change::MediaFeature(..) => continue,
        };
        match sent {
            Ok(()) => applied.push(setting),
            Err(error) if is_unsupported(&error) => not_supported.push(NotSupported {
                setting,
                reason: format!(
                    "{browser} cannot emulate {}: {}",
                    setting.name(),
                    error.message
                ),
            }),
            Err(error) => return Err(failed(setting, &applied, error.to_string())),
        }
    }
    emulate_reply(&browser, &applied, &not_supported)
}

/// resize's reply: the viewport reached, and why when it is not the one asked.
fn viewport_reply(asked: ViewportSize, reached: ViewportSize) -> Value {
    let mut reply = json!({ "width": reached.width, "height": reached.height });
    if reached != asked {
        reply["hint"] = json!(format!(
            "The browser gave the viewport {}x{}, not the {}x{} asked.",
            reached.width, reached.height, asked.width, asked.height
        ));
    }
    reply
}

/// emulate's reply, or `not_supported_here` when nothing could be set.
fn emulate_reply(
    browser: &str,
    applied: &[Setting],
    not_supported: &[NotSupported],
) -> Result<Value, ToolError> {
    if applied.is_empty() {
        let asked = names(not_supported.iter().map(|entry| entry.setting));
        return Err(ToolError::not_supported_here(format!(
            "{browser} cannot emulate {}: {}",
            asked.join(", "),
            not_supported_hint(not_supported)
        ))
        .with_hint("Nothing was changed. deviceScaleFactor, userAgent and offline work in a browser allwright launched; colorScheme and reducedMotion need `allwright mcp --launch chromium`."));
    }
    let mut reply = json!({ "applied": names(applied.iter().copied()) });
    if !not_supported.is_empty() {
        reply["notSupportedHere"] = json!(names(not_supported.iter().map(|entry| entry.setting)));
        reply["hint"] = json!(not_supported_hint(not_supported));
    }
    Ok(reply)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_argument_becomes_one_change_and_its_reset_values_give_the_browsers_own_back() {
        let changes = requested_changes(&json!({
            "colorScheme": "dark",
            "reducedMotion": "default",
            "deviceScaleFactor": 2.625,
            "userAgent": "Phone/1.0",
            "offline": true,
            "tabId": 7,
        }))
        .expect("changes");
        assert_eq!(
            changes,
            [
                Change::MediaFeature(
                    Setting::ColorScheme,
                    MediaFeature::PrefersColorScheme,
                    Some("dark".into())
                ),
                Change::MediaFeature(
                    Setting::ReducedMotion,
                    MediaFeature::PrefersReducedMotion,
                    None
                ),
                Change::DeviceScaleFactor(Override::Set(2.625)),
                Change::UserAgent(Override::Set("Phone/1.0".into())),
                Change::Offline(true),
            ]
        );
        let resets = requested_changes(&json!({
            "colorScheme": "default",
            "deviceScaleFactor": 0,
            "userAgent": "",
            "offline": false,
        }))
        .expect("changes");
        assert_eq!(
            resets,
            [
                Change::MediaFeature(Setting::ColorScheme, MediaFeature::PrefersColorScheme, None),
                Change::DeviceScaleFactor(Override::Reset),
                Change::UserAgent(Override::Reset),
                Change::Offline(false),
            ]
        );
    }

    #[test]
    fn null_keeps_a_setting_and_at_least_one_setting_is_needed() {
        // Many clients send null for every optional argument: null changes nothing.
        let changes = requested_changes(&json!({
            "colorScheme": null,
            "reducedMotion": null,
            "deviceScaleFactor": null,
            "userAgent": null,
            "offline": true,
        }))
        .expect("changes");
        assert_eq!(changes, [Change::Offline(true)]);
        for arguments in [json!({}), json!({"tabId": 3}), json!({"colorScheme": null})] {
            let error = requested_changes(&arguments).expect_err("nothing to change");
            assert_eq!(error.code, "invalid_arguments", "{arguments}");
            assert!(error.hint.expect("hint").contains("colorScheme"));
        }
    }

    #[test]
    fn media_features_need_chromiums_pipe_and_the_rest_go_over_bidi() {
        for setting in [Setting::ColorScheme, Setting::ReducedMotion] {
            assert_eq!(route_of(setting, true), Route::ChromiumPipe);
            assert_eq!(route_of(setting, false), Route::Nowhere);
        }
        for setting in [
            Setting::DeviceScaleFactor,
            Setting::UserAgent,
            Setting::Offline,
        ] {
            assert_eq!(route_of(setting, true), Route::Bidi);
            assert_eq!(route_of(setting, false), Route::Bidi);
        }
    }

    #[test]
    fn the_reply_names_what_was_set_and_what_this_browser_cannot_set() {
        let reason = no_route_reason(Setting::ColorScheme, "Firefox");
        let not_supported = [
            NotSupported {
                setting: Setting::ColorScheme,
                reason: reason.clone(),
            },
            NotSupported {
                setting: Setting::ReducedMotion,
                reason: no_route_reason(Setting::ReducedMotion, "Firefox"),
            },
        ];
        let reply = emulate_reply("Firefox", &[Setting::Offline], &not_supported).expect("a reply");
        assert_eq!(reply["applied"], json!(["offline"]));
        assert_eq!(
            reply["notSupportedHere"],
            json!(["colorScheme", "reducedMotion"])
        );
        assert_eq!(
            reply["hint"],
            json!(format!("{reason}.")),
            "one reason, once"
        );
        assert_eq!(
            emulate_reply("Chromium", &[Setting::ColorScheme], &[]).expect("a reply"),
            json!({"applied": ["colorScheme"]}),
            "nothing else when everything was set"
        );
        let error = emulate_reply("Firefox", &[], &not_supported).expect_err("nothing set");
        assert_eq!(error.code, "not_supported_here");
        assert!(
            error.message.contains("colorScheme, reducedMotion")
                && error.message.contains("Firefox"),
            "{}",
            error.message
        );
        assert!(error.hint.expect("hint").contains("Nothing was changed"));
    }

    #[test]
    fn resize_answers_the_viewport_reached() {
        let asked = ViewportSize {
            width: 390,
            height: 844,
        };
        assert_eq!(
            viewport_reply(asked, asked),
            json!({"width": 390, "height": 844})
        );
        let short = viewport_reply(
            asked,
            ViewportSize {
                width: 390,
                height: 700,
            },
        );
        assert_eq!(short["height"], 700);
        assert!(short["hint"].as_str().expect("hint").contains("390x844"));
    }
}
