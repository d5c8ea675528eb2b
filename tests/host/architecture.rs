//! Checks of what ARCHITECTURE.md states as absences in the binary: "Only the `native_messaging`
//! module (`src/native_messaging.rs` and `src/native_messaging/`) knows the native-messaging
//! framing" (docs/protocol/channels.md, section 2: a 4-byte native-endian length, then the JSON).

use std::path::{Path, PathBuf};

/// Spellings that only the framing needs: turning the 4-byte length prefix into a number and
/// back, in any byte order, and the module's own names for the prefix and the chunking limit.
const FRAMING_SPELLINGS: &[&str] = &[
    "_ne_bytes",
    "_le_bytes",
    "_be_bytes",
    "[0u8; 4]",
    "[0; 4]",
    "LENGTH_PREFIX",
    "CHUNKING_THRESHOLD",
];

fn rust_files(folder: &Path, found: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(folder).expect("read src") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            rust_files(&path, found);
        } else if path.extension().is_some_and(|extension| extension == "rs") {
            found.push(path);
        }
    }
}

#[test]
fn only_native_messaging_knows_the_framing() {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let owner_file = source.join("native_messaging.rs");
    let owner_folder = source.join("native_messaging");
    let is_owner = |file: &Path| file == owner_file || file.starts_with(&owner_folder);
    let mut files = Vec::new();
    rust_files(&source, &mut files);
    assert!(files.len() > 10, "the binary's sources are found");
    let framing_text = std::fs::read_to_string(owner_folder.join("framing.rs"))
        .expect("native_messaging/framing.rs");
    assert!(
        framing_text.contains("u32::from_ne_bytes") && framing_text.contains("to_ne_bytes"),
        "the check looks for what the owner really writes"
    );
    let mut offenders = Vec::new();
    for file in files.iter().filter(|file| !is_owner(file)) {
        let text = std::fs::read_to_string(file).expect("source");
        for spelling in FRAMING_SPELLINGS {
            if text.contains(spelling) {
                offenders.push(format!("{} uses {spelling}", file.display()));
            }
        }
    }
    assert!(
        offenders.is_empty(),
        "framing outside the native_messaging module:\n{}",
        offenders.join("\n")
    );
}
