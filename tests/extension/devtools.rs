//! A minimal Chrome DevTools Protocol client, for tests only: Chromium's own accessibility engine
//! as an oracle (`Accessibility.getPartialAXTree`), and a look into the extension's isolated
//! world (the ref registry). The product never uses CDP for element operations.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use tokio_tungstenite::tungstenite::Message;

type Socket =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

pub struct DevTools {
    socket: Socket,
    next_id: u64,
    /// Events seen while waiting for answers.
    pub events: Vec<Value>,
}

/// `GET http://ADDRESS/PATH` as JSON, by hand (the test needs no HTTP client for two requests).
/// Chromium's DevTools server keeps the connection open despite `Connection: close`, so the
/// answer ends at its `Content-Length`, not at the end of the stream: reading to the end waited
/// for the 5 s read timeout on every call (every DevTools attach, every stopped service worker).
fn get_json(address: &str, path: &str) -> Value {
    let Ok(mut stream) = TcpStream::connect(address) else {
        return Value::Null;
    };
    let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
    let request = format!("GET {path} HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n");
    if stream.write_all(request.as_bytes()).is_err() {
        return Value::Null;
    }
    let mut response = Vec::new();
    let mut buffer = [0u8; 16 * 1024];
    loop {
        if let Some(body) = complete_body(&response) {
            return serde_json::from_slice(body).unwrap_or(Value::Null);
        }
        match stream.read(&mut buffer) {
            Ok(0) | Err(_) => break,
            Ok(read) => response.extend_from_slice(&buffer[..read]),
        }
    }
    // The stream ended (or timed out) first: whatever body came.
    let text = String::from_utf8_lossy(&response);
    let body = text
        .split_once("\r\n\r\n")
        .map(|(_, body)| body)
        .unwrap_or("");
    serde_json::from_str(body).unwrap_or(Value::Null)
}

/// The body of an HTTP answer once all of it (its `Content-Length`) is in `response`.
fn complete_body(response: &[u8]) -> Option<&[u8]> {
    let end_of_head = response
        .windows(4)
        .position(|window| window == b"\r\n\r\n")?;
    let head = std::str::from_utf8(&response[..end_of_head]).ok()?;
    let length: usize = head.lines().find_map(|line| {
        let (name, value) = line.split_once(':')?;
        name.trim()
            .eq_ignore_ascii_case("content-length")
            .then(|| value.trim().parse().ok())
            .flatten()
    })?;
    let body = &response[end_of_head + 4..];
    (body.len() >= length).then(|| &body[..length])
}

/// The DevTools targets (`/json/list`).
fn targets(address: &str) -> Vec<Value> {
    get_json(address, "/json/list")
        .as_array()
        .cloned()
        .unwrap_or_default()
}

impl DevTools {
    /// Attaches to the page target whose URL starts with `url_prefix`.
    pub async fn attach_to_page(address: &str, url_prefix: &str) -> DevTools {
        let target = targets(address)
            .into_iter()
            .find(|target| {
                target["type"] == "page"
                    && target["url"]
                        .as_str()
                        .is_some_and(|url| url.starts_with(url_prefix))
            })
            .unwrap_or_else(|| panic!("no DevTools page target for {url_prefix}"));
        DevTools::connect(&target["webSocketDebuggerUrl"]).await
    }

    /// Attaches to the browser target (for Target.* commands).
    pub async fn attach_to_browser(address: &str) -> DevTools {
        DevTools::connect(&get_json(address, "/json/version")["webSocketDebuggerUrl"]).await
    }

    /// Opens the WebSocket of a target's `webSocketDebuggerUrl`.
    async fn connect(url: &Value) -> DevTools {
        let url = url.as_str().expect("a DevTools WebSocket URL");
        let (socket, _) = tokio_tungstenite::connect_async(url)
            .await
            .expect("connect to DevTools");
        DevTools {
            socket,
            next_id: 0,
            events: Vec::new(),
        }
    }

