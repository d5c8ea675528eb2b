//! Every behaviour the snapshot promises (docs/protocol.md), through the built extension in a
//! real browser:
//! JSON/YAML equivalence, labels and descriptions, typed states, hidden content, password
//! values, shadow DOM and slots, ARIA ownership cycles, off-screen content, same-origin and
//! cross-origin frames; plus the text tree's metadata and the "ai" mode references.

use serde_json::{json, Value};

use crate::support::snapshot_checks::{
    expect_node, shadow_roots_and_slots, surface_hidden_and_off_screen,
    surface_labels_and_descriptions, surface_owned_list, surface_typed_states, top_root,
};
use crate::support::{find, fixtures, nodes, Session};

/// Reads the structured snapshot in both formats, checks that JSON, YAML 1.1 (libyaml through
/// serde_yaml) and YAML 1.2 (saphyr) give the same data and that it is valid against the
/// checked-in schema; returns the parsed snapshot.
pub async fn snapshot(session: &Session, mode_ai: bool) -> Value {
    let mut arguments = json!({"format": "json"});
    if mode_ai {
        arguments["mode"] = json!("ai");
    }
    let json_result = session
        .ok("accessibility_snapshot", arguments.clone())
        .await;
    let parsed: Value =
        serde_json::from_str(json_result["snapshot"].as_str().expect("a snapshot string"))
            .expect("the JSON snapshot parses");
    let schema: Value =
        serde_json::from_str(allwright_ax::snapshot::SCHEMA_V1).expect("the schema is JSON");
    let validator = jsonschema::validator_for(&schema).expect("the schema compiles");
    let errors: Vec<String> = validator
        .iter_errors(&parsed)
        .take(5)
        .map(|error| error.to_string())
        .collect();
    assert!(
        errors.is_empty(),
        "{}: snapshot not valid against the schema: {errors:?}",
        session.browser.name()
    );
    if !mode_ai {
        arguments["format"] = json!("yaml");
        let yaml_result = session.ok("accessibility_snapshot", arguments).await;
        let yaml = yaml_result["snapshot"].as_str().expect("a YAML string");
        let from_yaml_1_1: Value =
            serde_yaml::from_str(yaml).expect("YAML 1.1 reader parses the snapshot");
        assert_eq!(
            from_yaml_1_1,
            parsed,
            "{}: YAML (1.1 reader) differs from JSON",
            session.browser.name()
        );
        let from_yaml_1_2 = yaml_1_2_to_json(yaml);
        assert_eq!(
            from_yaml_1_2,
            parsed,
            "{}: YAML (1.2 reader) differs from JSON",
            session.browser.name()
        );
    }
    parsed
}

/// Reads YAML with saphyr (a YAML 1.2 reader) into JSON values.
fn yaml_1_2_to_json(text: &str) -> Value {
    use saphyr::{LoadableYamlNode, Scalar, Yaml};
    let documents = Yaml::load_from_str(text).expect("YAML 1.2 reader parses the snapshot");
    fn convert(node: &Yaml) -> Value {
        match node {
            Yaml::Value(Scalar::String(text)) => Value::String(text.to_string()),
            Yaml::Value(Scalar::Integer(number)) => json!(number),
            Yaml::Value(Scalar::FloatingPoint(number)) => json!(number.into_inner()),
            Yaml::Value(Scalar::Boolean(flag)) => json!(flag),
            Yaml::Value(Scalar::Null) => Value::Null,
            Yaml::Sequence(items) => Value::Array(items.iter().map(convert).collect()),
            Yaml::Mapping(map) => Value::Object(
                map.iter()
                    .map(|(key, value)| {
                        (key.as_str().unwrap_or_default().to_string(), convert(value))
                    })
                    .collect(),
            ),
            other => panic!("unexpected YAML node {other:?}"),
        }
    }
    convert(documents.first().expect("one YAML document"))
}

pub async fn labels_states_hidden_passwords_ownership(session: &Session) {
    let browser = session.browser.name();
    let server = fixtures();
    session.open(&server.url("/pages/surface.html")).await;
    let snapshot = snapshot(session, false).await;
    let root = top_root(&snapshot);
    assert_eq!(snapshot["documents"][0]["title"], "Surface fixture");

    surface_labels_and_descriptions(root, browser);
    surface_typed_states(root, browser);
    surface_hidden_and_off_screen(root, browser);

    // Password and file values never appear, in any format or in the text tree.
    let tree = session.ok("get_accessibility_tree", json!({})).await;
    let yaml = session
        .ok("accessibility_snapshot", json!({"format": "yaml"}))
        .await;
    for text in [snapshot.to_string(), tree.to_string(), yaml.to_string()] {
        assert!(
            !text.contains("correct horse"),
            "{browser}: a password value leaked"
        );
    }
    assert!(
        expect_node(root, "textbox", "Password", browser)["properties"]
            .get("value")
            .is_none()
    );

    surface_owned_list(root, browser);
}

