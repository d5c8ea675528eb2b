//! Diagnostics for people, never on stdout: stdout is the native-messaging channel in host mode
//! and the MCP channel in `allwright mcp`. Lines go to stderr (the browser shows a host's stderr
//! in its own log) and, when `ALLWRIGHT_LOG_FILE` names a file, are appended there too.
//!
//! Lines say what happened, never what a page or an agent sent (docs/protocol/action-safety.md, "Secrets stay
//! secret"): no argument, result, page text or error message of a tool call is logged. The file
//! is created mode 0600, and one that exists is narrowed to 0600 through the opened descriptor;
//! a symlink in its place is not followed.

use std::io::Write;
use std::sync::{Mutex, OnceLock};

pub const LOG_FILE_ENVIRONMENT_VARIABLE: &str = "ALLWRIGHT_LOG_FILE";

struct Logger {
    component: &'static str,
    file: Option<Mutex<std::fs::File>>,
}

static LOGGER: OnceLock<Logger> = OnceLock::new();

/// Names the running component (`host`, `mcp`, ...) in every line and opens the log file.
pub fn init(component: &'static str) {
    let file = std::env::var_os(LOG_FILE_ENVIRONMENT_VARIABLE)
        .filter(|path| !path.is_empty())
        .and_then(|path| open_private_log(std::path::Path::new(&path)).ok())
        .map(Mutex::new);
    let _ = LOGGER.set(Logger { component, file });
}

/// Opens (creating it mode 0600) the log file for appending. An existing file readable by others
/// is narrowed to 0600 through the descriptor (fchmod: a swap of the path changes nothing); a
/// symlink is refused (O_NOFOLLOW), so the log cannot be pointed at another file.
pub fn open_private_log(path: &std::path::Path) -> std::io::Result<std::fs::File> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .mode(0o600)
            .custom_flags(rustix::fs::OFlags::NOFOLLOW.bits() as i32)
            .open(path)?;
        let metadata = file.metadata()?;
        if metadata.permissions().mode() & 0o077 != 0 {
            file.set_permissions(std::fs::Permissions::from_mode(0o600))?;
        }
        Ok(file)
    }
    #[cfg(not(unix))]
    {
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
    }
}

pub fn log(message: std::fmt::Arguments<'_>) {
    let component = LOGGER.get().map_or("allwright", |logger| logger.component);
    let line = format!(
        "allwright {component} [{}]: {message}\n",
        std::process::id()
    );
    let _ = std::io::stderr().write_all(line.as_bytes());
    if let Some(file) = LOGGER.get().and_then(|logger| logger.file.as_ref()) {
        let mut file = file
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let _ = file.write_all(line.as_bytes());
    }
}

/// `log!("...", args)`: one diagnostic line to stderr and the optional log file.
#[macro_export]
macro_rules! log {
    ($($argument:tt)*) => {
        $crate::logging::log(format_args!($($argument)*))
    };
}

#[cfg(all(test, unix))]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::open_private_log;

    #[test]
    fn the_log_file_is_private_and_never_a_symlink() {
        let folder = tempfile::tempdir().expect("folder");
        let path = folder.path().join("host.log");
        drop(open_private_log(&path).expect("created"));
        let mode = std::fs::metadata(&path).expect("log").permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "a new log is 0600");

        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).expect("chmod");
        drop(open_private_log(&path).expect("opened"));
        let mode = std::fs::metadata(&path).expect("log").permissions().mode() & 0o777;
        assert_eq!(
            mode, 0o600,
            "an existing log readable by others is narrowed"
        );

        let elsewhere = folder.path().join("elsewhere");
        std::fs::write(&elsewhere, "").expect("target");
        std::fs::set_permissions(&elsewhere, std::fs::Permissions::from_mode(0o644))
            .expect("chmod");
        let link = folder.path().join("link.log");
        std::os::unix::fs::symlink(&elsewhere, &link).expect("symlink");
        assert!(open_private_log(&link).is_err(), "a symlink is refused");
        let mode = std::fs::metadata(&elsewhere)
            .expect("target")
            .permissions()
            .mode()
            & 0o777;
        assert_eq!(mode, 0o644, "the symlink's target is untouched");
    }
}
