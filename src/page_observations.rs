//! console_messages and network_requests as an agent reads them (docs/agent-tools.md,
//! "The page's console and network"): the entries a tab kept
//! (allwright_surface_web::observations), filtered by the call's arguments, with every secret
//! masked, one short line each. Page text never forges a line: texts are JSON strings, and URLs
//! and header values with a space or a control character are too.

use std::borrow::Cow;

use allwright_surface_web::observations::{ConsoleEntry, NetworkRequest, SourcePosition};
use serde_json::{json, Map, Value};

/// Header names whose values are credentials wherever they appear (lower case).
const CREDENTIAL_HEADERS: &[&str] = &[
    "authorization",
    "proxy-authorization",
    "cookie",
    "set-cookie",
    "set-cookie2",
];
/// Words that make a header or a query parameter a secret when its name contains one.
const SECRET_NAME_WORDS: &[&str] = &[
    "token",
    "secret",
    "session",
    "password",
    "passwd",
    "apikey",
    "api-key",
    "api_key",
    "auth",
    "csrf",
    "xsrf",
    "signature",
    "credential",
];
/// An opaque value this long or longer, of token characters only, with letters and digits both,
/// is taken for a token whatever its name.
const OPAQUE_TOKEN_CHARS: usize = 32;

/// Whether a header or parameter name says its value is a secret.
fn names_a_secret(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    CREDENTIAL_HEADERS.contains(&name.as_str())
        || SECRET_NAME_WORDS.iter().any(|word| name.contains(word))
}

/// Whether a value looks like a credential whatever its name: an HTTP authentication scheme's
/// credentials, a JSON Web Token, or a long opaque token.
fn looks_like_a_token(value: &str) -> bool {
    let trimmed = value.trim();
    let lower = trimmed.to_ascii_lowercase();
    if ["bearer ", "basic ", "digest ", "token ", "negotiate "]
        .iter()
        .any(|scheme| lower.starts_with(scheme))
    {
        return true;
    }
    let token_characters = |text: &str| {
        text.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_+/=.~".contains(c))
    };
    // A JWT: three base64url parts, the first a JSON object's encoding ("eyJ" is `{"`).
    if trimmed.starts_with("eyJ") && trimmed.matches('.').count() >= 2 && token_characters(trimmed)
    {
        return true;
    }
    trimmed.len() >= OPAQUE_TOKEN_CHARS
        && token_characters(trimmed)
        && trimmed.chars().any(|c| c.is_ascii_digit())
        && trimmed.chars().any(|c| c.is_ascii_alphabetic())
}

/// What a masked value prints instead of itself.
fn masked(value: &str) -> String {
    format!("<masked, {} characters>", value.chars().count())
}

/// A header's value as the agent may see it.
pub fn header_value_shown<'value>(name: &str, value: &'value str) -> Cow<'value, str> {
    if names_a_secret(name) || looks_like_a_token(value) {
        Cow::Owned(masked(value))
    } else {
        Cow::Borrowed(value)
    }
}

/// A URL with the values of its secret-looking query parameters (and a password in it) masked:
/// `?access_token=MASKED(43)`. Written by hand over the URL's text, which the browser serialized
/// (no spaces; `&` and `=` only as separators in a query).
pub fn url_shown(url: &str) -> Cow<'_, str> {
    let (without_fragment, fragment) = match url.split_once('#') {
        Some((before, after)) => (before, Some(after)),
        None => (url, None),
    };
    let (base, query) = match without_fragment.split_once('?') {
        Some((before, after)) => (before, Some(after)),
        None => (without_fragment, None),
    };
    let mut changed = false;
    let mut shown = String::with_capacity(url.len());
    // `scheme://user:password@host/...`: the password goes.
    match base.split_once("://") {
        Some((scheme, rest)) => {
            let authority_end = rest.find('/').unwrap_or(rest.len());
            let (authority, path) = rest.split_at(authority_end);
            shown.push_str(scheme);
            shown.push_str("://");
            match authority.rsplit_once('@') {
                Some((user_info, host)) if user_info.contains(':') => {
                    let user = user_info.split(':').next().unwrap_or("");
                    shown.push_str(&format!("{user}:MASKED@{host}"));
                    changed = true;
                }
                _ => shown.push_str(authority),
            }
            shown.push_str(path);
        }
        None => shown.push_str(base),
    }
    if let Some(query) = query {
        shown.push('?');
        let parts: Vec<String> = query
            .split('&')
            .map(|pair| match pair.split_once('=') {
                Some((name, value)) if names_a_secret(name) || looks_like_a_token(value) => {
                    changed = true;
                    format!("{name}=MASKED({})", value.chars().count())
                }
                _ => pair.to_owned(),
            })
            .collect();
        shown.push_str(&parts.join("&"));
    }
    if let Some(fragment) = fragment {
        shown.push('#');
        shown.push_str(fragment);
    }
    if changed {
        Cow::Owned(shown)
    } else {
        Cow::Borrowed(url)
    }
}

