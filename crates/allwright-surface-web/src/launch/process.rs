//! A child process in a process group of its own, so that everything it starts (Chromium's
//! renderers and zygotes, Firefox's content processes, the native host they spawn) can be ended
//! together.

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use rustix::process::{kill_process_group, Pid, Signal};
use tokio::process::{Child, Command};

pub(crate) struct ProcessGroup {
    child: Child,
    /// The group id (the leader's pid); `None` once the group has been ended.
    group: Option<Pid>,
    /// What the browser uses for as long as it runs (Firefox's SOCKS proxy and its folder):
    /// dropped when the group is ended, after its processes.
    attachments: Vec<Box<dyn std::any::Any + Send + Sync>>,
}

impl ProcessGroup {
    /// Starts `command` as the leader of a new process group. Its output goes to `log_path`
    /// (appended) when given, so that a failed launch can show the browser's own words.
    pub(crate) fn spawn(command: Command, log_path: Option<&Path>) -> Result<Self, std::io::Error> {
        // Standard output goes to the same log as standard error, through a descriptor of its
        // own (both append, so their lines interleave whole).
        let standard_output = match log_path {
            Some(path) => Stdio::from(open_log(path)?),
            None => Stdio::null(),
        };
        Self::spawn_with_standard_io(command, Stdio::null(), standard_output, log_path)
    }

    /// Keeps `attachment` until the group is ended (see `attachments`).
    pub(crate) fn keep_until_ended(&mut self, attachment: Box<dyn std::any::Any + Send + Sync>) {
        self.attachments.push(attachment);
    }

    /// As [`ProcessGroup::spawn`], with the child's standard input and output given by the
    /// caller (the Chromium launcher passes the ends of its CDP pipe this way); its standard
    /// error goes to `log_path` (appended) when given.
    pub(crate) fn spawn_with_standard_io(
        mut command: Command,
        standard_input: Stdio,
        standard_output: Stdio,
        log_path: Option<&Path>,
    ) -> Result<Self, std::io::Error> {
        command
            .process_group(0)
            .stdin(standard_input)
            .stdout(standard_output)
            .kill_on_drop(true);
        command.stderr(match log_path {
            Some(path) => Stdio::from(open_log(path)?),
            None => Stdio::null(),
        });
        // The command (and with it the parent's copy of the child's pipe ends) is dropped when
        // this returns, so that the parent sees the end of the pipe when the child exits.
        let child = command.spawn()?;
        let group = child
            .id()
            .and_then(|id| i32::try_from(id).ok())
            .and_then(Pid::from_raw);
        Ok(Self {
            child,
            group,
            attachments: Vec::new(),
        })
    }

    /// Whether the leader has exited (without waiting).
    pub(crate) fn has_exited(&mut self) -> bool {
        !matches!(self.child.try_wait(), Ok(None))
    }

    /// Waits up to `grace` for the leader to exit by itself, then sends SIGTERM to the whole
    /// group, waits up to `grace` again, and finally SIGKILLs the group.
    pub(crate) async fn terminate(&mut self, grace: Duration) {
        let Some(group) = self.group else { return };
        if tokio::time::timeout(grace, self.child.wait())
            .await
            .is_err()
        {
            let _ = kill_process_group(group, Signal::TERM);
            if tokio::time::timeout(grace, self.child.wait())
                .await
                .is_err()
            {
                let _ = kill_process_group(group, Signal::KILL);
                let _ = self.child.wait().await;
            }
        }
        // The leader is gone; stragglers in its group (a renderer, a native host) go too.
        let _ = kill_process_group(group, Signal::KILL);
        self.group = None;
        self.attachments.clear();
    }
}

impl Drop for ProcessGroup {
    fn drop(&mut self) {
        if let Some(group) = self.group.take() {
            let _ = kill_process_group(group, Signal::KILL);
        }
    }
}

/// The log at `path`, opened for appending (made when missing).
fn open_log(path: &Path) -> std::io::Result<std::fs::File> {
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
}