    /// Sends a command and waits for its answer (events seen meanwhile are kept).
    pub async fn command(&mut self, method: &str, params: Value) -> Result<Value, Value> {
        self.next_id += 1;
        let id = self.next_id;
        let message = json!({"id": id, "method": method, "params": params});
        self.socket
            .send(Message::Text(message.to_string().into()))
            .await
            .expect("send to DevTools");
        let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
        loop {
            let next = tokio::time::timeout_at(deadline, self.socket.next()).await;
            let Ok(Some(Ok(Message::Text(text)))) = next else {
                if next.is_err() {
                    return Err(json!({"message": format!("{method} timed out")}));
                }
                continue;
            };
            let value: Value = serde_json::from_str(text.as_str()).unwrap_or(Value::Null);
            if value["id"] == id {
                return match value.get("error") {
                    Some(error) => Err(error.clone()),
                    None => Ok(value["result"].clone()),
                };
            }
            self.events.push(value);
        }
    }

    /// The execution context of the extension's content scripts in this page's main frame.
    pub async fn extension_world(&mut self, extension_id: &str) -> Option<i64> {
        self.events.clear();
        self.command("Runtime.enable", json!({})).await.ok()?;
        let origin = format!("chrome-extension://{extension_id}");
        self.events.iter().find_map(|event| {
            let context = &event["params"]["context"];
            (event["method"] == "Runtime.executionContextCreated"
                && context["origin"] == origin.as_str()
                && context["auxData"]["isDefault"] == false
                && context["auxData"]["type"] == "isolated")
                .then(|| context["id"].as_i64())
                .flatten()
        })
    }

    /// Evaluates an expression (by value) in a given execution context.
    pub async fn evaluate_in(&mut self, context_id: i64, expression: &str) -> Value {
        let result = self
            .command(
                "Runtime.evaluate",
                json!({"expression": expression, "contextId": context_id, "returnByValue": true, "awaitPromise": true}),
            )
            .await
            .unwrap_or_else(|error| panic!("evaluate {expression}: {error}"));
        if let Some(exception) = result.get("exceptionDetails") {
            panic!("evaluate {expression} threw: {exception}");
        }
        result["result"]["value"].clone()
    }

    /// Sends every command before reading any answer, and returns the answers in the commands'
    /// order: one round trip's wait for many commands (the oracle tests ask about thousands of
    /// elements). Events seen meanwhile are kept; each answer may take up to 20 s after the one
    /// before.
    pub async fn commands(&mut self, commands: &[(&str, Value)]) -> Vec<Result<Value, Value>> {
        let first = self.next_id + 1;
        for (method, params) in commands {
            self.next_id += 1;
            let message = json!({"id": self.next_id, "method": method, "params": params});
            self.socket
                .send(Message::Text(message.to_string().into()))
                .await
                .expect("send to DevTools");
        }
        let mut answers: Vec<Option<Result<Value, Value>>> = vec![None; commands.len()];
        let mut missing = commands.len();
        while missing > 0 {
            let next = tokio::time::timeout(Duration::from_secs(20), self.socket.next()).await;
            let Ok(Some(Ok(Message::Text(text)))) = next else {
                if next.is_err() || matches!(next, Ok(None) | Ok(Some(Err(_)))) {
                    for (answer, (method, _)) in answers.iter_mut().zip(commands) {
                        answer.get_or_insert_with(|| {
                            Err(json!({"message": format!("{method} timed out")}))
                        });
                    }
                    break;
                }
                continue;
            };
            let value: Value = serde_json::from_str(text.as_str()).unwrap_or(Value::Null);
            let index = value["id"]
                .as_u64()
                .filter(|id| *id >= first && *id < first + commands.len() as u64)
                .map(|id| (id - first) as usize);
            match index {
                Some(index) if answers[index].is_none() => {
                    answers[index] = Some(match value.get("error") {
                        Some(error) => Err(error.clone()),
                        None => Ok(value["result"].clone()),
                    });
                    missing -= 1;
                }
                _ => self.events.push(value),
            }
        }
        answers.into_iter().flatten().collect()
    }

    /// Chromium's computed role and name of the element a page expression designates.
    pub async fn role_and_name(&mut self, element_expression: &str) -> Option<(String, String)> {
        let found = self
            .command(
                "Runtime.evaluate",
                json!({"expression": element_expression}),
            )
            .await
            .ok()?;
        let object_id = found["result"]["objectId"].as_str()?.to_string();
        let tree = self
            .command(
                "Accessibility.getPartialAXTree",
                json!({"objectId": object_id, "fetchRelatives": false}),
            )
            .await
            .ok()?;
        let _ = self
            .command("Runtime.releaseObject", json!({"objectId": object_id}))
            .await;
        role_and_name_of(&tree)
    }