pub async fn shadow_dom_and_slots(session: &Session) {
    let browser = session.browser.name();
    session.open(&fixtures().url("/pages/shadow.html")).await;
    let snapshot = snapshot(session, false).await;
    let root = top_root(&snapshot);
    shadow_roots_and_slots(root, browser);
}

pub async fn frames_same_and_cross_origin(session: &Session) {
    let browser = session.browser.name();
    let server = fixtures();
    session.open(&server.url("/pages/frames.html")).await;
    let snapshot = snapshot(session, false).await;
    let documents = snapshot["documents"].as_array().expect("documents");
    assert_eq!(
        documents.len(),
        4,
        "{browser}: top + same-origin + cross-origin + hidden-embedder frame"
    );
    let top = &documents[0];
    assert_eq!(top["parentContextId"], Value::Null, "{browser}");
    expect_node(&top["root"], "iframe", "Same-origin frame", browser);
    expect_node(&top["root"], "iframe", "Cross-origin frame", browser);
    assert!(
        find(&top["root"], "iframe", "Hidden frame").is_none(),
        "{browser}: the hidden embedder is excluded"
    );
    let mut seen = Vec::new();
    for document in &documents[1..] {
        assert_eq!(
            document["parentContextId"], top["contextId"],
            "{browser}: frames link to the top document"
        );
        let url = document["url"].as_str().unwrap_or("");
        let who = url.rsplit("who=").next().unwrap_or("").to_string();
        expect_node(
            &document["root"],
            "heading",
            &format!("Frame content ({who})"),
            browser,
        );
        expect_node(
            &document["root"],
            "button",
            "Button inside the frame",
            browser,
        );
        if who == "cross" {
            assert!(
                url.starts_with(&server.other_origin),
                "{browser}: the cross-origin frame is on the other origin: {url}"
            );
        }
        seen.push(who);
    }
    seen.sort();
    assert_eq!(seen, vec!["cross", "hidden", "same"], "{browser}");
    // Context ids are unique.
    let mut ids: Vec<&str> = documents
        .iter()
        .filter_map(|document| document["contextId"].as_str())
        .collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 4, "{browser}");
}

pub async fn text_tree_metadata_and_paging(session: &Session) {
    let browser = session.browser.name();
    session.open(&fixtures().url("/pages/surface.html")).await;
    let whole = session.ok("get_accessibility_tree", json!({})).await;
    for key in [
        "tree",
        "truncated",
        "hasMore",
        "autoDegraded",
        "page",
        "pageCount",
        "url",
        "title",
    ] {
        assert!(
            whole.get(key).is_some(),
            "{browser}: get_accessibility_tree lacks {key}: {whole}"
        );
    }
    let tree = whole["tree"].as_str().expect("tree");
    assert!(
        tree.contains("textbox \"Email address\" [ref_"),
        "{browser}: {tree}"
    );
    assert!(!tree.contains("Gone by"), "{browser}");
    assert_eq!(whole["title"], "Surface fixture");
    let interactive = session
        .ok("get_accessibility_tree", json!({"filter": "interactive"}))
        .await;
    let interactive_tree = interactive["tree"].as_str().expect("tree");
    assert!(
        !interactive_tree.contains("heading"),
        "{browser}: {interactive_tree}"
    );
    assert!(interactive_tree.contains("button \"Save\""), "{browser}");
    // Pages: every page fits, continuationArgs reads the next one, the pages add up to the tree.
    let mut pages = Vec::new();
    let mut arguments = json!({"maxChars": 400});
    loop {
        let page = session
            .ok("get_accessibility_tree", arguments.clone())
            .await;
        let text = page["tree"].as_str().expect("tree").to_string();
        assert!(text.chars().count() <= 400, "{browser}: page over maxChars");
        pages.push(text);
        match page.get("continuationArgs") {
            Some(next) if page["hasMore"] == true => arguments = next.clone(),
            _ => break,
        }
        assert!(pages.len() < 100, "{browser}: paging does not end");
    }
    assert!(
        pages.len() > 1,
        "{browser}: the surface page needs several 400-char pages"
    );
    assert_eq!(
        pages.join("\n"),
        tree,
        "{browser}: pages join to the whole tree"
    );
    let error = session
        .call(
            "get_accessibility_tree",
            json!({"maxChars": 400, "page": 999}),
        )
        .await
        .expect_err("page 999 does not exist");
    assert_eq!(
        error.code(),
        "page_out_of_range",
        "{browser}: {:?}",
        error.0
    );
    let bad = session
        .call("get_accessibility_tree", json!({"filter": "everything"}))
        .await
        .expect_err("bad filter");
    assert_eq!(bad.code(), "invalid_arguments", "{browser}");
    // Anchoring on a ref shows that element's subtree only. (The page's regions are too short
    // to print a ref of their own, docs/protocol/reading.md "Which lines print their reference": the
    // drop-down, which has children, is the anchor.)
    let select_ref = tree
        .lines()
        .find(|line| line.trim_start().starts_with("combobox \"Country\""))
        .and_then(|line| line.split("[").nth(1))
        .and_then(|rest| rest.split(']').next())
        .expect("the Country select has a ref")
        .to_string();
    let anchored = session
        .ok("get_accessibility_tree", json!({"ref_id": select_ref}))
        .await;
    let anchored_tree = anchored["tree"].as_str().expect("tree");
    assert!(
        anchored_tree.starts_with(&format!("combobox \"Country\" [{select_ref}]"))
            && anchored_tree.contains("\n option \"France\""),
        "{browser}: {anchored_tree}"
    );
    assert!(!anchored_tree.contains("Email address"), "{browser}");
}

