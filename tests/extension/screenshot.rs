//! screenshot in the user's own browser (docs/protocol/browser-bridge.md, "Screenshots"): the extension captures
//! the visible tab and crops to an element. The images come back as MCP image content; the test
//! decodes them and checks their size against the window's and known pixels' colours.

use std::time::Duration;

use base64::Engine;
use rmcp::model::CallToolResult;
use serde_json::{json, Value};

use crate::actions::{find_ref, frame_id_of, ref_of};
use crate::support::reply_text::reply_value;
use crate::support::{fixtures, Browser, Session};

/// A decoded RGB(A) picture.
pub struct Picture {
    pub width: u32,
    pub height: u32,
    channels: usize,
    line_size: usize,
    pixels: Vec<u8>,
}

impl Picture {
    pub fn decode_png(bytes: &[u8]) -> Picture {
        let mut decoder = png::Decoder::new(std::io::Cursor::new(bytes));
        decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
        let mut reader = decoder.read_info().expect("a PNG header");
        let mut pixels = vec![0; reader.output_buffer_size()];
        let frame = reader.next_frame(&mut pixels).expect("PNG pixels");
        let channels = match frame.color_type {
            png::ColorType::Rgba => 4,
            png::ColorType::Rgb => 3,
            other => panic!("an RGB picture, not {other:?}"),
        };
        Picture {
            width: frame.width,
            height: frame.height,
            channels,
            line_size: frame.line_size,
            pixels,
        }
    }

    pub fn rgb(&self, x: u32, y: u32) -> [u8; 3] {
        let start = y as usize * self.line_size + x as usize * self.channels;
        [
            self.pixels[start],
            self.pixels[start + 1],
            self.pixels[start + 2],
        ]
    }
}

/// Whether a pixel is this colour, give or take a little for colour management.
pub fn is_colour(pixel: [u8; 3], wanted: [u8; 3]) -> bool {
    pixel
        .iter()
        .zip(wanted)
        .all(|(have, want)| have.abs_diff(want) <= 8)
}

pub const RED: [u8; 3] = [255, 0, 0];
pub const GREEN: [u8; 3] = [0, 255, 0];
pub const BLUE: [u8; 3] = [0, 0, 255];
pub const WHITE: [u8; 3] = [255, 255, 255];

/// The image block and the facts of a successful screenshot.
pub fn image_of(browser: &str, result: &CallToolResult) -> (String, Vec<u8>, Value) {
    assert_ne!(result.is_error, Some(true), "{browser}: {result:?}");
    let image = result
        .content
        .first()
        .and_then(|block| block.as_image())
        .unwrap_or_else(|| panic!("{browser}: an image block first: {result:?}"));
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(&image.data)
        .expect("base64 image data");
    // The facts follow the image as one text block (src/mcp_reply.rs: no structuredContent).
    assert_eq!(result.structured_content, None, "{browser}: the facts once");
    let facts = reply_value(result);
    assert!(facts.is_object(), "{browser}: the facts: {result:?}");
    (image.mime_type.clone(), bytes, facts)
}

/// Takes a screenshot that must succeed; Chrome allows two captures a second, and the extension
/// waits for its quota itself, so the test does not pace its calls.
async fn screenshot(session: &Session, arguments: Value) -> (String, Vec<u8>, Value) {
    let result = session.call_result("screenshot", arguments).await;
    image_of(session.browser.name(), &result)
}

async fn screenshot_error(session: &Session, arguments: Value) -> Value {
    let result = session.call_result("screenshot", arguments.clone()).await;
    assert_eq!(
        result.is_error,
        Some(true),
        "{}: screenshot({arguments}) should fail: {result:?}",
        session.browser.name()
    );
    reply_value(&result)
}

