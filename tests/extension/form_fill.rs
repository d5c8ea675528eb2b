//! fill_form (docs/protocol/tools.md, "Action results"; docs/agent-tools.md, "Filling a form"): every
//! kind of field in one call, as an agent fills them, on fixtures/pages/actions/form-every-kind.html,
//! which records what the page received. The checks: each field gets the value, a check box is
//! clicked only when its state differs (a second call clicks nothing), the first failure stops the
//! call and the result says which fields were filled, which failed and which were not attempted,
//! and a password's value never appears in what the MCP server answers.

use serde_json::{json, Value};

use crate::actions::{open, state};
use crate::support::{strings, Session};

/// The password the fixture's password field gets; no reply may hold it.
const PASSWORD: &str = "Tr0ub4dor&3-horse";

/// The ref printed on the first line that names `name` (`role "name" [ref_N]`), whatever the
/// role: a date input's role differs between the browsers' trees, a name does not.
fn ref_named(browser: &str, tree: &str, name: &str) -> String {
    let marker = format!("\"{name}\" [ref_");
    tree.lines()
        .find_map(|line| {
            let start = line.find(&marker)? + marker.len();
            line[start..].split(']').next()
        })
        .map(|number| format!("ref_{number}"))
        .unwrap_or_else(|| panic!("{browser}: no line names {name:?} with a ref:\n{tree}"))
}

/// The refs of the fixture's fields, by the names the tree prints.
async fn refs(session: &Session) -> impl Fn(&str) -> String {
    let browser = session.browser.name();
    let tree = session.ok("get_accessibility_tree", json!({})).await["tree"]
        .as_str()
        .expect("a tree")
        .to_owned();
    move |name: &str| ref_named(browser, &tree, name)
}

/// The text of a reply's one text block.
fn reply_text(result: &rmcp::model::CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|block| block.as_text().map(|text| text.text.clone()))
        .collect::<Vec<_>>()
        .join("\n")
}

