//! The built extension that `build.rs` compiled into this binary, and its unpacking to a stable
//! per-user folder that a browser can load: `$XDG_DATA_HOME/allwright/extension/<version>-
//! <fingerprint>/{chrome,firefox}` (`~/.local/share` without XDG_DATA_HOME; `~/Library/Application
//! Support` on macOS). The fingerprint covers every embedded file, so two builds of the extension
//! never share a folder and an unpacked folder is never rewritten.

use std::path::{Path, PathBuf};

mod files {
    include!(concat!(env!("OUT_DIR"), "/embedded_extension.rs"));
}

/// The folder under the user's data folder that holds every unpacked copy.
const EXTENSIONS_FOLDER: &str = "allwright/extension";

/// The extension build compiled in, as `<version>-<fingerprint>`, or `None` when the binary was
/// built without `dist/`.
pub fn embedded_build() -> Option<String> {
    files::EMBEDDED_EXTENSION_FINGERPRINT
        .map(|fingerprint| format!("{}-{fingerprint}", env!("CARGO_PKG_VERSION")))
}

/// The files of one flavour (`"chrome"` or `"firefox"`, the names of `dist/`'s folders).
fn embedded_files(flavour: &str) -> &'static [(&'static str, &'static [u8])] {
    match flavour {
        "chrome" => files::CHROME_FILES,
        "firefox" => files::FIREFOX_FILES,
        _ => &[],
    }
}

/// The user's data folder (XDG Base Directory specification on Linux).
fn user_data_folder() -> Result<PathBuf, String> {
    if let Some(data_home) = std::env::var_os("XDG_DATA_HOME")
        .map(PathBuf::from)
        .filter(|path| path.is_absolute())
    {
        return Ok(data_home);
    }
    let home = std::env::var_os("HOME")
        .filter(|home| !home.is_empty())
        .map(PathBuf::from)
        .ok_or("neither XDG_DATA_HOME nor HOME is set: there is no per-user folder to unpack the extension into")?;
    Ok(if cfg!(target_os = "macos") {
        home.join("Library/Application Support")
    } else {
        home.join(".local/share")
    })
}

/// Where every unpacked copy of the extension lives; `allwright uninstall` removes it.
pub fn extensions_folder() -> Result<PathBuf, String> {
    Ok(user_data_folder()?.join(EXTENSIONS_FOLDER))
}

/// Unpacks the embedded `flavour` once and returns its folder, or `None` when this binary
/// carries no extension. A folder that is already there is used as it is: it was moved into
/// place whole, and its name changes with its content.
pub fn unpack(flavour: &str) -> Result<Option<PathBuf>, String> {
    let Some(build) = embedded_build() else {
        return Ok(None);
    };
    let files = embedded_files(flavour);
    if files.is_empty() {
        return Ok(None);
    }
    let build_folder = extensions_folder()?.join(build);
    let target = build_folder.join(flavour);
    if target.join("manifest.json").is_file() {
        return Ok(Some(target));
    }
    std::fs::create_dir_all(&build_folder)
        .map_err(|error| format!("cannot create {}: {error}", build_folder.display()))?;
    // Written beside the target and renamed into place, so that a browser (or a second
    // allwright unpacking at the same moment) never sees half a folder.
    let staging = tempfile::Builder::new()
        .prefix(&format!(".{flavour}-unpacking-"))
        .tempdir_in(&build_folder)
        .map_err(|error| format!("cannot unpack into {}: {error}", build_folder.display()))?;
    for (relative, bytes) in files {
        write_file(&staging.path().join(relative), bytes)?;
    }
    let staged = staging.keep();
    match std::fs::rename(&staged, &target) {
        Ok(()) => Ok(Some(target)),
        // Another process moved its copy into place first: the same files.
        Err(_) if target.join("manifest.json").is_file() => {
            let _ = std::fs::remove_dir_all(&staged);
            Ok(Some(target))
        }
        Err(error) => {
            let _ = std::fs::remove_dir_all(&staged);
            Err(format!(
                "cannot move the unpacked extension to {}: {error}",
                target.display()
            ))
        }
    }
}

fn write_file(path: &Path, bytes: &[u8]) -> Result<(), String> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|error| format!("cannot create {}: {error}", parent.display()))?;
    }
    std::fs::write(path, bytes).map_err(|error| format!("cannot write {}: {error}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_embedded_extension_has_both_flavours_with_their_manifests() {
        let Some(build) = embedded_build() else {
            // Built without dist/: nothing to check but that nothing is claimed.
            assert!(files::CHROME_FILES.is_empty() && files::FIREFOX_FILES.is_empty());
            return;
        };
        assert!(build.starts_with(env!("CARGO_PKG_VERSION")));
        for flavour in ["chrome", "firefox"] {
            let files = embedded_files(flavour);
            let manifest = files
                .iter()
                .find(|(path, _)| *path == "manifest.json")
                .expect("a manifest");
            let manifest: serde_json::Value =
                serde_json::from_slice(manifest.1).expect("the manifest is JSON");
            assert_eq!(manifest["manifest_version"], 3, "{flavour}");
            assert!(
                files.iter().all(|(path, _)| !path.starts_with('/')
                    && !path.contains('\\')
                    && !path.split('/').any(|part| part == "..")),
                "{flavour}: relative paths only"
            );
        }
    }
}
