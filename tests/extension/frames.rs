//! The frame tools (docs/protocol/frames.md, "Frames"), as an agent uses them through the MCP server:
//! get_frames' inventory, iframe_read, iframe_click and iframe_type in a cross-origin frame, the
//! `frameId=N` of an iframe's line, refs refused in the wrong frame (ref_in_other_frame), and
//! promote_iframe with and without unsaved work, with two matching frames and with a chosen file.
//!
//! The fixture (fixtures/pages/frames/) is a travel article embedding a same-origin newsletter
//! widget (which embeds a cross-origin consent widget), a cross-origin booking form and a hidden
//! tracker frame. The booking form reports its own state to the article with postMessage, so the
//! checks read what the frame's page holds without going through allwright.

use std::time::Duration;

use serde_json::{json, Value};

use crate::actions::find_ref;
use crate::support::{fixtures, Session, ToolError};

const EMBED: &str = "/pages/frames/embed.html";
const TWO_FORMS: &str = "/pages/frames/two-forms.html";
const TWINS: &str = "/pages/frames/twins.html";

/// The frames of get_frames, with the call's result.
async fn frames(session: &Session) -> Vec<Value> {
    let listed = session.ok("get_frames", json!({})).await;
    listed["frames"]
        .as_array()
        .unwrap_or_else(|| panic!("{}: frames in {listed}", session.browser.name()))
        .clone()
}

/// The one frame of get_frames whose URL contains `piece`.
pub(crate) async fn frame_with(session: &Session, piece: &str) -> Value {
    frame_where(session, piece, |url| url.contains(piece)).await
}