pub async fn fill_form_fills_every_kind_of_field_once(session: &Session) {
    let browser = session.browser.name();
    open(session, "form-every-kind").await;
    let named = refs(session).await;
    let fields = json!([
        {"ref_id": named("Full name"), "value": "Ada Lovelace"},
        {"ref_id": named("Address"), "value": "12 St James's Square\nLondon"},
        {"ref_id": named("Notes"), "value": "Prefers mornings"},
        {"ref_id": named("Subscribe to the newsletter"), "value": "true"},
        {"ref_id": named("Remember me"), "value": "TRUE"},
        {"ref_id": named("Dark mode"), "value": "true"},
        {"ref_id": named("Plan"), "value": "Team"},
        {"ref_id": named("Phone"), "value": "true"},
        {"ref_id": named("Country"), "value": "Japan"},
        {"ref_id": named("Size"), "value": "Large"},
        {"ref_id": named("Start date"), "value": "2024-12-31"},
        {"ref_id": named("Guests"), "value": "4"},
        {"ref_id": named("Password"), "value": PASSWORD},
    ]);
    let refs_given: Vec<String> = fields
        .as_array()
        .expect("fields")
        .iter()
        .map(|field| field["ref_id"].as_str().expect("ref").to_owned())
        .collect();

    // The short reply, as an agent reads it: the count, and no password.
    let quiet = session
        .call_quiet("fill_form", json!({ "fields": fields }))
        .await;
    assert_ne!(quiet.is_error, Some(true), "{browser}: {quiet:?}");
    let text = reply_text(&quiet);
    assert!(
        !text.contains(PASSWORD),
        "{browser}: the password came back: {text}"
    );
    let header: Value = serde_json::from_str(text.lines().next().expect("a header line"))
        .unwrap_or_else(|error| panic!("{browser}: the header is JSON ({error}): {text}"));
    assert_eq!(header["filled"], 13, "{browser}: {text}");
    for absent in ["failed", "notAttempted", "success"] {
        assert!(header.get(absent).is_none(), "{browser}: {absent}: {text}");
    }

    let page = state(session).await;
    let values = &page["values"];
    assert_eq!(values["name"], "Ada Lovelace", "{browser}: {page}");
    assert_eq!(
        values["address"], "12 St James's Square\nLondon",
        "{browser}: {page}"
    );
    assert_eq!(values["notes"], "Prefers mornings", "{browser}: {page}");
    assert_eq!(values["subscribe"], true, "{browser}: {page}");
    assert_eq!(values["dark"], true, "{browser}: {page}");
    assert_eq!(values["plan"], "team", "{browser}: {page}");
    assert_eq!(values["contact"], "phone", "{browser}: {page}");
    assert_eq!(values["country"], "jp", "{browser}: {page}");
    assert_eq!(values["size"], "Large", "{browser}: {page}");
    assert_eq!(values["start"], "2024-12-31", "{browser}: {page}");
    assert_eq!(values["guests"], "4", "{browser}: {page}");
    assert_eq!(
        values["password"], PASSWORD,
        "{browser}: the page got the password: {page}"
    );
    // One click per toggle that had to change, none for the box that was already checked.
    assert_eq!(
        page["clicks"],
        json!({"subscribe": 1, "remember": 0, "dark": 1, "plan": 1, "contact": 1}),
        "{browser}: {page}"
    );
    assert!(
        page.get("submitted").is_none(),
        "{browser}: nothing is submitted: {page}"
    );

    // The same call again, verbose: every field already holds its value, nothing is clicked,
    // and the whole result holds no password either.
    let again = session
        .call_result("fill_form", json!({ "fields": fields, "verbose": true }))
        .await;
    let text = reply_text(&again);
    assert!(
        !text.contains(PASSWORD),
        "{browser}: the password came back: {text}"
    );
    let whole: Value = serde_json::from_str(&text).expect("the verbose reply is JSON");
    assert_eq!(whole["success"], true, "{browser}: {whole}");
    assert_eq!(strings(&whole["filled"]), refs_given, "{browser}: {whole}");
    assert_eq!(whole["notAttempted"], json!([]), "{browser}: {whole}");
    let reports = whole["fields"].as_array().expect("one report per field");
    assert_eq!(reports.len(), 13, "{browser}: {whole}");
    let report = |name: &str| {
        let reference = named(name);
        reports
            .iter()
            .find(|report| report["ref_id"] == reference.as_str())
            .unwrap_or_else(|| panic!("{browser}: no report for {name}: {whole}"))
            .clone()
    };
    for toggle in [
        "Subscribe to the newsletter",
        "Remember me",
        "Dark mode",
        "Phone",
    ] {
        assert_eq!(
            report(toggle)["action"],
            "none",
            "{browser}: {toggle}: {whole}"
        );
    }
    assert_eq!(report("Plan")["action"], "none", "{browser}: {whole}");
    assert_eq!(report("Country")["action"], "none", "{browser}: {whole}");
    assert_eq!(report("Size")["action"], "none", "{browser}: {whole}");
    assert_eq!(report("Password")["sensitive"], true, "{browser}: {whole}");
    assert_eq!(report("Password")["value"], "••••", "{browser}: {whole}");
    assert_eq!(
        report("Full name")["sensitive"],
        false,
        "{browser}: {whole}"
    );
    let page = state(session).await;
    assert_eq!(
        page["clicks"],
        json!({"subscribe": 1, "remember": 0, "dark": 1, "plan": 1, "contact": 1}),
        "{browser}: the second call clicked nothing: {page}"
    );

    // "false" unchecks, once; a select also takes an option's value.
    let unchecked = session
        .ok(
            "fill_form",
            json!({"fields": [{"ref_id": named("Subscribe to the newsletter"), "value": "false"},
                              {"ref_id": named("Dark mode"), "value": "False"},
                              {"ref_id": named("Country"), "value": "pe"}]}),
        )
        .await;
    assert_eq!(unchecked["success"], true, "{browser}: {unchecked}");
    let page = state(session).await;
    assert_eq!(page["values"]["subscribe"], false, "{browser}: {page}");
    assert_eq!(page["values"]["dark"], false, "{browser}: {page}");
    assert_eq!(page["values"]["country"], "pe", "{browser}: {page}");
    assert_eq!(page["clicks"]["subscribe"], 2, "{browser}: {page}");
    assert_eq!(page["clicks"]["dark"], 2, "{browser}: {page}");

    // A chosen radio cannot be unchosen by a click: refused, nothing clicked.
    let unchoose = session
        .ok(
            "fill_form",
            json!({"fields": [{"ref_id": named("Phone"), "value": "false"}]}),
        )
        .await;
    assert_eq!(
        unchoose["failed"]["code"], "invalid_arguments",
        "{browser}: {unchoose}"
    );
    assert_eq!(state(session).await["clicks"]["contact"], 1, "{browser}");
}