pub async fn viewport_elements_formats_and_refusals(session: &Session) {
    let browser = session.browser.name();
    session
        .open(&fixtures().url("/pages/screenshot/index.html"))
        .await;
    let window = session
        .evaluate_json("({width: innerWidth, height: innerHeight, ratio: devicePixelRatio})")
        .await;
    let ratio = window["ratio"].as_f64().expect("devicePixelRatio");
    let device = |css: f64| (css * ratio).round() as u32;

    // The viewport: a PNG of the window's size in device pixels, the red box where the page put it.
    let (mime_type, bytes, facts) = screenshot(session, json!({})).await;
    assert_eq!(mime_type, "image/png", "{browser}");
    let picture = Picture::decode_png(&bytes);
    assert_eq!(
        (picture.width, picture.height),
        (
            device(window["width"].as_f64().expect("width")),
            device(window["height"].as_f64().expect("height"))
        ),
        "{browser}: the viewport's size in device pixels ({window})"
    );
    assert_eq!(facts["width"], picture.width, "{browser}: {facts}");
    assert_eq!(facts["height"], picture.height, "{browser}: {facts}");
    assert_eq!(facts["format"], "png", "{browser}: {facts}");
    assert_eq!(facts["scope"], "viewport", "{browser}: {facts}");
    assert_eq!(facts["method"], "captureVisibleTab", "{browser}: {facts}");
    assert!(
        is_colour(picture.rgb(device(100.0), device(100.0)), RED),
        "{browser}: inside the red box"
    );
    assert!(
        is_colour(picture.rgb(device(20.0), device(20.0)), WHITE),
        "{browser}: outside it"
    );

    // One element: exactly its box, in its colour.
    let red = ref_of(session, "image", "Red box").await;
    let (mime_type, bytes, facts) = screenshot(session, json!({"ref_id": red})).await;
    assert_eq!(mime_type, "image/png", "{browser}");
    let picture = Picture::decode_png(&bytes);
    assert_eq!(
        (picture.width, picture.height),
        (device(120.0), device(80.0)),
        "{browser}: {facts}"
    );
    assert_eq!(facts["scope"], "element", "{browser}: {facts}");
    for (x, y) in [
        (0, 0),
        (picture.width - 1, picture.height - 1),
        (picture.width / 2, picture.height / 2),
    ] {
        assert!(
            is_colour(picture.rgb(x, y), RED),
            "{browser}: pixel {x},{y} of the red box"
        );
    }

    // An element below the viewport is scrolled into view first.
    let green = ref_of(session, "image", "Green box").await;
    let (_, bytes, facts) = screenshot(session, json!({"ref_id": green})).await;
    let picture = Picture::decode_png(&bytes);
    assert_eq!(
        (picture.width, picture.height),
        (device(100.0), device(50.0)),
        "{browser}: {facts}"
    );
    assert!(
        is_colour(picture.rgb(picture.width / 2, picture.height / 2), GREEN),
        "{browser}: the green box"
    );
    assert!(
        session.evaluate("scrollY").await.as_f64().unwrap_or(0.0) > 0.0,
        "{browser}: the page scrolled to the green box"
    );

    // An element inside a frame: cut out at the frame's position in the page.
    session.evaluate("scrollTo(0, 0)").await;
    let frame_id = frame_id_of(session, "/screenshot/frame.html").await;
    let frame_tree = session
        .ok("get_accessibility_tree", json!({"frameId": frame_id}))
        .await;
    let blue = find_ref(
        frame_tree["tree"].as_str().expect("tree"),
        "image",
        "Blue box",
    )
    .unwrap_or_else(|| panic!("{browser}: the frame's box in {frame_tree}"));
    let (_, bytes, facts) = screenshot(session, json!({"ref_id": blue, "frameId": frame_id})).await;
    let picture = Picture::decode_png(&bytes);
    assert_eq!(
        (picture.width, picture.height),
        (device(60.0), device(40.0)),
        "{browser}: {facts}"
    );
    for (x, y) in [(0, 0), (picture.width - 1, picture.height - 1)] {
        assert!(
            is_colour(picture.rgb(x, y), BLUE),
            "{browser}: pixel {x},{y} of the blue box is {:?} (centre {:?}, one in {:?}): {facts}",
            picture.rgb(x, y),
            picture.rgb(picture.width / 2, picture.height / 2),
            picture.rgb(x.saturating_sub(1).max(1), y.saturating_sub(1).max(1)),
        );
    }

    // An element in a cross-origin frame: Firefox names the frame's element from its parent
    // (runtime.getFrameId); Chromium's extensions cannot place such a frame, and say so.
    let cross_id = frame_id_of(session, "/screenshot/frame.html?cross-origin").await;
    let cross_tree = session
        .ok("get_accessibility_tree", json!({"frameId": cross_id}))
        .await;
    let cross_blue = find_ref(
        cross_tree["tree"].as_str().expect("tree"),
        "image",
        "Blue box",
    )
    .unwrap_or_else(|| panic!("{browser}: the cross-origin frame's box in {cross_tree}"));
    let arguments = json!({"ref_id": cross_blue, "frameId": cross_id});
    if session.browser == Browser::Firefox {
        let (_, bytes, facts) = screenshot(session, arguments).await;
        let picture = Picture::decode_png(&bytes);
        assert_eq!(
            (picture.width, picture.height),
            (device(60.0), device(40.0)),
            "{browser}: {facts}"
        );
        assert!(
            is_colour(picture.rgb(picture.width / 2, picture.height / 2), BLUE),
            "{browser}: {facts}"
        );
    } else {
        let refused = screenshot_error(session, arguments).await;
        assert_eq!(
            refused["code"], "not_supported_here",
            "{browser}: {refused}"
        );
        assert!(
            refused["message"]
                .as_str()
                .is_some_and(|message| message.contains("frame")),
            "{browser}: {refused}"
        );
    }

    // JPEG, of the viewport and of an element.
    let (mime_type, bytes, facts) = screenshot(session, json!({"format": "jpeg"})).await;
    assert_eq!(mime_type, "image/jpeg", "{browser}");
    assert_eq!(&bytes[..3], &[0xFF, 0xD8, 0xFF], "{browser}: a JPEG file");
    assert_eq!(facts["format"], "jpeg", "{browser}: {facts}");
    let (mime_type, bytes, _) = screenshot(session, json!({"format": "jpeg", "ref_id": red})).await;
    assert_eq!(mime_type, "image/jpeg", "{browser}");
    assert_eq!(&bytes[..3], &[0xFF, 0xD8, 0xFF], "{browser}: a JPEG file");

    // What the user's browser refuses, with the documented codes.
    let full_page = screenshot_error(session, json!({"fullPage": true})).await;
    assert_eq!(
        full_page["code"], "not_supported_here",
        "{browser}: {full_page}"
    );
    assert!(
        full_page["hint"]
            .as_str()
            .is_some_and(|hint| hint.contains("launch")),
        "{browser}: {full_page}"
    );
    let stale = screenshot_error(session, json!({"ref_id": "ref_99999"})).await;
    assert_eq!(stale["code"], "ref_not_found", "{browser}: {stale}");

    // A tab that is not shown is refused, not activated.
    let first_tab = session.ok("list_tabs", json!({})).await["tabs"]
        .as_array()
        .and_then(|tabs| tabs.iter().find(|tab| tab["active"] == true).cloned())
        .expect("an active tab");
    let first_tab_id = first_tab["tabId"].clone();
    let second = session.ok("new_tab", json!({})).await;
    let hidden = screenshot_error(session, json!({"tabId": first_tab_id})).await;
    assert_eq!(hidden["code"], "tab_not_visible", "{browser}: {hidden}");
    assert!(
        hidden["hint"]
            .as_str()
            .is_some_and(|hint| hint.contains("select_tab")),
        "{browser}: {hidden}"
    );
    session
        .ok("close_tab", json!({"tabId": second["tabId"]}))
        .await;
    session
        .ok("select_tab", json!({"tabId": first_tab_id}))
        .await;
    tokio::time::sleep(Duration::from_millis(200)).await;
}