/// A string printed bare when it is one word of printable characters, else as a JSON string, so
/// that nothing a page or a server writes can start a line.
pub fn word_or_quoted(text: &str) -> Cow<'_, str> {
    let plain = !text.is_empty()
        && !text.starts_with('"')
        && text
            .chars()
            .all(|c| !c.is_whitespace() && !c.is_control() && c != '\u{2028}' && c != '\u{2029}');
    if plain {
        Cow::Borrowed(text)
    } else {
        Cow::Owned(Value::String(text.to_owned()).to_string())
    }
}

fn position_text(position: &SourcePosition) -> String {
    format!(
        "{}:{}:{}",
        url_shown(&position.url),
        position.line,
        position.column
    )
}

/// The severity order of console levels: `level: "warning"` keeps warnings and errors.
fn level_rank(level: &str) -> u8 {
    match level {
        "debug" => 0,
        "info" => 1,
        "warning" => 2,
        _ => 3,
    }
}

/// What console_messages and network_requests were asked for.
pub struct ObservationQuery<'arguments> {
    /// Only entries after this sequence number (the `next` of an earlier answer).
    pub since: u64,
    pub limit: usize,
    /// console_messages: the lowest level kept.
    pub level: Option<&'arguments str>,
    /// network_requests: a part of the URL, in any case.
    pub url_filter: Option<&'arguments str>,
    /// network_requests: print the headers (masked).
    pub include_headers: bool,
}

impl<'arguments> ObservationQuery<'arguments> {
    /// The query of a call's validated arguments.
    pub fn of(arguments: &'arguments Value) -> Self {
        ObservationQuery {
            since: arguments["since"].as_u64().unwrap_or(0),
            limit: arguments["limit"]
                .as_u64()
                .and_then(|limit| usize::try_from(limit).ok())
                .unwrap_or(50),
            level: arguments["level"].as_str(),
            url_filter: arguments["urlFilter"].as_str(),
            include_headers: arguments["includeHeaders"].as_bool() == Some(true),
        }
    }
}

/// The header object of an answer: how many entries matched, how many are shown when the limit
/// cut them (the newest are kept), the sequence to pass as `since` next, and how many older
/// entries the tab's ring had dropped.
fn header(matched: usize, shown: usize, next: u64, dropped: u64) -> Map<String, Value> {
    let mut header = Map::new();
    header.insert("count".into(), json!(matched));
    if shown < matched {
        header.insert("shown".into(), json!(shown));
    }
    header.insert("next".into(), json!(next));
    if dropped > 0 {
        header.insert("olderDropped".into(), json!(dropped));
    }
    header
}