pub async fn fill_form_stops_at_the_first_failure_and_says_what_was_filled(session: &Session) {
    let browser = session.browser.name();
    open(session, "form-every-kind").await;
    let named = refs(session).await;
    let (name, coupon, guests, start, subscribe, password) = (
        named("Full name"),
        named("Coupon"),
        named("Guests"),
        named("Start date"),
        named("Subscribe to the newsletter"),
        named("Password"),
    );

    // A disabled field in the middle: the field before it is filled, the ones after it are not.
    let quiet = session
        .call_quiet(
            "fill_form",
            json!({"fields": [
                {"ref_id": name, "value": "Grace Hopper"},
                {"ref_id": password, "value": PASSWORD},
                {"ref_id": coupon, "value": "SPRING"},
                {"ref_id": guests, "value": "5"},
                {"ref_id": subscribe, "value": "true"},
            ]}),
        )
        .await;
    let text = reply_text(&quiet);
    assert!(
        !text.contains(PASSWORD),
        "{browser}: the password came back: {text}"
    );
    let header: Value =
        serde_json::from_str(text.lines().next().expect("a header")).expect("a JSON header");
    assert_eq!(header["success"], false, "{browser}: {text}");
    assert_eq!(
        header["filled"],
        json!([name, password]),
        "{browser}: {text}"
    );
    assert_eq!(
        header["failed"]["ref_id"],
        coupon.as_str(),
        "{browser}: {text}"
    );
    assert_eq!(
        header["failed"]["code"], "not_actionable",
        "{browser}: {text}"
    );
    assert!(header["failed"]["hint"].is_string(), "{browser}: {text}");
    assert_eq!(
        header["notAttempted"],
        json!([guests, subscribe]),
        "{browser}: {text}"
    );
    assert!(
        header["hint"].as_str().unwrap_or("").contains(&coupon),
        "{browser}: the hint names the field to fix: {text}"
    );
    let page = state(session).await;
    assert_eq!(page["values"]["name"], "Grace Hopper", "{browser}: {page}");
    assert!(page["values"].get("coupon").is_none(), "{browser}: {page}");
    assert!(
        page["values"].get("guests").is_none(),
        "{browser}: not attempted: {page}"
    );
    assert_eq!(
        page["clicks"]["subscribe"], 0,
        "{browser}: not attempted: {page}"
    );

    // A date in another format is refused before anything is typed.
    let wrong_date = session
        .ok(
            "fill_form",
            json!({"fields": [{"ref_id": start, "value": "12/31/2024"}, {"ref_id": guests, "value": "5"}]}),
        )
        .await;
    assert_eq!(
        wrong_date["failed"]["code"], "value_not_accepted",
        "{browser}: {wrong_date}"
    );
    assert!(
        wrong_date["failed"]["hint"]
            .as_str()
            .unwrap_or("")
            .contains("2024-12-31"),
        "{browser}: the hint gives the format: {wrong_date}"
    );
    assert_eq!(wrong_date["filled"], json!([]), "{browser}: {wrong_date}");
    assert_eq!(
        wrong_date["notAttempted"],
        json!([guests]),
        "{browser}: {wrong_date}"
    );
    let page = state(session).await;
    assert!(
        page["inputs"].get("start").is_none(),
        "{browser}: nothing typed: {page}"
    );

    // A check box takes "true" or "false" only; a value that is not a string is refused by the
    // contract, and so is a ref given twice.
    let maybe = session
        .ok(
            "fill_form",
            json!({"fields": [{"ref_id": subscribe, "value": "maybe"}]}),
        )
        .await;
    assert_eq!(
        maybe["failed"]["code"], "invalid_arguments",
        "{browser}: {maybe}"
    );
    assert_eq!(state(session).await["clicks"]["subscribe"], 0, "{browser}");
    for fields in [
        json!([{"ref_id": subscribe, "value": true}]),
        json!([{"ref_id": name, "value": "a"}, {"ref_id": name, "value": "b"}]),
        json!([]),
    ] {
        let refused = session
            .call("fill_form", json!({ "fields": fields }))
            .await
            .expect_err("refused by the contract");
        assert_eq!(
            refused.code(),
            "invalid_arguments",
            "{browser}: {:?}",
            refused.0
        );
    }

    // A field whose name changed since the tree was read is refused with ref_changed, nothing
    // done to it; the refusal counts as a read, so the same call then fills it.
    let address = named("Address");
    session
        .evaluate(
            "document.getElementById('address').labels[0].firstChild.textContent = 'Shipping address '",
        )
        .await;
    let fields = json!({"fields": [{"ref_id": name, "value": "Grace B. Hopper"}, {"ref_id": address, "value": "Arlington"}]});
    let changed = session.ok("fill_form", fields.clone()).await;
    assert_eq!(
        changed["failed"]["code"], "ref_changed",
        "{browser}: {changed}"
    );
    assert_eq!(
        changed["failed"]["changed"]["now"]["name"], "Shipping address",
        "{browser}: {changed}"
    );
    assert_eq!(changed["filled"], json!([name]), "{browser}: {changed}");
    assert!(
        state(session).await["values"].get("address").is_none(),
        "{browser}"
    );
    let again = session.ok("fill_form", fields).await;
    assert_eq!(again["success"], true, "{browser}: {again}");
    assert_eq!(
        state(session).await["values"]["address"],
        "Arlington",
        "{browser}"
    );

    // A ref that is no form field fails with the tool to use instead.
    let send = named("Send");
    let button = session
        .ok(
            "fill_form",
            json!({"fields": [{"ref_id": send, "value": "x"}]}),
        )
        .await;
    assert_eq!(
        button["failed"]["code"], "not_typable",
        "{browser}: {button}"
    );
    assert!(
        button["failed"]["hint"]
            .as_str()
            .unwrap_or("")
            .contains("click_ax"),
        "{browser}: {button}"
    );
    assert!(state(session).await.get("submitted").is_none(), "{browser}");
}
