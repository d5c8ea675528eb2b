//! The capabilities a person asks a remote end for (`--capability NAME=JSON`, repeatable), read
//! and merged into the `alwaysMatch` that allwright builds itself (WebDriver, "Capabilities":
//! a new session request carries one `alwaysMatch` object, so both must become one object).
//!
//! What may be asked: the standard capabilities that choose or shape a browser (`browserName`,
//! `browserVersion`, `platformName`, `acceptInsecureCerts`, `pageLoadStrategy`, `proxy`,
//! `setWindowRect`, `strictFileInteractability`, `timeouts`) and any extension capability, whose
//! name holds a `:` (WebDriver, "Extension capabilities": `goog:chromeOptions`,
//! `moz:firefoxOptions`, `se:name`, a cloud's `vendor:options`). What allwright owns is refused
//! with the reason: `webSocketUrl` (allwright speaks BiDi, so it is always `true`) and
//! `unhandledPromptBehavior` (the dialog tools need prompts left open). An object that both
//! sides set (`goog:chromeOptions`, `moz:firefoxOptions`) is merged key by key: `args` are
//! joined, a `binary` asked for wins (the node's own browser path), an object within (`env`,
//! `prefs`) is merged entry by entry, and any other key or entry set to two different values is
//! a conflict, as is a browser switch allwright sets to another value or one that would replace
//! its profile or extension loading.

use serde_json::{Map, Value};

/// One `--capability NAME=JSON`.
#[derive(Debug, Clone, PartialEq)]
pub struct RequestedCapability {
    pub name: String,
    pub value: Value,
}

/// The standard capabilities a person may ask for (WebDriver, "Capabilities", the table of
/// standard capabilities), less the two allwright owns.
const STANDARD_CAPABILITIES_ANYONE_MAY_ASK_FOR: [&str; 9] = [
    "browserName",
    "browserVersion",
    "platformName",
    "acceptInsecureCerts",
    "pageLoadStrategy",
    "proxy",
    "setWindowRect",
    "strictFileInteractability",
    "timeouts",
];

/// The capabilities allwright sets itself, each with the reason it cannot be asked for.
const CAPABILITIES_ALLWRIGHT_OWNS: [(&str, &str); 2] = [
    (
        "webSocketUrl",
        "allwright always asks for true: it drives the browser over WebDriver BiDi",
    ),
    (
        "unhandledPromptBehavior",
        "allwright keeps prompts open for its dialog tools (handle_dialog)",
    ),
];

/// Chromium switches that would take the profile or the extension out of allwright's hands:
/// the profile holds the native host's manifest, and the extension is installed over BiDi.
const CHROMIUM_SWITCHES_ALLWRIGHT_OWNS: [&str; 4] = [
    "--user-data-dir",
    "--load-extension",
    "--disable-extensions",
    "--disable-extensions-except",
];

/// Why a `--capability` cannot be used. Every message names the capability and says what to
/// do; none quotes more of the value than the part in question.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CapabilityError {
    /// Not `NAME=JSON`.
    NotNameEqualsJson(String),
    /// The part after `=` is not JSON.
    InvalidJson { name: String, error: String },
    /// A standard name allwright does not pass on, or an unknown name without a prefix.
    UnknownName(String),
    /// A capability allwright sets itself.
    OwnedByAllwright { name: String, reason: String },
    /// The same name given twice.
    GivenTwice(String),
    /// A value that cannot be merged with allwright's own.
    Conflict { name: String, detail: String },
}