/// console_messages' result: the header fields, and under `tree` (the body a tree read's reply
/// prints after its header line, src/mcp_reply.rs) one line per entry, oldest first (the newest
/// `limit` of those that match), an exception's stack under it.
pub fn console_result<'entry>(
    entries: impl Iterator<Item = &'entry ConsoleEntry>,
    dropped: u64,
    last_sequence: u64,
    query: &ObservationQuery<'_>,
) -> Value {
    let lowest = query.level.map_or(0, level_rank);
    let matching: Vec<&ConsoleEntry> = entries
        .filter(|entry| entry.sequence > query.since && level_rank(entry.level) >= lowest)
        .collect();
    let shown = &matching[matching.len().saturating_sub(query.limit)..];
    let mut text = String::new();
    for entry in shown {
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(&format!("#{} {}", entry.sequence, entry.level));
        if entry.kind == "exception" {
            text.push_str(" exception");
        } else if let Some(method) = entry
            .method
            .as_deref()
            .filter(|method| !matches!(*method, "log" | "info" | "warn" | "error" | "debug"))
        {
            text.push_str(&format!(" console.{}", word_or_quoted(method)));
        }
        text.push(' ');
        text.push_str(&Value::String(entry.text.clone()).to_string());
        if let Some(source) = &entry.source {
            text.push_str(" at ");
            text.push_str(&word_or_quoted(&position_text(source)));
        }
        for frame in entry.stack.iter().skip(1) {
            text.push_str("\n  at ");
            if !frame.function.is_empty() {
                text.push_str(&word_or_quoted(&frame.function));
                text.push(' ');
            }
            text.push_str(&word_or_quoted(&position_text(frame)));
        }
    }
    with_body(
        header(matching.len(), shown.len(), last_sequence, dropped),
        text,
    )
}

/// network_requests' result from the extension's records (extension/background/records/network-records.js),
/// which arrive as they are: read into the bridge's shape, then filtered, masked and printed
/// as the bridge's are. A record that is not in that shape is left out.
pub fn network_result_from_extension(records: &Value, query: &ObservationQuery<'_>) -> Value {
    let requests: Vec<NetworkRequest> = records["requests"]
        .as_array()
        .map(|requests| requests.iter().filter_map(request_from_extension).collect())
        .unwrap_or_default();
    let result = network_result(
        requests.iter(),
        records["dropped"].as_u64().unwrap_or(0),
        records["lastSequence"].as_u64().unwrap_or(0),
        query,
    );
    with_records_since(result, records)
}

/// The extension's records start with the worker that keeps them (a restarted one has none
/// before): its `recordsSince` goes into the result's header.
fn with_records_since(mut result: Value, records: &Value) -> Value {
    if let (Some(since), Some(object)) = (records["recordsSince"].as_f64(), result.as_object_mut())
    {
        object.insert("recordsSince".into(), json!(since));
    }
    result
}

/// console_messages' result from the extension's records (extension/background/records/console-records.js),
/// read into the bridge's shape and printed as the bridge's are.
pub fn console_result_from_extension(records: &Value, query: &ObservationQuery<'_>) -> Value {
    let entries: Vec<ConsoleEntry> = records["entries"]
        .as_array()
        .map(|entries| {
            entries
                .iter()
                .filter_map(console_entry_from_extension)
                .collect()
        })
        .unwrap_or_default();
    let result = console_result(
        entries.iter(),
        records["dropped"].as_u64().unwrap_or(0),
        records["lastSequence"].as_u64().unwrap_or(0),
        query,
    );
    with_records_since(result, records)
}

/// A place `{function, url, line, column}` of the extension's records.
fn place_from_extension(place: &Value) -> Option<SourcePosition> {
    Some(SourcePosition {
        function: place["function"].as_str().unwrap_or("").to_owned(),
        url: place["url"].as_str()?.to_owned(),
        line: place["line"].as_u64()?,
        column: place["column"].as_u64()?,
    })
}

fn console_entry_from_extension(entry: &Value) -> Option<ConsoleEntry> {
    // The levels and kinds the records keep (anything else was read as `info` and `console`).
    let level = match entry["level"].as_str()? {
        "debug" => "debug",
        "warning" => "warning",
        "error" => "error",
        _ => "info",
    };
    let kind = match entry["kind"].as_str()? {
        "exception" => "exception",
        _ => "console",
    };
    Some(ConsoleEntry {
        sequence: entry["sequence"].as_u64()?,
        context: format!("frame-{}", entry["frameId"].as_u64().unwrap_or(0)),
        level,
        kind,
        method: entry["method"].as_str().map(str::to_owned),
        text: entry["text"].as_str().unwrap_or("").to_owned(),
        source: place_from_extension(&entry["source"]),
        stack: entry["stack"]
            .as_array()
            .map(|stack| stack.iter().filter_map(place_from_extension).collect())
            .unwrap_or_default(),
        timestamp: entry["timestamp"].as_f64().unwrap_or(0.0),
    })
}