/// The one frame of get_frames whose URL passes `test` (`what` names it in failures), waiting up
/// to five seconds for it: frames may still be loading after the page's own load.
async fn frame_where(session: &Session, what: &str, test: impl Fn(&str) -> bool) -> Value {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    let (all, matching) = loop {
        let all = frames(session).await;
        let matching: Vec<Value> = all
            .iter()
            .filter(|frame| frame["url"].as_str().is_some_and(&test))
            .cloned()
            .collect();
        if !matching.is_empty() || tokio::time::Instant::now() > deadline {
            break (all, matching);
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(
        matching.len(),
        1,
        "{}: one frame with {what} in {all:?}",
        session.browser.name()
    );
    matching[0].clone()
}

async fn frame_id_with(session: &Session, piece: &str) -> i64 {
    frame_with(session, piece).await["frameId"]
        .as_i64()
        .expect("frameId")
}

async fn read_frame(session: &Session, frame_id: i64) -> String {
    let read = session
        .ok("iframe_read", json!({"frameId": frame_id}))
        .await;
    assert_eq!(
        read["frameId"],
        frame_id,
        "{}: iframe_read names its frame: {read}",
        session.browser.name()
    );
    read["tree"].as_str().expect("tree").to_string()
}

async fn top_tree(session: &Session) -> String {
    session.ok("get_accessibility_tree", json!({})).await["tree"]
        .as_str()
        .expect("tree")
        .to_string()
}

/// The call's error, which must have `code`.
async fn refused(session: &Session, tool: &str, arguments: Value, code: &str) -> Value {
    match session.call(tool, arguments.clone()).await {
        Ok(result) => panic!(
            "{}: {tool}({arguments}) succeeded, expected {code}: {result}",
            session.browser.name()
        ),
        Err(ToolError(error)) => {
            assert_eq!(
                error["code"],
                code,
                "{}: {tool}({arguments}): {error}",
                session.browser.name()
            );
            error
        }
    }
}

/// The booking form's last report to the article (its own state, posted by the frame's page).
async fn last_booking_report(session: &Session) -> Value {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    loop {
        let reports = session.evaluate_json("window.frameReports").await;
        if let Some(last) = reports.as_array().and_then(|reports| reports.last()) {
            return last.clone();
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "{}: the booking form reported nothing",
            session.browser.name()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

async fn top_url(session: &Session) -> String {
    session
        .evaluate("location.href")
        .await
        .as_str()
        .unwrap_or("")
        .to_string()
}

/// get_frames lists the article, its three frames and the nested one, with origins, sizes,
/// visibility and content scripts; the top tree prints each known iframe's frameId; iframe_read
/// reads a cross-origin frame.
pub async fn inventory_and_reads_across_origins(session: &Session) {
    let browser = session.browser.name();
    let server = fixtures();
    session.open(&server.url(EMBED)).await;
    let all = frames(session).await;
    assert_eq!(all.len(), 5, "{browser}: {all:?}");
    let top = &all[0];
    assert_eq!(top["frameId"], 0, "{browser}: {top}");
    assert_eq!(top["parentFrameId"], -1, "{browser}: {top}");
    assert_eq!(top["origin"], server.origin.as_str(), "{browser}: {top}");
    assert!(
        top.get("width").is_none(),
        "{browser}: the top has no element: {top}"
    );

    let newsletter = frame_with(session, "/frames/same.html").await;
    let booking = frame_with(session, "/frames/form.html").await;
    let consent = frame_where(session, "the consent widget", |url| {
        url.ends_with("/frames/nested.html")
    })
    .await;
    let tracker = frame_with(session, "nested.html?tracker").await;
    assert_eq!(newsletter["parentFrameId"], 0, "{browser}: {newsletter}");
    assert_eq!(newsletter["origin"], server.origin.as_str(), "{browser}");
    assert_eq!(booking["parentFrameId"], 0, "{browser}: {booking}");
    assert_eq!(booking["origin"], server.other_origin.as_str(), "{browser}");
    assert_eq!(
        consent["parentFrameId"], newsletter["frameId"],
        "{browser}: the consent widget is nested in the newsletter frame: {consent}"
    );
    assert_eq!(consent["origin"], server.other_origin.as_str(), "{browser}");
    // The <iframe> elements as their parents lay them out (480x320 plus a 1px border).
    assert_eq!(booking["width"], 482, "{browser}: {booking}");
    assert_eq!(booking["height"], 322, "{browser}: {booking}");
    assert_eq!(booking["visible"], true, "{browser}: {booking}");
    assert_eq!(consent["width"], 302, "{browser}: {consent}");
    assert_eq!(
        tracker["visible"], false,
        "{browser}: display: none: {tracker}"
    );
    for frame in &all {
        assert_eq!(frame["contentScript"], true, "{browser}: {frame}");
    }

    // The top tree does not enter the frames; each iframe line names its frame.
    let tree = top_tree(session).await;
    assert!(
        !tree.contains("City"),
        "{browser}: no frame content:\n{tree}"
    );
    for (title, frame) in [
        ("Newsletter signup", &newsletter),
        ("Booking form", &booking),
    ] {
        let line = tree
            .lines()
            .find(|line| {
                line.trim_start()
                    .starts_with(&format!("iframe \"{title}\""))
            })
            .unwrap_or_else(|| panic!("{browser}: no {title} line in\n{tree}"));
        assert!(
            line.ends_with(&format!("frameId={}", frame["frameId"])),
            "{browser}: {line} for {frame}"
        );
    }
    // The nested frame's line is in its parent's tree.
    let newsletter_tree =
        read_frame(session, newsletter["frameId"].as_i64().expect("frameId")).await;
    assert!(
        newsletter_tree.contains("iframe \"Consent\""),
        "{browser}:\n{newsletter_tree}"
    );
    assert!(
        newsletter_tree.contains(&format!("frameId={}", consent["frameId"])),
        "{browser}:\n{newsletter_tree}"
    );

    let booking_tree = read_frame(session, booking["frameId"].as_i64().expect("frameId")).await;
    assert!(
        find_ref(&booking_tree, "textbox", "City").is_some(),
        "{browser}:\n{booking_tree}"
    );
    // A frame id that names no frame.
    let missing = refused(
        session,
        "iframe_read",
        json!({"frameId": 99_999}),
        "frame_not_found",
    )
    .await;
    assert!(missing["suggestions"].is_array(), "{browser}: {missing}");
}

/// iframe_type and iframe_click act in the cross-origin booking form, answer as type_ax and
/// click_ax do, and the frame's page itself holds the result.
pub async fn click_and_type_in_a_cross_origin_frame(session: &Session) {
    let browser = session.browser.name();
    session.open(&fixtures().url(EMBED)).await;
    let booking = frame_id_with(session, "/frames/form.html").await;
    let tree = read_frame(session, booking).await;
    let city = find_ref(&tree, "textbox", "City").expect("City");
    let book = find_ref(&tree, "button", "Book").expect("Book");

    let typed = session
        .ok(
            "iframe_type",
            json!({"frameId": booking, "ref_id": city, "text": "Lyon"}),
        )
        .await;
    assert_eq!(typed["value"], "Lyon", "{browser}: {typed}");
    assert_eq!(typed["kind"], "input", "{browser}: {typed}");
    assert_eq!(typed["progress"], "observed", "{browser}: {typed}");
    assert_eq!(
        last_booking_report(session).await["city"],
        "Lyon",
        "{browser}"
    );

    let clicked = session
        .ok("iframe_click", json!({"frameId": booking, "ref_id": book}))
        .await;
    // click_ax's answer: the status line the click changes is elsewhere in the page, which
    // click_ax reports as a hint, not as progress; the frame's own report below is the proof.
    assert_eq!(clicked["success"], true, "{browser}: {clicked}");
    assert!(
        matches!(clicked["progress"].as_str(), Some("observed" | "none")),
        "{browser}: {clicked}"
    );
    assert_eq!(clicked["method"], "synthetic", "{browser}: {clicked}");
    assert_eq!(clicked["name"], "Book", "{browser}: {clicked}");
    assert!(clicked["retryAllowed"].is_boolean(), "{browser}: {clicked}");
    assert_eq!(
        last_booking_report(session).await["status"],
        "Booked: Lyon",
        "{browser}: the frame's own page took the click"
    );
    // iframe_type refuses what type_ax refuses.
    let not_typable = refused(
        session,
        "iframe_type",
        json!({"frameId": booking, "ref_id": book, "text": "x"}),
        "not_typable",
    )
    .await;
    assert!(not_typable["hint"].is_string(), "{browser}: {not_typable}");
}

/// Ref numbers are unique across the tab's frames, and a ref used in another frame than the one
/// that printed it is refused by name; a ref of a document that is gone answers ref_not_found.
pub async fn refs_are_refused_in_other_frames(session: &Session) {
    let browser = session.browser.name();
    session.open(&fixtures().url(EMBED)).await;
    let newsletter = frame_id_with(session, "/frames/same.html").await;
    let booking = frame_id_with(session, "/frames/form.html").await;
    let booking_url = frame_with(session, "/frames/form.html").await["url"].clone();
    let top = top_tree(session).await;
    let share = find_ref(&top, "button", "Share this trip").expect("Share");
    let newsletter_tree = read_frame(session, newsletter).await;
    let email = find_ref(&newsletter_tree, "textbox", "Newsletter email").expect("email");
    let booking_tree = read_frame(session, booking).await;
    let city = find_ref(&booking_tree, "textbox", "City").expect("City");

    // No number is printed by two frames.
    let numbers = |tree: &str| -> Vec<u64> {
        tree.split("[ref_")
            .skip(1)
            .filter_map(|rest| rest.split(']').next()?.parse().ok())
            .collect()
    };
    let mut all: Vec<u64> = [&top, &newsletter_tree, &booking_tree]
        .iter()
        .flat_map(|tree| numbers(tree))
        .collect();
    let count = all.len();
    all.sort_unstable();
    all.dedup();
    assert_eq!(all.len(), count, "{browser}: a number printed twice");

    // A ref of the booking frame used in the newsletter frame.
    let wrong = refused(
        session,
        "iframe_type",
        json!({"frameId": newsletter, "ref_id": city, "text": "x"}),
        "ref_in_other_frame",
    )
    .await;
    let message = wrong["message"].as_str().unwrap_or("");
    assert!(
        message.contains(&format!("frame {booking}"))
            && message.contains(booking_url.as_str().expect("url")),
        "{browser}: names the frame and its URL: {wrong}"
    );
    assert!(
        wrong["hint"]
            .as_str()
            .is_some_and(|hint| hint.contains(&format!("iframe_type with frameId {booking}"))),
        "{browser}: names the call to make: {wrong}"
    );
    // A top-document ref given to iframe_click.
    let top_ref = refused(
        session,
        "iframe_click",
        json!({"frameId": booking, "ref_id": share}),
        "ref_in_other_frame",
    )
    .await;
    assert!(
        top_ref["hint"]
            .as_str()
            .is_some_and(|hint| hint.contains("click_ax without frameId")),
        "{browser}: {top_ref}"
    );
    // A tree read anchored on another frame's ref.
    let anchored = refused(
        session,
        "iframe_read",
        json!({"frameId": newsletter, "ref_id": city}),
        "ref_in_other_frame",
    )
    .await;
    assert!(
        anchored["hint"]
            .as_str()
            .is_some_and(|hint| hint.contains(&format!("iframe_read with frameId {booking}"))),
        "{browser}: {anchored}"
    );
    // A frame's ref given to the top document's click_ax.
    let frame_ref = refused(
        session,
        "click_ax",
        json!({"ref_id": email}),
        "ref_in_other_frame",
    )
    .await;
    assert!(
        frame_ref["hint"]
            .as_str()
            .is_some_and(|hint| hint.contains(&format!("iframe_click with frameId {newsletter}"))),
        "{browser}: {frame_ref}"
    );
    // A frame's ref given to the top document's screenshot.
    let shot = refused(
        session,
        "screenshot",
        json!({"ref_id": city}),
        "ref_in_other_frame",
    )
    .await;
    assert!(
        shot["hint"]
            .as_str()
            .is_some_and(|hint| hint.contains(&format!("screenshot with frameId {booking}"))),
        "{browser}: {shot}"
    );
    // Nothing was typed anywhere.
    assert_eq!(
        session
            .evaluate("document.getElementById('newsletter').contentDocument.getElementById('email').value")
            .await,
        "",
        "{browser}"
    );

    // The right frame still takes it.
    session
        .ok(
            "iframe_type",
            json!({"frameId": newsletter, "ref_id": email, "text": "ada@example.com"}),
        )
        .await;

    // After a reload, the old documents are gone: their refs answer ref_not_found.
    session.open(&fixtures().url(EMBED)).await;
    let booking_again = frame_id_with(session, "/frames/form.html").await;
    refused(
        session,
        "iframe_click",
        json!({"frameId": booking_again, "ref_id": city}),
        "ref_not_found",
    )
    .await;
}

/// promote_iframe opens the booking form as the page, and go_back returns to the article; with an
/// edited field it refuses (nothing navigates) until force; an agent's text in a contenteditable
/// counts until the page takes it.
pub async fn promote_with_and_without_edits(session: &Session) {
    let browser = session.browser.name();
    let embed_url = fixtures().url(EMBED);
    session.open(&embed_url).await;
    let booking = frame_with(session, "/frames/form.html").await;

    let promoted = session
        .ok("promote_iframe", json!({"urlFilter": "frames/form.html"}))
        .await;
    assert_eq!(promoted["url"], booking["url"], "{browser}: {promoted}");
    assert_eq!(promoted["title"], "Booking form", "{browser}: {promoted}");
    assert_eq!(
        promoted["previousUrl"],
        embed_url.as_str(),
        "{browser}: {promoted}"
    );
    assert_eq!(
        promoted["promotedFrom"],
        json!({"frameId": booking["frameId"], "url": booking["url"]}),
        "{browser}: {promoted}"
    );
    assert!(promoted.get("discarded").is_none(), "{browser}: {promoted}");
    assert_eq!(
        top_url(session).await,
        booking["url"].as_str().expect("url"),
        "{browser}"
    );
    // The standalone page takes ordinary refs.
    let tree = top_tree(session).await;
    assert!(
        find_ref(&tree, "textbox", "City").is_some(),
        "{browser}:\n{tree}"
    );
    let back = session.ok("go_back", json!({})).await;
    assert_eq!(back["url"], embed_url.as_str(), "{browser}: {back}");
    tokio::time::sleep(Duration::from_millis(300)).await;

    // An edited field: refused, nothing navigates.
    let booking_id = frame_id_with(session, "/frames/form.html").await;
    let booking_tree = read_frame(session, booking_id).await;
    let city = find_ref(&booking_tree, "textbox", "City").expect("City");
    session
        .ok(
            "iframe_type",
            json!({"frameId": booking_id, "ref_id": city, "text": "Paris"}),
        )
        .await;
    let unsaved = refused(
        session,
        "promote_iframe",
        json!({"urlFilter": "frames/form.html"}),
        "unsaved_frame_state",
    )
    .await;
    let reasons = unsaved["reasons"].to_string();
    assert!(reasons.contains("City"), "{browser}: {unsaved}");
    assert!(
        !reasons.contains("Paris"),
        "{browser}: reasons never show values: {unsaved}"
    );
    assert_eq!(
        top_url(session).await,
        embed_url,
        "{browser}: nothing navigated"
    );

    // force discards it.
    let forced = session
        .ok(
            "promote_iframe",
            json!({"urlFilter": "frames/form.html", "force": true}),
        )
        .await;
    assert_eq!(forced["discarded"], true, "{browser}: {forced}");
    assert_eq!(forced["url"], booking["url"], "{browser}: {forced}");
    let back = session.ok("go_back", json!({})).await;
    assert_eq!(back["url"], embed_url.as_str(), "{browser}: {back}");
    tokio::time::sleep(Duration::from_millis(300)).await;

    // Text typed by the agent into the message editor stands until the page takes it. (A fresh
    // load: the page go_back restored may hold the edited City still, from the browser's
    // back/forward cache.)
    session.open(&embed_url).await;
    let booking_id = frame_id_with(session, "/frames/form.html").await;
    let booking_tree = read_frame(session, booking_id).await;
    let message = find_ref(&booking_tree, "textbox", "Message to the host").expect("editor");
    let send = find_ref(&booking_tree, "button", "Send message").expect("Send");
    let typed = session
        .ok(
            "iframe_type",
            json!({"frameId": booking_id, "ref_id": message, "text": "Arriving late"}),
        )
        .await;
    assert_eq!(typed["kind"], "contenteditable", "{browser}: {typed}");
    let unconfirmed = refused(
        session,
        "promote_iframe",
        json!({"urlFilter": "frames/form.html"}),
        "unsaved_frame_state",
    )
    .await;
    assert!(
        unconfirmed["reasons"]
            .to_string()
            .contains("typed by an agent"),
        "{browser}: {unconfirmed}"
    );
    session
        .ok(
            "iframe_click",
            json!({"frameId": booking_id, "ref_id": send}),
        )
        .await;
    assert_eq!(
        last_booking_report(session).await["sent"],
        "Sent: Arriving late",
        "{browser}"
    );
    let after_send = session
        .ok("promote_iframe", json!({"urlFilter": "frames/form.html"}))
        .await;
    assert_eq!(after_send["url"], booking["url"], "{browser}: {after_send}");
    session.ok("go_back", json!({})).await;
}

/// Two frames match: nothing navigates and both are listed; matchIndex picks one. A frame with a
/// chosen file is refused; no frame matching lists the frames' URLs.
pub async fn ambiguous_frames_and_attached_files(session: &Session) {
    let browser = session.browser.name();
    let two_forms = fixtures().url(TWO_FORMS);
    session.open(&two_forms).await;
    let ambiguous = refused(
        session,
        "promote_iframe",
        json!({"urlFilter": "frames/form.html"}),
        "ambiguous_frame",
    )
    .await;
    let candidates = ambiguous["candidates"]
        .as_array()
        .expect("candidates")
        .clone();
    assert_eq!(candidates.len(), 2, "{browser}: {ambiguous}");
    assert_eq!(candidates[0]["index"], 0, "{browser}: {ambiguous}");
    assert!(
        candidates[0]["url"]
            .as_str()
            .is_some_and(|url| url.ends_with("leg=outbound"))
            && candidates[1]["url"]
                .as_str()
                .is_some_and(|url| url.ends_with("leg=return")),
        "{browser}: {ambiguous}"
    );
    assert_eq!(
        top_url(session).await,
        two_forms,
        "{browser}: nothing navigated"
    );
    // Both iframe lines name their frames (distinct URLs: exact in both browsers).
    let tree = top_tree(session).await;
    for candidate in &candidates {
        assert!(
            tree.contains(&format!("frameId={}", candidate["frameId"])),
            "{browser}: {candidate} in\n{tree}"
        );
    }
    let chosen = session
        .ok(
            "promote_iframe",
            json!({"urlFilter": "frames/form.html", "matchIndex": 1}),
        )
        .await;
    assert_eq!(chosen["url"], candidates[1]["url"], "{browser}: {chosen}");
    assert_eq!(
        chosen["promotedFrom"]["frameId"], candidates[1]["frameId"],
        "{browser}"
    );
    session.ok("go_back", json!({})).await;

    // No match: the frames' URLs as suggestions.
    let none = refused(
        session,
        "promote_iframe",
        json!({"urlFilter": "airtable.com/embed/"}),
        "frame_not_found",
    )
    .await;
    assert_eq!(
        none["suggestions"].as_array().map(Vec::len),
        Some(2),
        "{browser}: {none}"
    );

    // Two iframes with one URL: Chrome cannot tell them apart and prints no frameId on their
    // lines; Firefox's runtime.getFrameId names each. The unique one is named in both.
    session.open(&fixtures().url(TWINS)).await;
    let booking = frame_id_with(session, "leg=single").await;
    let tree = top_tree(session).await;
    let line_of = |title: &str| {
        tree.lines()
            .find(|line| {
                line.trim_start()
                    .starts_with(&format!("iframe \"{title}\""))
            })
            .unwrap_or_else(|| panic!("{browser}: no {title} in\n{tree}"))
            .to_string()
    };
    assert!(
        line_of("Booking").ends_with(&format!("frameId={booking}")),
        "{browser}:\n{tree}"
    );
    let twins_named = [line_of("Left ad"), line_of("Right ad")]
        .iter()
        .filter(|line| line.contains("frameId="))
        .count();
    let expected = if browser == "firefox" { 2 } else { 0 };
    assert_eq!(twins_named, expected, "{browser}:\n{tree}");

    // A chosen file in the newsletter frame (set by the article's own script, same origin).
    let embed_url = fixtures().url(EMBED);
    session.open(&embed_url).await;
    session
        .evaluate(
            "(() => { const input = document.getElementById('newsletter').contentDocument.getElementById('attachment'); \
             const files = new DataTransfer(); files.items.add(new File(['ticket'], 'ticket.pdf')); \
             input.files = files.files; return input.files.length; })()",
        )
        .await;
    let attached = refused(
        session,
        "promote_iframe",
        json!({"urlFilter": "frames/same.html"}),
        "unsaved_frame_state",
    )
    .await;
    assert!(
        attached["reasons"].to_string().contains("file is attached"),
        "{browser}: {attached}"
    );
    assert!(
        !attached["reasons"].to_string().contains("ticket.pdf"),
        "{browser}: no file names: {attached}"
    );
    assert_eq!(
        top_url(session).await,
        embed_url,
        "{browser}: nothing navigated"
    );
}

/// Chromium: the tab's ref floor lives in storage.session, so numbers handed out after the
/// service worker restarted continue above the ones handed out before, in every frame.
pub async fn ref_numbers_continue_after_a_service_worker_restart(session: &Session) {
    let embed_url = fixtures().url(EMBED);
    session.open(&embed_url).await;
    let booking = frame_id_with(session, "/frames/form.html").await;
    let highest = |tree: &str| -> u64 {
        tree.split("[ref_")
            .skip(1)
            .filter_map(|rest| rest.split(']').next()?.parse().ok())
            .max()
            .unwrap_or(0)
    };
    let before =
        highest(&top_tree(session).await).max(highest(&read_frame(session, booking).await));
    assert!(before > 0);
    crate::lifecycle::stop_service_worker(session).await;
    // Any event wakes the worker: a load in the tab fires webNavigation and webRequest events.
    session.navigate_from_outside(&embed_url).await;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    let tree = loop {
        match session.call("get_accessibility_tree", json!({})).await {
            Ok(result) => break result["tree"].as_str().unwrap_or("").to_string(),
            Err(error) => {
                assert!(
                    tokio::time::Instant::now() < deadline,
                    "no call worked after the restart: {:?}",
                    error.0
                );
                tokio::time::sleep(Duration::from_millis(300)).await;
            }
        }
    };
    let lowest_after = tree
        .split("[ref_")
        .skip(1)
        .filter_map(|rest| rest.split(']').next()?.parse::<u64>().ok())
        .min()
        .expect("refs after the restart");
    assert!(
        lowest_after > before,
        "numbering restarted below the floor: {lowest_after} <= {before}"
    );
}