impl std::fmt::Display for CapabilityError {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::NotNameEqualsJson(text) => write!(
                formatter,
                "--capability {text:?}: expected NAME=JSON, such as browserName='\"chrome\"' or goog:chromeOptions='{{\"args\":[\"--lang=de\"]}}'"
            ),
            Self::InvalidJson { name, error } => write!(
                formatter,
                "--capability {name}: the value is not JSON ({error}); a string needs its quotes, as in {name}='\"value\"'"
            ),
            Self::UnknownName(name) => write!(
                formatter,
                "--capability {name}: not a capability allwright passes on; give a standard one ({}) or an extension capability with its prefix (goog:, moz:, se:, ...)",
                STANDARD_CAPABILITIES_ANYONE_MAY_ASK_FOR.join(", ")
            ),
            Self::OwnedByAllwright { name, reason } => {
                write!(formatter, "--capability {name}: allwright sets it itself ({reason})")
            }
            Self::GivenTwice(name) => write!(
                formatter,
                "--capability {name} is given twice; give it once with the whole value"
            ),
            Self::Conflict { name, detail } => write!(formatter, "--capability {name}: {detail}"),
        }
    }
}

impl std::error::Error for CapabilityError {}

impl std::str::FromStr for RequestedCapability {
    type Err = CapabilityError;

    /// Reads `NAME=JSON`: the name up to the first `=`, the rest as JSON.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let (name, json) = text
            .split_once('=')
            .filter(|(name, _)| !name.is_empty())
            .ok_or_else(|| CapabilityError::NotNameEqualsJson(text.to_owned()))?;
        let value = serde_json::from_str(json).map_err(|error| CapabilityError::InvalidJson {
            name: name.to_owned(),
            error: error.to_string(),
        })?;
        check_name(name)?;
        Ok(Self {
            name: name.to_owned(),
            value,
        })
    }
}

/// Whether a name may be asked for at all.
fn check_name(name: &str) -> Result<(), CapabilityError> {
    if let Some((_, reason)) = CAPABILITIES_ALLWRIGHT_OWNS
        .iter()
        .find(|(owned, _)| *owned == name)
    {
        return Err(CapabilityError::OwnedByAllwright {
            name: name.to_owned(),
            reason: (*reason).to_owned(),
        });
    }
    // WebDriver, "Extension capabilities": an extension capability's name contains a ":".
    if name.contains(':') || STANDARD_CAPABILITIES_ANYONE_MAY_ASK_FOR.contains(&name) {
        Ok(())
    } else {
        Err(CapabilityError::UnknownName(name.to_owned()))
    }
}

/// Merges the requested capabilities into allwright's own `alwaysMatch` object.
pub fn merge_requested_capabilities(
    own: &mut Map<String, Value>,
    requested: &[RequestedCapability],
) -> Result<(), CapabilityError> {
    let mut seen = std::collections::HashSet::new();
    for RequestedCapability { name, value } in requested {
        check_name(name)?;
        if !seen.insert(name.as_str()) {
            return Err(CapabilityError::GivenTwice(name.clone()));
        }
        let conflict = |detail: String| CapabilityError::Conflict {
            name: name.clone(),
            detail,
        };
        match (own.get_mut(name), value) {
            (None, _) => {
                own.insert(name.clone(), value.clone());
            }
            (Some(Value::Object(own_object)), Value::Object(requested_object)) => {
                merge_vendor_options(own_object, requested_object).map_err(conflict)?;
            }
            (Some(Value::Object(_)), _) => {
                return Err(conflict(
                    "allwright sets options here itself, so the value must be a JSON object to merge with them".into(),
                ))
            }
            // A scalar allwright chose (browserName): the person's choice wins, and the remote
            // end answers whether it has such a browser.
            (Some(own_value), _) => *own_value = value.clone(),
        }
    }
    Ok(())
}