/// `[[name, value], ...]` pairs.
fn header_pairs(headers: &Value) -> Vec<(String, String)> {
    headers
        .as_array()
        .map(|headers| {
            headers
                .iter()
                .filter_map(|pair| {
                    Some((pair[0].as_str()?.to_owned(), pair[1].as_str()?.to_owned()))
                })
                .collect()
        })
        .unwrap_or_default()
}

/// One webRequest record read into the bridge's shape: webRequest's resource types keep their
/// names but for the documents (`main_frame` is `document`, `sub_frame` `iframe`, as BiDi names
/// them), and a body's size is its Content-Length when the browser counted no bytes.
fn request_from_extension(record: &Value) -> Option<NetworkRequest> {
    let response = &record["response"];
    let response = response.is_object().then(|| {
        let headers = header_pairs(&response["headers"]);
        let content_length = headers
            .iter()
            .find(|(name, _)| name.eq_ignore_ascii_case("content-length"))
            .and_then(|(_, value)| value.trim().parse::<u64>().ok());
        allwright_surface_web::observations::NetworkResponse {
            status: response["status"]
                .as_u64()
                .and_then(|status| u16::try_from(status).ok())
                .unwrap_or(0),
            status_text: response["statusText"].as_str().unwrap_or("").to_owned(),
            mime_type: response["mimeType"].as_str().map(str::to_owned),
            from_cache: response["fromCache"].as_bool() == Some(true),
            transferred_bytes: response["transferredBytes"].as_u64(),
            body_bytes: content_length,
            finished_at: response["finishedAt"].as_f64().unwrap_or(0.0),
            fetch_duration_ms: None,
            headers,
        }
    });
    let resource_type = match record["resourceType"].as_str()? {
        "main_frame" => "document",
        "sub_frame" => "iframe",
        other => other,
    };
    Some(NetworkRequest {
        sequence: record["sequence"].as_u64()?,
        context: format!("frame-{}", record["frameId"].as_u64().unwrap_or(0)),
        request_id: record["requestId"].as_str().unwrap_or("").to_owned(),
        redirect_count: 0,
        method: record["method"].as_str()?.to_owned(),
        url: record["url"].as_str()?.to_owned(),
        resource_type: Some(resource_type.to_owned()),
        initiator: None,
        started_at: record["startedAt"].as_f64().unwrap_or(0.0),
        response,
        failure: record["failure"].as_str().map(str::to_owned),
        blocked: false,
        request_headers: header_pairs(&record["requestHeaders"]),
    })
}

/// The header fields with the lines under `tree`.
fn with_body(mut header: Map<String, Value>, lines: String) -> Value {
    header.insert("tree".into(), Value::String(lines));
    Value::Object(header)
}

/// A byte count as a person reads it: `850 B`, `12.4 kB`, `3.1 MB`.
pub fn bytes_text(bytes: u64) -> String {
    match bytes {
        0..=999 => format!("{bytes} B"),
        1_000..=999_999 => format!("{:.1} kB", bytes as f64 / 1_000.0),
        _ => format!("{:.1} MB", bytes as f64 / 1_000_000.0),
    }
}

