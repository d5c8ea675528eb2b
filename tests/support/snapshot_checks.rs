//! What the version-1 snapshot of the surface fixtures must say, whichever surface wrote it: the
//! extension (tests/extension/surface.rs) or WebDriver BiDi
//! (crates/allwright-surface-web/tests/accessibility.rs). Each check takes a document's root node
//! (parsed JSON) and the browser's name for the messages. Only serde_json, so that both test
//! binaries can include this file with `#[path]`.

use serde_json::Value;

/// Every node of a snapshot document tree, depth first.
pub fn nodes(root: &Value) -> Vec<&Value> {
    let mut out = Vec::new();
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        out.push(node);
        if let Some(children) = node["children"].as_array() {
            stack.extend(children.iter().rev());
        }
    }
    out
}

/// The first node with this role and name in a document tree.
pub fn find<'a>(root: &'a Value, role: &str, name: &str) -> Option<&'a Value> {
    nodes(root)
        .into_iter()
        .find(|node| node["role"] == role && node["name"] == name)
}

/// The node with this role and name; fails listing the nodes there are.
#[track_caller]
pub fn expect_node<'a>(root: &'a Value, role: &str, name: &str, browser: &str) -> &'a Value {
    find(root, role, name).unwrap_or_else(|| {
        let seen: Vec<String> = nodes(root)
            .iter()
            .map(|node| {
                format!(
                    "{} {:?}",
                    node["role"].as_str().unwrap_or(""),
                    node["name"].as_str().unwrap_or("")
                )
            })
            .collect();
        panic!("{browser}: no {role} {name:?} in the snapshot; nodes: {seen:?}")
    })
}

/// The top document's root node.
pub fn top_root(snapshot: &Value) -> &Value {
    &snapshot["documents"][0]["root"]
}

/// fixtures/pages/surface.html: names from labels, descriptions (a hidden `aria-describedby`
/// target included), placeholders and values.
pub fn surface_labels_and_descriptions(root: &Value, browser: &str) {
    let email = expect_node(root, "textbox", "Email address", browser);
    assert_eq!(
        email["properties"]["description"], "We never share it.",
        "{browser}"
    );
    assert_eq!(
        email["properties"]["value"], "ada@example.test",
        "{browser}"
    );
    let nickname = expect_node(root, "textbox", "Nickname", browser);
    assert_eq!(
        nickname["properties"]["placeholder"], "Your nickname",
        "{browser}"
    );
    let save = expect_node(root, "button", "Save", browser);
    assert_eq!(
        save["properties"]["description"], "Saves all sections",
        "{browser}: hidden describedby text counts"
    );
    let search = expect_node(root, "searchbox", "Search settings", browser);
    assert_eq!(
        search["properties"]["description"], "Filters the list below",
        "{browser}"
    );
}

/// fixtures/pages/surface.html: typed states; mixed is a string, explicit false stays, undefined
/// is absent.
pub fn surface_typed_states(root: &Value, browser: &str) {
    let state = |role: &str, name: &str, key: &str| {
        expect_node(root, role, name, browser)["states"][key].clone()
    };
    for (role, name, key, expected) in [
        ("checkbox", "Select all", "checked", Value::from("mixed")),
        ("checkbox", "Newsletter", "checked", Value::from(false)),
        ("checkbox", "Terms", "checked", Value::from(true)),
        ("button", "Bold", "pressed", Value::from(true)),
        ("button", "Italic", "pressed", Value::from(false)),
        ("button", "More options", "expanded", Value::from(false)),
        ("heading", "Level three heading", "level", Value::from(3)),
        ("slider", "Volume", "valueNow", Value::from(7)),
        ("slider", "Volume", "valueMin", Value::from(0)),
        ("slider", "Volume", "valueMax", Value::from(10)),
        ("textbox", "Email address", "required", Value::from(true)),
        ("textbox", "Account id", "readonly", Value::from(true)),
        ("button", "Delete account", "disabled", Value::from(true)),
    ] {
        assert_eq!(
            state(role, name, key),
            expected,
            "{browser}: {key} of {role} {name:?}"
        );
    }
    assert_eq!(
        expect_node(root, "combobox", "Country", browser)["properties"]["value"],
        "Japan",
        "{browser}"
    );
    assert!(
        expect_node(root, "button", "Save", browser)["states"]
            .as_object()
            .is_some_and(|states| states.is_empty()),
        "{browser}: undefined states are omitted"
    );
}

/// fixtures/pages/surface.html: hidden subtrees are excluded, a hidden label still names, and
/// off-screen content is kept.
pub fn surface_hidden_and_off_screen(root: &Value, browser: &str) {
    let names: Vec<&str> = nodes(root)
        .iter()
        .filter_map(|node| node["name"].as_str())
        .collect();
    for gone in [
        "Gone by display",
        "Gone by visibility",
        "Gone by aria-hidden",
        "Gone by hidden attribute",
        "Gone by inert",
        "Gone inside closed details",
    ] {
        assert!(
            !names.contains(&gone),
            "{browser}: {gone:?} should be excluded"
        );
    }
    expect_node(root, "button", "Hidden label text", browser);
    expect_node(root, "button", "Off-screen but present", browser);
    expect_node(root, "button", "Far below the fold", browser);
}

/// fixtures/pages/surface.html: the owned item moves under its owner once; the Loop B -> Loop A
/// cycle of aria-owns is cut. A list item has no name (ARIA 1.2, Chromium): its text is its
/// first child's.
pub fn surface_owned_list(root: &Value, browser: &str) {
    let list = expect_node(root, "list", "Owned list", browser);
    let children: Vec<(&str, &str, &str)> = list["children"]
        .as_array()
        .expect("children")
        .iter()
        .map(|child| {
            (
                child["role"].as_str().unwrap_or(""),
                child["name"].as_str().unwrap_or(""),
                child["children"][0]["name"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(
        children,
        vec![
            ("listitem", "", "First"),
            ("listitem", "", "Owned second"),
            ("group", "Loop A", "Loop B")
        ],
        "{browser}"
    );
    let loop_a = expect_node(list, "group", "Loop A", browser);
    assert_eq!(loop_a["children"][0]["name"], "Loop B", "{browser}");
    for once in ["Owned second", "Loop A", "Loop B"] {
        let count = nodes(root)
            .iter()
            .filter(|node| node["name"] == once)
            .count();
        assert_eq!(count, 1, "{browser}: {once} appears {count} times");
    }
}

/// fixtures/pages/shadow.html: open shadow roots (declarative too), assigned slots, a slot's
/// fallback only when nothing is assigned, and nothing of a closed root.
pub fn shadow_roots_and_slots(root: &Value, browser: &str) {
    expect_node(root, "heading", "Card title from the light DOM", browser);
    expect_node(root, "region", "Card title from the light DOM", browser);
    expect_node(root, "button", "Slotted default button", browser);
    expect_node(root, "button", "Close card", browser);
    expect_node(root, "navigation", "Declarative nav", browser);
    expect_node(root, "link", "Inside declarative root", browser);
    let texts: Vec<&str> = nodes(root)
        .iter()
        .filter(|node| node["role"] == "text")
        .filter_map(|node| node["name"].as_str())
        .collect();
    assert!(
        texts.contains(&"Fallback content shown"),
        "{browser}: fallback of an empty slot is shown: {texts:?}"
    );
    assert!(
        !texts.contains(&"Fallback body"),
        "{browser}: fallback of a filled slot is not shown"
    );
    assert!(
        find(root, "button", "Inside a closed root").is_none(),
        "{browser}: closed roots are not readable"
    );
}