    /// [`DevTools::role_and_name`] of each element of the array a page expression evaluates to, in order (`None` where an entry is no element or
    /// Chromium has no node for it), asked all at once: one evaluation, one property read and the
    /// partial trees pipelined ([`DevTools::commands`]), instead of three round trips per element
    /// (which took the agreement test about six minutes).
    pub async fn roles_and_names(
        &mut self,
        array_expression: &str,
    ) -> Vec<Option<(String, String)>> {
        const GROUP: &str = "allwright-test-roles-and-names";
        let Ok(found) = self
            .command(
                "Runtime.evaluate",
                json!({"expression": array_expression, "objectGroup": GROUP}),
            )
            .await
        else {
            return Vec::new();
        };
        let Some(array_id) = found["result"]["objectId"].as_str().map(str::to_owned) else {
            return Vec::new();
        };
        let properties = self
            .command(
                "Runtime.getProperties",
                json!({"objectId": array_id, "ownProperties": true}),
            )
            .await
            .unwrap_or(Value::Null);
        // Array indices in order; an entry that is no object (null: not found) has no objectId.
        let mut elements: Vec<(usize, Option<String>)> = properties["result"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|property| {
                let index = property["name"].as_str()?.parse::<usize>().ok()?;
                let object_id = property["value"]["objectId"].as_str().map(str::to_owned);
                Some((index, object_id))
            })
            .collect();
        elements.sort_by_key(|(index, _)| *index);
        let length = elements.last().map_or(0, |(index, _)| index + 1);
        let asked: Vec<(usize, (&str, Value))> = elements
            .iter()
            .filter_map(|(index, object_id)| {
                let object_id = object_id.as_ref()?;
                Some((
                    *index,
                    (
                        "Accessibility.getPartialAXTree",
                        json!({"objectId": object_id, "fetchRelatives": false}),
                    ),
                ))
            })
            .collect();
        let commands: Vec<(&str, Value)> =
            asked.iter().map(|(_, command)| command.clone()).collect();
        let trees = self.commands(&commands).await;
        let _ = self
            .command("Runtime.releaseObjectGroup", json!({"objectGroup": GROUP}))
            .await;
        let mut answers = vec![None; length];
        for ((index, _), tree) in asked.iter().zip(trees) {
            answers[*index] = tree.ok().and_then(|tree| role_and_name_of(&tree));
        }
        answers
    }
}

/// The role (as an ARIA token) and normalized name of the first node of an
/// `Accessibility.getPartialAXTree` answer; an ignored node is `none` without a name.
fn role_and_name_of(tree: &Value) -> Option<(String, String)> {
    let node = tree["nodes"].as_array()?.first()?;
    if node["ignored"] == true {
        return Some(("none".to_string(), String::new()));
    }
    let role = node["role"]["value"].as_str().unwrap_or("").to_string();
    let name = node["name"]["value"].as_str().unwrap_or("").to_string();
    Some((chromium_role_to_aria(&role), normalize(&name)))
}

/// Chromium's internal role names, mapped to the ARIA tokens WPT and our snapshot use
/// (the names Chromium's `Accessibility.getPartialAXTree` reports, checked against WPT's
/// `data-expectedrole` values).
pub fn chromium_role_to_aria(role: &str) -> String {
    match role {
        "RootWebArea" => "document",
        "StaticText" | "InlineTextBox" => "text",
        "LabelText" | "Section" | "Div" | "Pre" | "Abbr" | "Ruby" | "Canvas" => "generic",
        "image" | "img" => "image",
        "MenuListPopup" => "listbox",
        "MenuListOption" => "option",
        "DisclosureTriangle" => "button",
        "Iframe" | "IframePresentational" => "iframe",
        "ListMarker" => "none",
        "LineBreak" => "none",
        "DescriptionList" => "list",
        "DescriptionListTerm" => "term",
        "DescriptionListDetail" => "definition",
        "Legend" => "generic",
        "Figcaption" => "generic",
        "Audio" | "Video" => "group",
        "Details" => "group",
        "HeaderAsNonLandmark" => "sectionheader",
        "FooterAsNonLandmark" => "sectionfooter",
        "SearchBox" => "searchbox",
        "code" => "code",
        "MathMLMath" => "math",
        other => other,
    }
    .to_string()
}

/// Collapses ASCII whitespace and trims (WPT's comparison; Chromium keeps stray whitespace).
pub fn normalize(text: &str) -> String {
    text.split_ascii_whitespace().collect::<Vec<_>>().join(" ")
}