/// network_requests' result, as [`console_result`]'s: one line per request, oldest first (the newest
/// `limit` of those that match): `#15 POST 201 https://a.test/api fetch application/json 1.2 kB
/// 35 ms from https://a.test/app.js:42`, a failure's reason in the status's place, and with
/// `includeHeaders` the request's (`>`) and the response's (`<`) headers under it, masked.
pub fn network_result<'entry>(
    requests: impl Iterator<Item = &'entry NetworkRequest>,
    dropped: u64,
    last_sequence: u64,
    query: &ObservationQuery<'_>,
) -> Value {
    let filter = query.url_filter.map(str::to_lowercase);
    let matching: Vec<&NetworkRequest> = requests
        .filter(|request| request.sequence > query.since)
        .filter(|request| {
            filter
                .as_deref()
                .is_none_or(|part| request.url.to_lowercase().contains(part))
        })
        .collect();
    let shown = &matching[matching.len().saturating_sub(query.limit)..];
    let mut text = String::new();
    for request in shown {
        if !text.is_empty() {
            text.push('\n');
        }
        let status = match (&request.failure, &request.response) {
            (Some(failure), _) => format!("failed {}", word_or_quoted(failure)),
            (None, Some(response)) => response.status.to_string(),
            (None, None) if request.blocked => "blocked".to_owned(),
            (None, None) => "pending".to_owned(),
        };
        text.push_str(&format!(
            "#{} {} {} {}",
            request.sequence,
            word_or_quoted(&request.method),
            status,
            word_or_quoted(&url_shown(&request.url))
        ));
        if let Some(resource_type) = &request.resource_type {
            text.push(' ');
            text.push_str(&word_or_quoted(resource_type));
        }
        if let Some(response) = &request.response {
            if let Some(mime) = &response.mime_type {
                text.push(' ');
                text.push_str(&word_or_quoted(mime));
            }
            if let Some(bytes) = response.transferred_bytes.or(response.body_bytes) {
                text.push(' ');
                text.push_str(&bytes_text(bytes));
            }
            if response.from_cache {
                text.push_str(" (cache)");
            }
        }
        if let Some(duration) = request.duration_ms() {
            text.push_str(&format!(" {duration:.0} ms"));
        }
        if let Some(initiator) = &request.initiator {
            text.push_str(" from ");
            text.push_str(&word_or_quoted(&url_shown(initiator)));
        }
        if query.include_headers {
            let response_headers = request
                .response
                .as_ref()
                .map(|response| response.headers.as_slice())
                .unwrap_or_default();
            for (direction, headers) in
                [(">", &request.request_headers[..]), ("<", response_headers)]
            {
                for (name, value) in headers {
                    text.push_str(&format!(
                        "\n  {direction} {}: {}",
                        word_or_quoted(name),
                        Value::String(header_value_shown(name, value).into_owned())
                    ));
                }
            }
        }
    }
    with_body(
        header(matching.len(), shown.len(), last_sequence, dropped),
        text,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use allwright_surface_web::observations::NetworkResponse;

    /// The reply text an agent reads of a result (src/mcp_reply.rs, a tree read's shape).
    fn reply(result: Value) -> String {
        crate::mcp_reply::reply_text("console_messages", &json!({}), result, false)
    }

    fn console_reply<'entry>(
        entries: impl Iterator<Item = &'entry ConsoleEntry>,
        dropped: u64,
        last_sequence: u64,
        query: &ObservationQuery<'_>,
    ) -> String {
        reply(console_result(entries, dropped, last_sequence, query))
    }

    fn network_reply<'entry>(
        requests: impl Iterator<Item = &'entry NetworkRequest>,
        dropped: u64,
        last_sequence: u64,
        query: &ObservationQuery<'_>,
    ) -> String {
        reply(network_result(requests, dropped, last_sequence, query))
    }

    #[test]
    fn credentials_and_token_looking_values_are_masked() {
        for (name, value) in [
            ("Authorization", "Bearer abc.def"),
            ("Cookie", "sid=1"),
            ("set-cookie", "sid=1; HttpOnly"),
            ("X-Amz-Security-Token", "short"),
            ("X-CSRF-Token", "abc"),
            ("X-Goog-Api-Key", "AIza"),
            ("X-Anything", "Basic dXNlcjpwYXNz"),
            (
                "X-Trace",
                "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl",
            ),
            ("X-Opaque", "a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8"),
        ] {
            let shown = header_value_shown(name, value);
            assert!(
                shown.starts_with("<masked, ") && !shown.contains(value),
                "{name}: {shown}"
            );
        }
        for (name, value) in [
            ("Content-Type", "application/json; charset=utf-8"),
            ("Cache-Control", "no-cache"),
            ("Accept-Language", "en-GB,en;q=0.9"),
            ("X-Request-Id", "42"),
            ("Content-Length", "12345678901234567890123456789012345"),
        ] {
            assert_eq!(header_value_shown(name, value), value, "{name}");
        }
    }

    #[test]
    fn secret_query_parameters_and_passwords_in_urls_are_masked() {
        assert_eq!(
            url_shown("https://a.test/cb?code=1&access_token=xyz&page=2#top"),
            "https://a.test/cb?code=1&access_token=MASKED(3)&page=2#top"
        );
        assert_eq!(
            url_shown("https://user:hunter2@a.test/p?q=1"),
            "https://user:MASKED@a.test/p?q=1"
        );
        assert_eq!(
            url_shown("https://a.test/?q=shoes"),
            "https://a.test/?q=shoes"
        );
        assert_eq!(url_shown("not a url"), "not a url");
    }

    fn console(sequence: u64, level: &'static str, kind: &'static str, text: &str) -> ConsoleEntry {
        ConsoleEntry {
            sequence,
            context: "tab".into(),
            level,
            kind,
            method: Some("log".into()),
            text: text.into(),
            source: Some(SourcePosition {
                function: "f".into(),
                url: "https://a.test/app.js".into(),
                line: 3,
                column: 7,
            }),
            stack: Vec::new(),
            timestamp: 0.0,
        }
    }

    #[test]
    fn console_lines_are_filtered_by_level_and_since_and_keep_the_newest() {
        let mut error = console(3, "error", "exception", "TypeError: boom\nsecond line");
        error.stack = vec![
            error.source.clone().expect("source"),
            SourcePosition {
                function: "outer".into(),
                url: "https://a.test/app.js".into(),
                line: 9,
                column: 1,
            },
        ];
        let entries = [
            console(1, "info", "console", "hello"),
            console(2, "warning", "console", "careful"),
            error,
        ];
        let query = |since, level, limit| ObservationQuery {
            since,
            limit,
            level,
            url_filter: None,
            include_headers: false,
        };
        let all = console_reply(entries.iter(), 0, 3, &query(0, None, 50));
        assert_eq!(
            all,
            "{\"count\":3,\"next\":3}\n\
#1 info \"hello\" at https://a.test/app.js:3:7\n\
#2 warning \"careful\" at https://a.test/app.js:3:7\n\
#3 error exception \"TypeError: boom\\nsecond line\" at https://a.test/app.js:3:7\n  at outer https://a.test/app.js:9:1"
        );
        let warnings = console_reply(entries.iter(), 4, 3, &query(1, Some("warning"), 1));
        assert_eq!(
            warnings.lines().next(),
            Some("{\"count\":2,\"next\":3,\"olderDropped\":4,\"shown\":1}")
        );
        assert!(warnings
            .lines()
            .nth(1)
            .is_some_and(|line| line.starts_with("#3 ")));
        assert_eq!(warnings.lines().count(), 3, "{warnings}");
    }

    #[test]
    fn request_lines_say_status_type_size_time_and_masked_headers() {
        let request = NetworkRequest {
            sequence: 5,
            context: "tab".into(),
            request_id: "1".into(),
            redirect_count: 0,
            method: "POST".into(),
            url: "https://a.test/api/login?token=abc".into(),
            resource_type: Some("fetch".into()),
            initiator: Some("https://a.test/app.js:42".into()),
            started_at: 100.0,
            response: Some(NetworkResponse {
                status: 201,
                status_text: "Created".into(),
                mime_type: Some("application/json".into()),
                from_cache: false,
                transferred_bytes: Some(1_234),
                body_bytes: Some(900),
                finished_at: 135.0,
                fetch_duration_ms: None,
                headers: vec![("Set-Cookie".into(), "sid=s3cr3t".into())],
            }),
            failure: None,
            blocked: false,
            request_headers: vec![
                ("Authorization".into(), "Bearer s3cr3t".into()),
                ("Accept".into(), "*/*".into()),
            ],
        };
        let failed = NetworkRequest {
            sequence: 6,
            url: "https://b.test/x".into(),
            response: None,
            failure: Some("net::ERR_NAME_NOT_RESOLVED".into()),
            initiator: None,
            ..request.clone()
        };
        let query = ObservationQuery {
            since: 0,
            limit: 50,
            level: None,
            url_filter: Some("API"),
            include_headers: true,
        };
        let reply = network_reply([&request, &failed].into_iter(), 0, 6, &query);
        assert_eq!(
            reply,
            "{\"count\":1,\"next\":6}\n\
#5 POST 201 https://a.test/api/login?token=MASKED(3) fetch application/json 1.2 kB 35 ms from https://a.test/app.js:42\n  \
> Authorization: \"<masked, 13 characters>\"\n  \
> Accept: \"*/*\"\n  \
< Set-Cookie: \"<masked, 10 characters>\""
        );
        assert!(!reply.contains("s3cr3t"));
        let failures = network_reply(
            [&request, &failed].into_iter(),
            0,
            6,
            &ObservationQuery {
                url_filter: None,
                include_headers: false,
                ..query
            },
        );
        assert!(
            failures.ends_with("#6 POST failed net::ERR_NAME_NOT_RESOLVED https://b.test/x fetch"),
            "{failures}"
        );
    }

    #[test]
    fn the_extensions_records_read_as_the_bridges_and_are_masked_alike() {
        let records = json!({
            "requests": [
                {"sequence": 4, "frameId": 0, "requestId": "9", "method": "GET",
                 "url": "https://a.test/api/me?session=abc", "resourceType": "xmlhttprequest",
                 "startedAt": 1000.0, "requestHeaders": [["Authorization", "Bearer s3cr3t"]],
                 "response": {"status": 200, "statusText": "OK", "mimeType": "application/json",
                              "fromCache": false, "transferredBytes": null, "finishedAt": 1042.0,
                              "headers": [["Content-Length", "1234"], ["Set-Cookie", "sid=s3cr3t"]]},
                 "failure": null},
                {"sequence": 5, "frameId": 3, "requestId": "10", "method": "GET",
                 "url": "https://b.test/", "resourceType": "sub_frame", "startedAt": 1050.0,
                 "requestHeaders": [], "response": null, "failure": "NS_ERROR_NET_RESET"},
                {"sequence": "not a number"}
            ],
            "dropped": 0, "lastSequence": 5, "recordsSince": 999.0
        });
        let arguments = json!({"includeHeaders": true});
        let query = ObservationQuery::of(&arguments);
        let reply = reply(network_result_from_extension(&records, &query));
        assert_eq!(
            reply,
            "{\"count\":2,\"next\":5,\"recordsSince\":999.0}\n\
#4 GET 200 https://a.test/api/me?session=MASKED(3) xmlhttprequest application/json 1.2 kB 42 ms\n  \
> Authorization: \"<masked, 13 characters>\"\n  \
< Content-Length: \"1234\"\n  \
< Set-Cookie: \"<masked, 10 characters>\"\n\
#5 GET failed NS_ERROR_NET_RESET https://b.test/ iframe"
        );
    }

    #[test]
    fn the_extensions_console_records_read_as_the_bridges() {
        let records = json!({
            "entries": [
                {"sequence": 7, "frameId": 2, "level": "warning", "kind": "console", "method": "warn",
                 "text": "careful", "source": {"function": "f", "url": "https://a.test/a.js", "line": 3, "column": 9},
                 "stack": [], "timestamp": 1.0},
                {"sequence": 8, "frameId": 0, "level": "error", "kind": "exception", "method": null,
                 "text": "TypeError: boom", "source": {"function": "g", "url": "https://a.test/a.js", "line": 5, "column": 1},
                 "stack": [{"function": "g", "url": "https://a.test/a.js", "line": 5, "column": 1},
                           {"function": "h", "url": "https://a.test/a.js", "line": 9, "column": 2}], "timestamp": 2.0},
                {"sequence": "eight"}
            ],
            "dropped": 2, "lastSequence": 8, "recordsSince": 0.5
        });
        let arguments = json!({});
        let reply = reply(console_result_from_extension(
            &records,
            &ObservationQuery::of(&arguments),
        ));
        assert_eq!(
            reply,
            "{\"count\":2,\"next\":8,\"olderDropped\":2,\"recordsSince\":0.5}\n\
#7 warning \"careful\" at https://a.test/a.js:3:9\n\
#8 error exception \"TypeError: boom\" at https://a.test/a.js:5:1\n  at h https://a.test/a.js:9:2"
        );
    }

    #[test]
    fn page_text_cannot_start_a_line() {
        let entry = console(1, "info", "console", "a\n#2 error \"forged\"");
        let reply = console_reply(
            [&entry].into_iter(),
            0,
            1,
            &ObservationQuery::of(&json!({})),
        );
        assert_eq!(reply.lines().count(), 2, "{reply}");
        assert_eq!(word_or_quoted("a b"), "\"a b\"");
        assert_eq!(word_or_quoted("ab"), "ab");
    }
}
