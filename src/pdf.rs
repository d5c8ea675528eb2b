//! save_pdf's answer (docs/agent-tools.md, "save_pdf"): the PDF a source printed (the bridge's
//! `browsingContext.print`, src/browser_bridge/pdf.rs, or Chrome's `Page.printToPDF` through the
//! extension, extension/background/captures/save-pdf.js) as an MCP embedded resource (a blob,
//! `application/pdf`), after a short text block with its page count and size.

use rmcp::model::{CallToolResult, ContentBlock, ResourceContents};
use serde_json::{json, Map, Value};

use crate::tool_error::ToolError;
use allwright_surface_web::base64 as base64_bytes;

pub const SAVE_PDF_TOOL: &str = "save_pdf";

/// The largest PDF save_pdf answers: its base64 must fit the extension's 32 MiB reply
/// (extension/background/captures/save-pdf.js, MAX_PDF_BYTES, is the same).
pub const MAX_PDF_BYTES: usize = 20 * 1024 * 1024;

/// The most one object stream may inflate to, and all of them together: a PDF is at most
/// [`MAX_PDF_BYTES`], and no page tree needs more, so a compressed bomb stops here.
const MAX_OBJECT_STREAM_BYTES: usize = 4 * 1024 * 1024;
const MAX_INFLATED_BYTES: usize = 32 * 1024 * 1024;

/// The number of pages of a PDF: its page objects (`/Type /Page`, not `/Pages`), counted in the
/// file's bytes and in its object streams (`/Type /ObjStm`, inflated when `/FlateDecode`, within
/// [`MAX_OBJECT_STREAM_BYTES`]); when none shows, the largest `/Count` of a page tree. Chromium
/// (Skia) writes its page objects uncompressed; Firefox (cairo) inside object streams.
pub fn page_count(pdf: &[u8]) -> usize {
    let mut pages = count_page_objects(pdf);
    let mut largest_tree = largest_page_tree_count(pdf);
    for inflated in object_streams(pdf) {
        pages += count_page_objects(&inflated);
        largest_tree = largest_tree.max(largest_page_tree_count(&inflated));
    }
    if pages > 0 {
        pages
    } else {
        largest_tree
    }
}

/// `/Type /Page` objects, whitespace between the two names allowed, `/Pages` not counted.
fn count_page_objects(bytes: &[u8]) -> usize {
    let mut pages = 0;
    let mut at = 0;
    while let Some(found) = find(&bytes[at..], b"/Type") {
        let mut index = at + found + b"/Type".len();
        while index < bytes.len() && matches!(bytes[index], b' ' | b'\n' | b'\r' | b'\t') {
            index += 1;
        }
        if bytes[index..].starts_with(b"/Page") {
            let after = bytes.get(index + b"/Page".len()).copied();
            if !after.is_some_and(|byte| byte.is_ascii_alphanumeric()) {
                pages += 1;
            }
        }
        at = index;
    }
    pages
}

/// The largest `/Count N` in the bytes (a page tree's page count).
fn largest_page_tree_count(bytes: &[u8]) -> usize {
    let mut largest = 0;
    let mut at = 0;
    while let Some(found) = find(&bytes[at..], b"/Count") {
        let start = at + found + b"/Count".len();
        let digits: String = bytes[start..]
            .iter()
            .skip_while(|byte| byte.is_ascii_whitespace())
            .take_while(|byte| byte.is_ascii_digit())
            .take(9)
            .map(|&byte| byte as char)
            .collect();
        largest = largest.max(digits.parse().unwrap_or(0));
        at = start;
    }
    largest
}

/// The contents of the PDF's object streams, inflated where they are Flate-compressed, within
/// [`MAX_OBJECT_STREAM_BYTES`] each and [`MAX_INFLATED_BYTES`] together; a stream that does not
/// inflate within its limit is left out.
fn object_streams(pdf: &[u8]) -> Vec<Vec<u8>> {
    let mut streams = Vec::new();
    let mut budget = MAX_INFLATED_BYTES;
    let mut at = 0;
    while let Some(found) = find(&pdf[at..], b"/ObjStm") {
        let dictionary_start = at + found;
        let Some(keyword) = find(&pdf[dictionary_start..], b"stream") else {
            break;
        };
        let dictionary = &pdf[dictionary_start..dictionary_start + keyword];
        let mut data_start = dictionary_start + keyword + b"stream".len();
        if pdf.get(data_start) == Some(&b'\r') {
            data_start += 1;
        }
        if pdf.get(data_start) == Some(&b'\n') {
            data_start += 1;
        }
        let Some(length) = find(&pdf[data_start..], b"endstream") else {
            break;
        };
        let data = &pdf[data_start..data_start + length];
        at = data_start + length;
        if find(dictionary, b"/FlateDecode").is_none() {
            streams.push(data.to_vec());
            continue;
        }
        let limit = MAX_OBJECT_STREAM_BYTES.min(budget);
        if limit == 0 {
            break;
        }
        if let Ok(inflated) = miniz_oxide::inflate::decompress_to_vec_zlib_with_limit(data, limit) {
            budget -= inflated.len();
            streams.push(inflated);
        }
    }
    streams
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack
        .windows(needle.len())
        .position(|window| window == needle)
}

