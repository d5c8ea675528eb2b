//! upload_file, the MCP server's side (docs/agent-tools.md, "Attaching files: upload_file"): the
//! paths are checked and opened here, inside the session's `--upload-root` folders
//! (src/upload_roots.rs), before anything reaches the browser, and the browser gets either the
//! files' bytes or, in a browser allwright drives with real input, their checked real paths.
//!
//! Two routes, one page half (extension/content/actions/upload.js):
//! - the extension's (a person's browser, `--input synthetic`, a drop zone, a tab the bridge has
//!   not mapped): the internal call [`ATTACH_FILES_CALL`] carries each file's name, type,
//!   modification time and bytes (base64); the frame builds `File`s and hands them over as a
//!   person's choice would;
//! - the browser's own (`--input trusted` in a launched browser): the frame finds and marks the
//!   file input, and the bridge sets the files with WebDriver BiDi `input.setFiles`
//!   (src/browser_bridge/files.rs).

use serde_json::{json, Value};

use crate::tool_error::ToolError;
use crate::upload_roots::CheckedFile;

/// The tool's name.
pub const UPLOAD_TOOL: &str = "upload_file";

/// The internal call of the extension's route: not an agent tool, not in the contract; the
/// extension's tier gate treats it as upload_file (extension/background/host/bridge.js).
pub const ATTACH_FILES_CALL: &str = "bridge_attach_files";

/// The paths of a validated call.
pub fn paths_of(arguments: &Value) -> Vec<String> {
    arguments
        .get("paths")
        .and_then(Value::as_array)
        .map(|paths| {
            paths
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

/// What the reply says of the files: `[{name, size, type}]`.
pub fn described(files: &[CheckedFile]) -> Value {
    Value::Array(
        files
            .iter()
            .map(|file| json!({"name": file.name, "size": file.size, "type": file.mime_type}))
            .collect(),
    )
}

/// The page half's description of each file (no bytes): what it checks `accept` and
/// `multiple` against before anything is set.
pub fn file_facts(files: &[CheckedFile]) -> Value {
    described(files)
}

/// The arguments of [`ATTACH_FILES_CALL`]: the agent's target (`ref_id`, `frameId`, `tabId`)
/// and each file read now, from the descriptor that was checked, in base64.
pub fn attach_arguments(arguments: &Value, files: &mut [CheckedFile]) -> Result<Value, ToolError> {
    let mut call = serde_json::Map::new();
    for name in ["ref_id", "frameId", "tabId"] {
        if let Some(value) = arguments.get(name).filter(|value| !value.is_null()) {
            call.insert(name.to_owned(), value.clone());
        }
    }
    let mut encoded = Vec::with_capacity(files.len());
    for file in files.iter_mut() {
        let bytes = file.read()?;
        encoded.push(json!({
            "name": file.name,
            "type": file.mime_type,
            "size": file.size,
            "lastModified": file.last_modified_ms,
            "data": allwright_surface_web::base64::encode(&bytes),
        }));
    }
    call.insert("files".to_owned(), Value::Array(encoded));
    Ok(Value::Object(call))
}

/// Why a file input with these facts would not take `files`, as `(message, hint)`, or `None`:
/// the rules of extension/content/actions/file-accept.js (a folder picker, several files
/// without `multiple`, a file no valid `accept` token matches), for the input the browser's file
/// dialog event named, which the page half never saw.
pub fn accept_refusal(
    facts: &allwright_surface_web::FileInputFacts,
    files: &[CheckedFile],
) -> Option<(String, String)> {
    if facts.directory {
        return Some((
            "this input takes a folder, not files".into(),
            "upload_file attaches files only; ask the person to choose the folder.".into(),
        ));
    }
    if files.len() > 1 && !facts.multiple {
        return Some((
            format!("this input takes one file (it has no multiple attribute), and {} were given", files.len()),
            "Attach one file per call to this input; to replace it, call upload_file again with the other file.".into(),
        ));
    }
    let tokens = accept_tokens(&facts.accept);
    if tokens.is_empty() {
        return None;
    }
    for file in files {
        let name = file.name.to_lowercase();
        let mime = file.mime_type.to_lowercase();
        let accepted = tokens.iter().any(|token| {
            if token.starts_with('.') {
                name.ends_with(token.as_str())
            } else if let Some(prefix) = token.strip_suffix('*') {
                !mime.is_empty() && mime.starts_with(prefix)
            } else {
                mime == *token
            }
        });
        if !accepted {
            let kind = if mime.is_empty() {
                String::new()
            } else {
                format!(" ({mime})")
            };
            return Some((
                format!(
                    "{:?}{kind} is not among the types this input accepts: {}",
                    file.name, facts.accept
                ),
                format!(
                    "Attach a file the input accepts ({}); nothing was attached.",
                    tokens.join(", ")
                ),
            ));
        }
    }
    None
}

/// The `accept` tokens that mean something (file-accept.js's `acceptTokens`).
fn accept_tokens(accept: &str) -> Vec<String> {
    let mime_part = |part: &str| {
        !part.is_empty()
            && part
                .bytes()
                .all(|byte| byte.is_ascii_alphanumeric() || b"!#$&^_.+-".contains(&byte))
    };
    accept
        .split(',')
        .map(|token| token.trim().to_lowercase())
        .filter(|token| {
            let extension = token.len() > 1
                && token.starts_with('.')
                && !token[1..].starts_with(|c: char| c == '.' || c.is_whitespace());
            let mime = token
                .split_once('/')
                .is_some_and(|(kind, sub)| mime_part(kind) && (sub == "*" || mime_part(sub)));
            extension || mime
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use allwright_surface_web::FileInputFacts;

    fn facts(accept: &str, multiple: bool) -> FileInputFacts {
        FileInputFacts {
            is_file_input: true,
            accept: accept.into(),
            multiple,
            ..FileInputFacts::default()
        }
    }

    #[test]
    fn accept_tokens_are_read_as_the_page_half_reads_them() {
        assert_eq!(
            accept_tokens(" .PDF, image/*,text/plain;charset=x, nonsense, ., audio/mp4"),
            vec![".pdf", "image/*", "audio/mp4"]
        );
        assert!(accept_tokens("").is_empty());
    }

    #[test]
    fn the_dialog_routes_input_refuses_what_its_chooser_would_not_offer() {
        let folder = tempfile::tempdir().expect("a folder");
        let roots =
            crate::upload_roots::UploadRoots::open(&[folder.path().to_path_buf()]).expect("roots");
        for name in ["a.txt", "b.png"] {
            std::fs::write(folder.path().join(name), b"x").expect("a file");
        }
        let checked = |names: &[&str]| {
            roots
                .check_all(
                    &names
                        .iter()
                        .map(|name| name.to_string())
                        .collect::<Vec<_>>(),
                )
                .expect("allowed")
        };
        let text = checked(&["a.txt"]);
        assert!(accept_refusal(&facts("text/plain", false), &text).is_none());
        assert!(accept_refusal(&facts("", false), &text).is_none());
        let (message, _) = accept_refusal(&facts("image/*", false), &text).expect("refused");
        assert!(message.contains("image/*"), "{message}");
        let both = checked(&["a.txt", "b.png"]);
        assert!(accept_refusal(&facts("", false), &both).is_some());
        assert!(accept_refusal(&facts(".txt,.PNG", true), &both).is_none());
        let folder_picker = FileInputFacts {
            directory: true,
            ..facts("", true)
        };
        assert!(accept_refusal(&folder_picker, &text).is_some());
    }
}