/// The colour of screenshot/secrets.html's secret fields (background and text alike).
pub const MAGENTA: [u8; 3] = [255, 0, 255];
/// The colour of its ordinary fields, which stay visible.
pub const CYAN: [u8; 3] = [0, 255, 255];
/// The masks' colour (MASK_COLOUR in extension/content/dom/secret-masks.js).
pub const BLACK: [u8; 3] = [0, 0, 0];

/// The secret fields of screenshot/secrets.html in the viewport, by their top-left corner in the
/// top document's CSS pixels; each is 120 x 30.
pub const SECRET_FIELDS_IN_VIEWPORT: &[(&str, f64, f64)] = &[
    ("card number (cc-number)", 20.0, 20.0),
    ("security code (cc-csc)", 20.0, 70.0),
    ("expiry (cc-exp)", 20.0, 120.0),
    ("one-time code", 20.0, 170.0),
    ("type=tel input named pin", 20.0, 220.0),
    ("input named api_token", 20.0, 270.0),
    (
        "editing host masked with -webkit-text-security",
        20.0,
        320.0,
    ),
    ("password", 20.0, 370.0),
    (
        "editing host named otp, its text overflowing its box",
        200.0,
        70.0,
    ),
    ("card number in a closed shadow root", 200.0, 120.0),
    ("one-time code in a cross-origin frame", 220.0, 220.0),
];
/// The secret field far below the viewport, in full-page pictures.
pub const SECRET_FIELD_BELOW: (&str, f64, f64) = ("second card number, far below", 20.0, 2400.0);
/// The ordinary fields, which must not be masked.
pub const ORDINARY_FIELDS: &[(&str, f64, f64)] = &[
    ("City", 200.0, 20.0),
    ("the frame's ordinary field", 220.0, 280.0),
];

