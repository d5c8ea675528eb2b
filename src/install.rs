//! `allwright install` / `uninstall`: the native-messaging host manifests that let the user's
//! Chrome, Chromium and Firefox start this binary for allwright's extension, and only for it; and
//! the extension itself, unpacked from the binary to a per-user folder the user loads it from.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::embedded_extension;
use crate::identity::ExtensionIdentity;

const HOST_DESCRIPTION: &str =
    "allwright native host: bridges an AI agent (allwright mcp) to the allwright extension";

/// Which manifest format a browser reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ManifestFlavour {
    /// `allowed_origins: ["chrome-extension://<id>/"]`.
    Chromium,
    /// `allowed_extensions: ["<gecko id>"]`.
    Firefox,
}

/// One browser's per-user manifest folder.
struct BrowserTarget {
    browser: &'static str,
    folder: PathBuf,
    flavour: ManifestFlavour,
}

pub fn chrome_host_manifest(identity: &ExtensionIdentity, executable: &Path) -> Value {
    json!({
        "name": identity.native_host_name,
        "description": HOST_DESCRIPTION,
        "path": executable.to_string_lossy(),
        "type": "stdio",
        "allowed_origins": [identity.chrome_origin()],
    })
}

pub fn firefox_host_manifest(identity: &ExtensionIdentity, executable: &Path) -> Value {
    json!({
        "name": identity.native_host_name,
        "description": HOST_DESCRIPTION,
        "path": executable.to_string_lossy(),
        "type": "stdio",
        "allowed_extensions": [identity.gecko_id],
    })
}

/// Writes `<folder>/<native host name>.json`, creating the folder. Returns the file's path.
pub fn write_manifest(
    folder: &Path,
    identity: &ExtensionIdentity,
    manifest: &Value,
) -> Result<PathBuf, String> {
    std::fs::create_dir_all(folder)
        .map_err(|error| format!("cannot create {}: {error}", folder.display()))?;
    let path = folder.join(format!("{}.json", identity.native_host_name));
    let text = serde_json::to_string_pretty(manifest).map_err(|error| error.to_string())? + "\n";
    std::fs::write(&path, text)
        .map_err(|error| format!("cannot write {}: {error}", path.display()))?;
    Ok(path)
}

/// The per-user manifest folders (Linux, and macOS), from Chrome's and Firefox's documentation.
fn browser_targets() -> Result<Vec<BrowserTarget>, String> {
    let home = std::env::var_os("HOME")
        .filter(|home| !home.is_empty())
        .map(PathBuf::from)
        .ok_or("HOME is not set")?;
    let targets = if cfg!(target_os = "macos") {
        let support = home.join("Library/Application Support");
        vec![
            BrowserTarget {
                browser: "Google Chrome",
                folder: support.join("Google/Chrome/NativeMessagingHosts"),
                flavour: ManifestFlavour::Chromium,
            },
            BrowserTarget {
                browser: "Chromium",
                folder: support.join("Chromium/NativeMessagingHosts"),
                flavour: ManifestFlavour::Chromium,
            },
            BrowserTarget {
                browser: "Firefox",
                folder: support.join("Mozilla/NativeMessagingHosts"),
                flavour: ManifestFlavour::Firefox,
            },
        ]
    } else {
        // Chrome and Chromium keep their configuration under $XDG_CONFIG_HOME (default ~/.config).
        let config = std::env::var_os("XDG_CONFIG_HOME")
            .filter(|value| !value.is_empty())
            .map(PathBuf::from)
            .unwrap_or_else(|| home.join(".config"));
        vec![
            BrowserTarget {
                browser: "Google Chrome",
                folder: config.join("google-chrome/NativeMessagingHosts"),
                flavour: ManifestFlavour::Chromium,
            },
            BrowserTarget {
                browser: "Chromium",
                folder: config.join("chromium/NativeMessagingHosts"),
                flavour: ManifestFlavour::Chromium,
            },
            BrowserTarget {
                browser: "Firefox",
                folder: home.join(".mozilla/native-messaging-hosts"),
                flavour: ManifestFlavour::Firefox,
            },
        ]
    };
    Ok(targets)
}

/// Writes the three manifests (rewriting them is harmless, so running it twice is fine) and
/// prints each path.
pub fn install() -> Result<(), String> {
    let identity = ExtensionIdentity::compiled_in()?;
    let executable = std::env::current_exe()
        .and_then(|exe| exe.canonicalize())
        .map_err(|error| format!("cannot find this program's own path: {error}"))?;
    for target in browser_targets()? {
        let manifest = match target.flavour {
            ManifestFlavour::Chromium => chrome_host_manifest(&identity, &executable),
            ManifestFlavour::Firefox => firefox_host_manifest(&identity, &executable),
        };
        let path = write_manifest(&target.folder, &identity, &manifest)?;
        println!("{}: wrote {}", target.browser, path.display());
    }
    println!(
        "The browsers will start {} for the extension {} / {}.",
        executable.display(),
        identity.chrome_extension_id,
        identity.gecko_id
    );
    print_extension_folders()
}

/// Unpacks the extension compiled into this binary to the per-user folder and says where to load
/// it from: a browser loads an unpacked extension from a folder that must stay where it is.
fn print_extension_folders() -> Result<(), String> {
    let (Some(chrome), Some(firefox)) = (
        embedded_extension::unpack("chrome")?,
        embedded_extension::unpack("firefox")?,
    ) else {
        println!(
            "This binary carries no extension (it was built without dist/): build it with ./scripts/build, \
then load dist/chrome or dist/firefox."
        );
        return Ok(());
    };
    println!(
        "Load the extension from {} in Chrome or Chromium (chrome://extensions, Developer mode, Load unpacked).",
        chrome.display()
    );
    println!(
        "Load the extension from {} in Firefox (about:debugging, This Firefox, Load Temporary Add-on: its manifest.json).",
        firefox.display()
    );
    Ok(())
}

/// Removes the three manifests where they exist; says which were already absent.
pub fn uninstall() -> Result<(), String> {
    let identity = ExtensionIdentity::compiled_in()?;
    for target in browser_targets()? {
        let path = target
            .folder
            .join(format!("{}.json", identity.native_host_name));
        match std::fs::remove_file(&path) {
            Ok(()) => println!("{}: removed {}", target.browser, path.display()),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => println!(
                "{}: nothing to remove at {}",
                target.browser,
                path.display()
            ),
            Err(error) => return Err(format!("cannot remove {}: {error}", path.display())),
        }
    }
    let unpacked = embedded_extension::extensions_folder()?;
    match std::fs::remove_dir_all(&unpacked) {
        Ok(()) => println!("extension: removed {}", unpacked.display()),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            println!("extension: nothing to remove at {}", unpacked.display())
        }
        Err(error) => return Err(format!("cannot remove {}: {error}", unpacked.display())),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn manifests_name_only_this_extension() {
        let identity = ExtensionIdentity::compiled_in().expect("identity");
        let chrome = chrome_host_manifest(&identity, Path::new("/opt/allwright"));
        assert_eq!(
            chrome["allowed_origins"],
            json!([format!(
                "chrome-extension://{}/",
                identity.chrome_extension_id
            )])
        );
        assert_eq!(chrome["type"], "stdio");
        assert_eq!(chrome["path"], "/opt/allwright");
        assert!(chrome.get("allowed_extensions").is_none());
        let firefox = firefox_host_manifest(&identity, Path::new("/opt/allwright"));
        assert_eq!(firefox["allowed_extensions"], json!([identity.gecko_id]));
        assert_eq!(firefox["name"], json!(identity.native_host_name));
    }
}