/// Merges one vendor options object (`goog:chromeOptions`): the requested keys that allwright
/// does not set are added, `args` are joined, `binary` is replaced, and any other key set to two
/// different values is refused.
fn merge_vendor_options(
    own: &mut Map<String, Value>,
    requested: &Map<String, Value>,
) -> Result<(), String> {
    for (key, value) in requested {
        match (key.as_str(), own.get_mut(key)) {
            (_, None) => {
                own.insert(key.clone(), value.clone());
            }
            ("args", Some(Value::Array(own_arguments))) => {
                let Value::Array(requested_arguments) = value else {
                    return Err("\"args\" must be an array of strings".into());
                };
                for argument in requested_arguments {
                    let text = argument
                        .as_str()
                        .ok_or("\"args\" must be an array of strings")?;
                    if !own_arguments.iter().any(|own| own.as_str() == Some(text)) {
                        check_browser_switch(own_arguments, text)?;
                        own_arguments.push(argument.clone());
                    }
                }
            }
            // The remote end's own browser: allwright names the one it would launch, which is
            // right only when the node is this machine.
            ("binary", Some(own_binary)) => *own_binary = value.clone(),
            // An object both set (`moz:firefoxOptions.env`, `prefs`): one level further, the
            // requested entries are added, and one that allwright sets (the host's socket and
            // `HOME` in `env`) may only be given its own value.
            (_, Some(Value::Object(own_entries))) if value.is_object() => {
                for (entry, entry_value) in value.as_object().into_iter().flatten() {
                    match own_entries.get(entry) {
                        None => {
                            own_entries.insert(entry.clone(), entry_value.clone());
                        }
                        Some(own_value) if own_value == entry_value => {}
                        Some(_) => {
                            return Err(format!(
                                "allwright sets \"{key}\".\"{entry}\" itself, to another value; leave it out"
                            ))
                        }
                    }
                }
            }
            (_, Some(own_value)) if own_value == value => {}
            (_, Some(_)) => {
                return Err(format!(
                    "allwright sets \"{key}\" itself, to another value; leave it out"
                ))
            }
        }
    }
    Ok(())
}

