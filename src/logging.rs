//! Diagnostics for people, never on stdout: stdout is the native-messaging channel in host mode
//! and the MCP channel in `allwright mcp`. Lines go to stderr (the browser shows a host's stderr
//! in its own log) and, when `ALLWRIGHT_LOG_FILE` names a file, are appended there too.

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
        .and_then(|path| {
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .ok()
        })
        .map(Mutex::new);
    let _ = LOGGER.set(Logger { component, file });
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