/// Checks a picture of screenshot/secrets.html whose top-left corner is at `origin` (CSS pixels
/// of the top document), at `ratio` device pixels per CSS pixel: each secret field in it is
/// black at its corners and centre, each ordinary field in it is cyan, and no pixel anywhere is
/// the secret fields' magenta.
pub fn assert_secret_fields_masked(
    browser: &str,
    picture: &Picture,
    origin: (f64, f64),
    ratio: f64,
    secret_fields: &[(&str, f64, f64)],
    facts: &Value,
) {
    let device = |css: f64| (css * ratio).round() as i64;
    let pixel = |x: f64, y: f64| {
        let (x, y) = (device(x - origin.0), device(y - origin.1));
        (x >= 0 && y >= 0 && (x as u32) < picture.width && (y as u32) < picture.height)
            .then(|| picture.rgb(x as u32, y as u32))
    };
    let mut checked = 0;
    for &(name, left, top) in secret_fields {
        for (x, y) in [(2.0, 2.0), (60.0, 15.0), (117.0, 27.0)] {
            let Some(found) = pixel(left + x, top + y) else {
                continue;
            };
            checked += 1;
            assert!(
                is_colour(found, BLACK),
                "{browser}: the {name} at ({left}, {top}) is not masked at +({x}, {y}): {found:?}: {facts}"
            );
        }
    }
    assert!(
        checked > 0,
        "{browser}: no secret field in the picture: {facts}"
    );
    for &(name, left, top) in ORDINARY_FIELDS {
        if let Some(found) = pixel(left + 60.0, top + 15.0) {
            assert!(
                is_colour(found, CYAN),
                "{browser}: the ordinary {name} is hidden or masked: {found:?}: {facts}"
            );
        }
    }
    for y in 0..picture.height {
        for x in 0..picture.width {
            let found = picture.rgb(x, y);
            assert!(
                !is_colour(found, MAGENTA),
                "{browser}: a secret field's pixel shows at ({x}, {y}) of the picture: {facts}"
            );
        }
    }
}

