//! `allwright install` / `uninstall` against a temporary HOME.

use std::process::Command;

use serde_json::Value;

fn run(home: &std::path::Path, command: &str) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_allwright"))
        .arg(command)
        .env("HOME", home)
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("XDG_DATA_HOME")
        .output()
        .expect("run allwright");
    assert!(
        output.status.success(),
        "{command}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn install_writes_three_manifests_idempotently_and_uninstall_removes_them() {
    let home = tempfile::tempdir().expect("temp HOME");
    let chrome = home
        .path()
        .join(".config/google-chrome/NativeMessagingHosts/dev.allwright.host.json");
    let chromium = home
        .path()
        .join(".config/chromium/NativeMessagingHosts/dev.allwright.host.json");
    let firefox = home
        .path()
        .join(".mozilla/native-messaging-hosts/dev.allwright.host.json");
    let first = run(home.path(), "install");
    let second = run(home.path(), "install");
    assert_eq!(
        first, second,
        "installing twice does and says the same thing"
    );
    for path in [&chrome, &chromium, &firefox] {
        assert!(first.contains(&path.display().to_string()), "{first}");
        let manifest: Value =
            serde_json::from_str(&std::fs::read_to_string(path).expect("manifest")).expect("JSON");
        assert_eq!(manifest["name"], "dev.allwright.host");
        assert_eq!(manifest["type"], "stdio");
        let host_path = manifest["path"].as_str().expect("path");
        assert!(std::path::Path::new(host_path).is_absolute());
    }
    let chrome_manifest: Value =
        serde_json::from_str(&std::fs::read_to_string(&chrome).expect("manifest")).expect("JSON");
    assert_eq!(
        chrome_manifest["allowed_origins"],
        serde_json::json!(["chrome-extension://oocdjjlhboaefebdlfjodhaelmmedgec/"])
    );
    let firefox_manifest: Value =
        serde_json::from_str(&std::fs::read_to_string(&firefox).expect("manifest")).expect("JSON");
    assert_eq!(
        firefox_manifest["allowed_extensions"],
        serde_json::json!(["allwright@allwright.dev"])
    );

    // A binary built with the extension unpacks it under the user's data folder and says where
    // to load it from; one built without says how to build it.
    let unpacked = home.path().join(".local/share/allwright/extension");
    let embedded = first.contains("Load the extension from");
    if embedded {
        for flavour in ["chrome", "firefox"] {
            let folder = first
                .lines()
                .filter_map(|line| line.strip_prefix("Load the extension from "))
                .filter_map(|rest| rest.split(' ').next())
                .find(|folder| folder.ends_with(flavour))
                .unwrap_or_else(|| panic!("a {flavour} folder in: {first}"));
            assert!(
                folder.starts_with(&unpacked.display().to_string()),
                "{folder}"
            );
            assert!(std::path::Path::new(folder).join("manifest.json").is_file());
        }
    } else {
        assert!(first.contains("carries no extension"), "{first}");
    }

    run(home.path(), "uninstall");
    for path in [&chrome, &chromium, &firefox] {
        assert!(!path.exists(), "{} removed", path.display());
    }
    assert!(!unpacked.exists(), "the unpacked extension removed");
    assert!(run(home.path(), "uninstall").contains("nothing to remove"));
}