/// A browser switch may be added unless allwright owns it or sets it to another value.
fn check_browser_switch(own_arguments: &[Value], argument: &str) -> Result<(), String> {
    let switch = argument.split_once('=').map_or(argument, |(name, _)| name);
    if CHROMIUM_SWITCHES_ALLWRIGHT_OWNS.contains(&switch) {
        return Err(format!(
            "the browser switch {switch} is allwright's own: the profile holds its native host's registration and the extension is installed over BiDi"
        ));
    }
    let set_by_allwright = own_arguments
        .iter()
        .filter_map(Value::as_str)
        .any(|own| own.split_once('=').map_or(own, |(name, _)| name) == switch);
    if set_by_allwright {
        return Err(format!(
            "allwright sets the browser switch {switch} itself, to another value; leave it out"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn requested(text: &str) -> Result<RequestedCapability, CapabilityError> {
        text.parse()
    }

    fn own() -> Map<String, Value> {
        let Value::Object(own) = json!({
            "browserName": "chrome",
            "webSocketUrl": true,
            "goog:chromeOptions": {
                "args": ["--headless=new", "--user-data-dir=/tmp/p"],
                "binary": "/usr/lib/chromium/chromium"
            }
        }) else {
            unreachable!("an object literal")
        };
        own
    }

    #[test]
    fn capabilities_are_read_as_name_and_json() {
        let name = requested("se:name=\"login test\"").expect("read");
        assert_eq!(name.name, "se:name");
        assert_eq!(name.value, json!("login test"));
        let options = requested("goog:chromeOptions={\"args\":[\"--lang=de\"]}").expect("read");
        assert_eq!(options.value["args"][0], "--lang=de");
        assert_eq!(
            requested("browserVersion=\"=156\"").expect("read").value,
            json!("=156")
        );
        for (text, expected) in [
            ("browserName", "expected NAME=JSON"),
            ("=\"chrome\"", "expected NAME=JSON"),
            ("browserName=chrome", "not JSON"),
            ("browserName={", "not JSON"),
            ("webSocketUrl=false", "allwright sets it itself"),
            ("unhandledPromptBehavior=\"accept\"", "dialog tools"),
            ("chromeOptions={}", "not a capability allwright passes on"),
        ] {
            let error = requested(text).expect_err(text).to_string();
            assert!(error.contains(expected), "{text}: {error}");
        }
    }

    #[test]
    fn requested_capabilities_merge_with_allwrights_own() {
        let mut merged = own();
        merge_requested_capabilities(
            &mut merged,
            &[
                requested("browserVersion=\"156\"").expect("read"),
                requested("se:name=\"a\"").expect("read"),
                requested(
                    "goog:chromeOptions={\"args\":[\"--lang=de\",\"--headless=new\"],\"binary\":\"/opt/chrome\",\"prefs\":{\"a\":1}}",
                )
                .expect("read"),
            ],
        )
        .expect("merged");
        let options = &merged["goog:chromeOptions"];
        assert_eq!(
            options["args"],
            json!(["--headless=new", "--user-data-dir=/tmp/p", "--lang=de"])
        );
        assert_eq!(options["binary"], "/opt/chrome");
        assert_eq!(options["prefs"]["a"], 1);
        assert_eq!(merged["browserVersion"], "156");
        assert_eq!(merged["se:name"], "a");
        assert_eq!(merged["webSocketUrl"], true);
        let mut renamed = own();
        merge_requested_capabilities(
            &mut renamed,
            &[requested("browserName=\"MicrosoftEdge\"").expect("read")],
        )
        .expect("merged");
        assert_eq!(renamed["browserName"], "MicrosoftEdge");
    }

    #[test]
    fn conflicts_with_allwrights_own_are_refused_with_the_reason() {
        for (texts, expected) in [
            (
                vec!["goog:chromeOptions={\"args\":[\"--user-data-dir=/elsewhere\"]}"],
                "allwright's own",
            ),
            (
                vec!["goog:chromeOptions={\"args\":[\"--load-extension=/x\"]}"],
                "installed over BiDi",
            ),
            (
                vec!["goog:chromeOptions={\"args\":[\"--headless=old\"]}"],
                "to another value",
            ),
            (
                vec!["goog:chromeOptions={\"args\":\"--lang=de\"}"],
                "array of strings",
            ),
            (vec!["goog:chromeOptions=[]"], "must be a JSON object"),
            (vec!["se:name=\"a\"", "se:name=\"b\""], "given twice"),
        ] {
            let capabilities: Vec<_> = texts
                .iter()
                .map(|text| requested(text).expect("read"))
                .collect();
            let error = merge_requested_capabilities(&mut own(), &capabilities)
                .expect_err(texts[0])
                .to_string();
            assert!(error.contains(expected), "{texts:?}: {error}");
        }
        let mut with_own_key = own();
        with_own_key["goog:chromeOptions"]["excludeSwitches"] = json!(["enable-automation"]);
        let error = merge_requested_capabilities(
            &mut with_own_key,
            &[requested("goog:chromeOptions={\"excludeSwitches\":[]}").expect("read")],
        )
        .expect_err("conflict")
        .to_string();
        assert!(error.contains("\"excludeSwitches\""), "{error}");
    }

    /// `moz:firefoxOptions.env` carries the native host's socket and `HOME`: other variables
    /// are added, those two keep allwright's values.
    #[test]
    fn objects_within_vendor_options_merge_entry_by_entry() {
        let Value::Object(mut firefox) = json!({
            "browserName": "firefox",
            "moz:firefoxOptions": {
                "args": ["-headless"],
                "env": {"ALLWRIGHT_SOCKET": "/tmp/s/host.sock", "HOME": "/tmp/s/home"}
            }
        }) else {
            unreachable!("an object literal")
        };
        merge_requested_capabilities(
            &mut firefox,
            &[requested(
                "moz:firefoxOptions={\"env\":{\"MOZ_LOG\":\"x\",\"HOME\":\"/tmp/s/home\"},\"prefs\":{\"intl.accept_languages\":\"de\"}}",
            )
            .expect("read")],
        )
        .expect("merged");
        let options = &firefox["moz:firefoxOptions"];
        assert_eq!(options["env"]["MOZ_LOG"], "x");
        assert_eq!(options["env"]["ALLWRIGHT_SOCKET"], "/tmp/s/host.sock");
        assert_eq!(options["prefs"]["intl.accept_languages"], "de");
        let error = merge_requested_capabilities(
            &mut firefox,
            &[requested("moz:firefoxOptions={\"env\":{\"HOME\":\"/root\"}}").expect("read")],
        )
        .expect_err("conflict")
        .to_string();
        assert!(error.contains("\"env\".\"HOME\""), "{error}");
    }
}