/// The MCP answer from a source's `{data, mimeType, method, ...}`: the text block
/// `{pages, bytes, method, ...}` first, then the PDF as an embedded blob resource. An answer
/// without a PDF is the source's failure; one over [`MAX_PDF_BYTES`] is `result_too_large`.
pub fn reply(result: Value, tab_id: Option<i64>) -> Result<CallToolResult, ToolError> {
    let Value::Object(mut details) = result else {
        return Err(ToolError::script_failed(
            "the print came back without a PDF",
        ));
    };
    let Some(Value::String(data)) = details.remove("data") else {
        return Err(ToolError::script_failed(
            "the print came back without a PDF",
        ));
    };
    details.remove("mimeType");
    let bytes = base64_bytes::decode(&data)
        .ok()
        .ok_or_else(|| ToolError::script_failed("the print came back with a malformed PDF"))?;
    if !bytes.starts_with(b"%PDF-") {
        return Err(ToolError::script_failed(
            "the print came back with something that is not a PDF",
        ));
    }
    if bytes.len() > MAX_PDF_BYTES {
        return Err(ToolError::result_too_large(
            "save_pdf",
            format!(
                "the PDF is {} bytes, more than the {} MiB save_pdf returns",
                bytes.len(),
                MAX_PDF_BYTES / 1024 / 1024
            ),
        ));
    }
    let mut header = Map::new();
    header.insert("pages".into(), json!(page_count(&bytes)));
    header.insert("bytes".into(), json!(bytes.len()));
    for (field, value) in details {
        header.insert(field, value);
    }
    let uri = match tab_id {
        Some(tab) => format!("allwright-pdf://tab-{tab}/page.pdf"),
        None => "allwright-pdf://active-tab/page.pdf".to_owned(),
    };
    let resource = ResourceContents::blob(data, uri).with_mime_type("application/pdf");
    Ok(CallToolResult::success(vec![
        ContentBlock::text(Value::Object(header).to_string()),
        ContentBlock::resource(resource),
    ]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_are_counted_by_their_objects_not_the_tree() {
        let pdf = b"%PDF-1.4\n1 0 obj << /Type /Pages /Kids [2 0 R 3 0 R] /Count 2 >> endobj\n\
2 0 obj << /Type /Page /Parent 1 0 R >> endobj\n3 0 obj <</Type/Page/Parent 1 0 R>> endobj\n%%EOF";
        assert_eq!(page_count(pdf), 2);
        let compressed = b"%PDF-1.5\n1 0 obj << /Type /Pages /Count 5 >> endobj";
        assert_eq!(page_count(compressed), 5);
        // Firefox's: the page objects in a Flate-compressed object stream.
        let objects =
            b"1 0\n<< /Type /Pages /Count 2 >>\n<< /Type /Page % 1\n>>\n<< /Type /Page % 2\n>>";
        let compressed_objects = miniz_oxide::deflate::compress_to_vec_zlib(objects, 6);
        let mut in_object_stream =
            b"%PDF-1.7\n10 0 obj\n<< /Type /ObjStm /N 3 /Filter /FlateDecode >>\nstream\n".to_vec();
        in_object_stream.extend_from_slice(&compressed_objects);
        in_object_stream.extend_from_slice(b"\nendstream\nendobj\n%%EOF");
        assert_eq!(page_count(&in_object_stream), 2);
        assert_eq!(page_count(b"%PDF-1.4"), 0);
    }

    #[test]
    fn the_reply_is_a_text_block_then_the_pdf_blob() {
        let pdf = b"%PDF-1.4\n<< /Type /Page >>\n%%EOF";
        let data = base64_bytes::encode(pdf);
        let reply = reply(
            json!({"data": data, "mimeType": "application/pdf", "method": "bidi"}),
            Some(4),
        )
        .expect("a reply");
        let header: Value =
            serde_json::from_str(&reply.content[0].as_text().expect("text").text).expect("JSON");
        assert_eq!(header["pages"], 1);
        assert_eq!(header["bytes"], pdf.len());
        assert_eq!(header["method"], "bidi");
        let resource = reply.content[1].as_resource().expect("a resource");
        match &resource.resource {
            ResourceContents::BlobResourceContents {
                blob, mime_type, ..
            } => {
                assert_eq!(blob, &data);
                assert_eq!(mime_type.as_deref(), Some("application/pdf"));
            }
            other => panic!("not a blob: {other:?}"),
        }
    }

    #[test]
    fn something_else_than_a_pdf_is_a_failure() {
        for answer in [
            json!({"mimeType": "application/pdf"}),
            json!({"data": base64_bytes::encode(b"<html>")}),
            json!("x"),
        ] {
            assert_eq!(
                reply(answer.clone(), None).expect_err("no PDF").code,
                "script_failed",
                "{answer}"
            );
        }
    }
}