/// How many children the page's root element has: the masks' host is one while it is up.
const ROOT_CHILDREN: &str = "document.documentElement.children.length";

/// Secret fields are painted over in the user's own browser's pictures (captureVisibleTab): the
/// viewport (with a closed shadow root and a cross-origin frame in it) and an element; the
/// result counts them; the masks are gone afterwards; a page that removes the masks while they
/// are up gets no picture.
pub async fn secret_fields_are_painted_over(session: &Session) {
    let browser = session.browser.name();
    session
        .open(&fixtures().url("/pages/screenshot/secrets.html"))
        .await;
    // The frame is loaded (its tree is read) before the pictures are taken.
    let frame_id = frame_id_of(session, "/screenshot/secrets-frame.html").await;
    let ratio = session
        .evaluate("devicePixelRatio")
        .await
        .as_f64()
        .expect("devicePixelRatio");
    let children_before = session.evaluate(ROOT_CHILDREN).await;

    let (_, bytes, facts) = screenshot(session, json!({})).await;
    let picture = Picture::decode_png(&bytes);
    assert_secret_fields_masked(
        browser,
        &picture,
        (0.0, 0.0),
        ratio,
        SECRET_FIELDS_IN_VIEWPORT,
        &facts,
    );
    assert_eq!(facts["maskedSecretFields"], 11, "{browser}: {facts}");
    assert_eq!(
        session.evaluate(ROOT_CHILDREN).await,
        children_before,
        "{browser}: the masks are gone after the picture"
    );

    // An element: the region, cropped at the page's origin.
    let form = ref_of(session, "region", "Payment").await;
    let (_, bytes, facts) = screenshot(session, json!({"ref_id": form})).await;
    let picture = Picture::decode_png(&bytes);
    assert_secret_fields_masked(
        browser,
        &picture,
        (0.0, 0.0),
        ratio,
        &SECRET_FIELDS_IN_VIEWPORT[..8],
        &facts,
    );
    assert!(
        facts["maskedSecretFields"].as_u64().unwrap_or(0) >= 8,
        "{browser}: {facts}"
    );

    // An element inside the cross-origin frame: Firefox can place the frame (see above).
    if session.browser == Browser::Firefox {
        let frame_tree = session
            .ok("get_accessibility_tree", json!({"frameId": frame_id}))
            .await;
        let frame_form = find_ref(
            frame_tree["tree"].as_str().expect("tree"),
            "region",
            "Frame form",
        )
        .unwrap_or_else(|| panic!("{browser}: the frame's form in {frame_tree}"));
        let (_, bytes, facts) =
            screenshot(session, json!({"ref_id": frame_form, "frameId": frame_id})).await;
        let picture = Picture::decode_png(&bytes);
        assert_secret_fields_masked(
            browser,
            &picture,
            (200.0, 200.0),
            ratio,
            &SECRET_FIELDS_IN_VIEWPORT[10..],
            &facts,
        );
    }

    // JPEG: counted the same.
    let (_, _, facts) = screenshot(session, json!({"format": "jpeg"})).await;
    assert_eq!(facts["maskedSecretFields"], 11, "{browser}: {facts}");

    // A page that removes whatever is added to its root element: the masks go before the
    // picture is taken, so the picture is thrown away.
    session
        .evaluate(
            "new MutationObserver((records) => { for (const record of records) for (const node of record.addedNodes) node.remove(); }).observe(document.documentElement, {childList: true}), true",
        )
        .await;
    let refused = screenshot_error(session, json!({})).await;
    assert_eq!(refused["code"], "script_failed", "{browser}: {refused}");
    assert!(
        refused["message"]
            .as_str()
            .is_some_and(|message| message.contains("thrown away")),
        "{browser}: {refused}"
    );
}