pub async fn ai_mode_references(session: &Session) {
    let browser = session.browser.name();
    session.open(&fixtures().url("/pages/surface.html")).await;
    let first = snapshot(session, true).await;
    let root = top_root(&first);
    let save = expect_node(root, "button", "Save", browser);
    let reference = save["aria-ref"]
        .as_str()
        .expect("a referenced button has aria-ref")
        .to_string();
    let id = session
        .evaluate(&format!(
            "document.querySelector('[aria-ref=\"{reference}\"]')?.id ?? null"
        ))
        .await;
    assert_eq!(
        id, "save",
        "{browser}: [aria-ref] selects the element in its frame"
    );
    assert!(nodes(root)
        .iter()
        .filter(|node| node["role"] == "text")
        .all(|node| node.get("aria-ref").is_none()));
    // Stable while element, role and name are unchanged.
    let second = snapshot(session, true).await;
    assert_eq!(
        expect_node(top_root(&second), "button", "Save", browser)["aria-ref"],
        reference.as_str(),
        "{browser}"
    );
    // A renamed element gets a new reference, and the stale attribute is removed from elements
    // that no longer carry a node.
    session
        .evaluate("document.getElementById('save').textContent = 'Store'; true")
        .await;
    session
        .evaluate(
            "document.getElementById('nickname').closest('label').style.display = 'none'; true",
        )
        .await;
    let nickname_reference = expect_node(root, "textbox", "Nickname", browser)["aria-ref"]
        .as_str()
        .map(str::to_owned);
    let third = snapshot(session, true).await;
    let store = expect_node(top_root(&third), "button", "Store", browser);
    assert_ne!(
        store["aria-ref"],
        reference.as_str(),
        "{browser}: a new name means a new reference"
    );
    if let Some(nickname_reference) = nickname_reference {
        let left = session
            .evaluate(&format!(
                "document.querySelectorAll('[aria-ref=\"{nickname_reference}\"]').length"
            ))
            .await;
        assert_eq!(
            left, 0,
            "{browser}: the stale aria-ref of a hidden element is removed"
        );
    }
}

pub async fn navigation_timeouts(session: &Session) {
    let browser = session.browser.name();
    let url = fixtures().url("/pages/slow.html");
    let error = session
        .call("navigate", json!({"url": url, "timeoutMs": 1000}))
        .await
        .expect_err("a 4 s load does not fit in 1 s");
    assert_eq!(error.code(), "timeout", "{browser}: {:?}", error.0);
    let opened = session
        .ok("navigate", json!({"url": url, "timeoutMs": 15000}))
        .await;
    assert_eq!(opened["title"], "Slow page", "{browser}");
    let bad = session
        .call("navigate", json!({"url": url, "timeoutMs": 10}))
        .await
        .expect_err("too small");
    assert_eq!(bad.code(), "invalid_arguments", "{browser}");
    let scheme = session
        .call("navigate", json!({"url": "javascript:alert(1)"}))
        .await
        .expect_err("not navigable");
    assert_eq!(scheme.code(), "invalid_arguments", "{browser}");
}
