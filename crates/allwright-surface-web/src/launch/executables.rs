//! Where the browsers' and chromedriver's executables are: one list per operating system of the
//! places their packages install them, then the folders of `PATH`, unless an environment variable
//! names the executable. Every launcher and every test that starts a browser asks here, so a
//! machine that is not Debian finds its browsers the same way everywhere.
//!
//! The order within a list matters: a browser's real binary comes before a wrapper script that
//! starts it, because a wrapper may add flags of its own (Debian's `/usr/bin/chromium` adds an
//! empty `--load-extension=` and the flags of `/etc/chromium.d/`), and a known place comes before
//! `PATH`, so that a wrapper found on `PATH` is only the last resort.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// A program that allwright or its tests start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Program {
    /// Chromium, or Google Chrome where no Chromium is installed.
    Chromium,
    Firefox,
    /// The WebDriver classic server of Chromium, which the `--webdriver` tests start.
    Chromedriver,
}

impl Program {
    /// The environment variable that names the executable and turns the search off.
    pub fn override_variable(self) -> &'static str {
        match self {
            Self::Chromium => "ALLWRIGHT_CHROMIUM",
            Self::Firefox => "ALLWRIGHT_FIREFOX",
            Self::Chromedriver => "ALLWRIGHT_CHROMEDRIVER",
        }
    }

    fn display_name(self) -> &'static str {
        match self {
            Self::Chromium => "Chromium (or Google Chrome)",
            Self::Firefox => "Firefox",
            Self::Chromedriver => "chromedriver",
        }
    }
}

/// The operating systems whose install locations [`known_places`] lists. Every Unix other than
/// macOS uses the Linux list: the BSDs' ports install under `/usr/local/bin`, which is on `PATH`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OperatingSystem {
    Linux,
    MacOs,
    Windows,
}

impl OperatingSystem {
    /// The system this program was compiled for.
    pub fn current() -> Self {
        if cfg!(target_os = "macos") {
            Self::MacOs
        } else if cfg!(windows) {
            Self::Windows
        } else {
            Self::Linux
        }
    }
}

/// No executable of a program was found: what was tried, so that the message says where to
/// install it or which variable to set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExecutableNotFound {
    pub program: Program,
    /// The override's value when it was set: then nothing else was tried.
    pub override_value: Option<OsString>,
    /// Every path that was looked at, known places first, then `PATH`'s folders.
    pub tried: Vec<PathBuf>,
}

impl std::fmt::Display for ExecutableNotFound {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let variable = self.program.override_variable();
        if let Some(value) = &self.override_value {
            return write!(
                formatter,
                "{variable}={} names no executable file{}: set it to the path of {}'s executable",
                value.to_string_lossy(),
                if is_bare_name(value) {
                    " in any folder of PATH"
                } else {
                    ""
                },
                self.program.display_name(),
            );
        }
        let tried: Vec<String> = self
            .tried
            .iter()
            .map(|path| path.display().to_string())
            .collect();
        write!(
            formatter,
            "no {} found: install it, or set {variable} to its executable; tried {}",
            self.program.display_name(),
            tried.join(", ")
        )
    }
}

impl std::error::Error for ExecutableNotFound {}

/// The executable of `program` on this machine: `$ALLWRIGHT_<PROGRAM>` when it is set, else the
/// first of [`known_places`] and then of `PATH`'s folders that holds an executable file.
pub fn find_executable(program: Program) -> Result<PathBuf, ExecutableNotFound> {
    find_executable_with(program, OperatingSystem::current(), &|name| {
        std::env::var_os(name)
    })
}

/// [`find_executable`] for a given system and environment (the tests give their own).
fn find_executable_with(
    program: Program,
    system: OperatingSystem,
    variable: &dyn Fn(&str) -> Option<OsString>,
) -> Result<PathBuf, ExecutableNotFound> {
    let path_folders: Vec<PathBuf> = variable("PATH")
        .map(|path| std::env::split_paths(&path).collect())
        .unwrap_or_default();
    let override_value = variable(program.override_variable()).filter(|value| !value.is_empty());
    let candidates = match &override_value {
        // A bare name ("chromium-dev") is looked up on PATH as a shell would; anything with a
        // folder in it is taken as it is. An override that names nothing is an error, not a
        // reason to start some other browser than the one asked for.
        Some(value) if is_bare_name(value) => path_folders
            .iter()
            .map(|folder| folder.join(value))
            .collect(),
        Some(value) => vec![PathBuf::from(value)],
        None => known_places(program, system, variable)
            .into_iter()
            .chain(path_folders.iter().flat_map(|folder| {
                names_on_path(program, system)
                    .iter()
                    .map(move |name| folder.join(name))
            }))
            .collect(),
    };
    match candidates.iter().find(|path| is_executable_file(path)) {
        Some(found) => Ok(found.clone()),
        None => Err(ExecutableNotFound {
            program,
            override_value,
            tried: candidates,
        }),
    }
}

/// Whether an override is a file name without a folder ("chromium-dev"), which a shell would
/// look up on `PATH`.
fn is_bare_name(value: &OsString) -> bool {
    Path::new(value).components().count() == 1 && !Path::new(value).has_root()
}

/// The file names a program has in a folder of `PATH`, most specific first.
fn names_on_path(program: Program, system: OperatingSystem) -> &'static [&'static str] {
    match (program, system) {
        (Program::Chromium, OperatingSystem::Windows) => &["chrome.exe", "chromium.exe"],
        // Debian and Arch: chromium; Fedora and older Ubuntu: chromium-browser; Google's
        // packages: google-chrome-stable with google-chrome as its alias.
        (Program::Chromium, _) => &[
            "chromium",
            "chromium-browser",
            "google-chrome-stable",
            "google-chrome",
        ],
        (Program::Firefox, OperatingSystem::Windows) => &["firefox.exe"],
        // Debian's ESR first: the version allwright's Firefox support is tested with.
        (Program::Firefox, _) => &["firefox-esr", "firefox"],
        (Program::Chromedriver, OperatingSystem::Windows) => &["chromedriver.exe"],
        (Program::Chromedriver, _) => &["chromedriver"],
    }
}

/// Where each system's packages install a program, real binaries before the wrappers that start
/// them. Windows' folders come from its environment (`%ProgramFiles%`, `%LOCALAPPDATA%`), and
/// macOS's per-user `~/Applications` from `HOME`.
pub fn known_places(
    program: Program,
    system: OperatingSystem,
    variable: &dyn Fn(&str) -> Option<OsString>,
) -> Vec<PathBuf> {
    let under = |variable_name: &str, relative: &[&str]| -> Option<PathBuf> {
        let base = variable(variable_name).filter(|value| !value.is_empty())?;
        Some(
            relative
                .iter()
                .fold(PathBuf::from(base), |path, part| path.join(part)),
        )
    };
    match (program, system) {
        (Program::Chromium, OperatingSystem::Linux) => paths(&[
            // Debian, Ubuntu's deb and Arch: the binary that /usr/bin/chromium starts.
            "/usr/lib/chromium/chromium",
            // Fedora: the binary behind its /usr/bin/chromium-browser script.
            "/usr/lib64/chromium-browser/chromium-browser",
            "/usr/lib/chromium-browser/chromium-browser",
            // Google Chrome's deb and rpm: the binary behind /usr/bin/google-chrome.
            "/opt/google/chrome/chrome",
            "/usr/bin/chromium",
            "/usr/bin/chromium-browser",
            "/usr/bin/google-chrome-stable",
            "/usr/bin/google-chrome",
        ]),
        (Program::Chromium, OperatingSystem::MacOs) => {
            let bundles = [
                ["Chromium.app", "Contents", "MacOS", "Chromium"],
                ["Google Chrome.app", "Contents", "MacOS", "Google Chrome"],
            ];
            mac_applications(&bundles, &under)
        }
        (Program::Chromium, OperatingSystem::Windows) => [
            // Chromium's installer is per user; Chrome's is per machine unless the user lacks
            // the rights, then per user.
            under("LOCALAPPDATA", &["Chromium", "Application", "chrome.exe"]),
            under(
                "ProgramFiles",
                &["Google", "Chrome", "Application", "chrome.exe"],
            ),
            under(
                "ProgramFiles(x86)",
                &["Google", "Chrome", "Application", "chrome.exe"],
            ),
            under(
                "LOCALAPPDATA",
                &["Google", "Chrome", "Application", "chrome.exe"],
            ),
        ]
        .into_iter()
        .flatten()
        .collect(),
        (Program::Firefox, OperatingSystem::Linux) => paths(&[
            // Debian's ESR, as the launchers always found it, then its real binary.
            "/usr/bin/firefox-esr",
            "/usr/lib/firefox-esr/firefox-esr",
            // Fedora's and Arch's binary (their /usr/bin/firefox is a script that starts it),
            // then Mozilla's own tarball where its instructions unpack it.
            "/usr/lib64/firefox/firefox",
            "/usr/lib/firefox/firefox",
            "/opt/firefox/firefox",
            "/usr/bin/firefox",
        ]),
        (Program::Firefox, OperatingSystem::MacOs) => {
            mac_applications(&[["Firefox.app", "Contents", "MacOS", "firefox"]], &under)
        }
        (Program::Firefox, OperatingSystem::Windows) => [
            under("ProgramFiles", &["Mozilla Firefox", "firefox.exe"]),
            under("ProgramFiles(x86)", &["Mozilla Firefox", "firefox.exe"]),
        ]
        .into_iter()
        .flatten()
        .collect(),
        (Program::Chromedriver, OperatingSystem::Linux) => paths(&[
            // Debian's chromium-driver and Fedora's chromedriver packages.
            "/usr/bin/chromedriver",
            "/usr/lib/chromium/chromedriver",
            "/usr/lib64/chromium-browser/chromedriver",
        ]),
        // Homebrew's cask links it into its prefix's bin: Apple silicon, then Intel.
        (Program::Chromedriver, OperatingSystem::MacOs) => paths(&[
            "/opt/homebrew/bin/chromedriver",
            "/usr/local/bin/chromedriver",
        ]),
        // chromedriver has no installer on Windows: it is wherever PATH says.
        (Program::Chromedriver, OperatingSystem::Windows) => Vec::new(),
    }
}

fn paths(places: &[&str]) -> Vec<PathBuf> {
    places.iter().map(PathBuf::from).collect()
}

/// An application bundle's executable in `/Applications`, then in the user's own
/// `~/Applications` (where a drag-and-drop install without administrator rights puts it).
fn mac_applications(
    bundles: &[[&str; 4]],
    under: &dyn Fn(&str, &[&str]) -> Option<PathBuf>,
) -> Vec<PathBuf> {
    let system_wide = bundles.iter().map(|bundle| {
        bundle
            .iter()
            .fold(PathBuf::from("/Applications"), |path, part| path.join(part))
    });
    let per_user = bundles.iter().filter_map(|bundle| {
        let relative: Vec<&str> = std::iter::once("Applications")
            .chain(bundle.iter().copied())
            .collect();
        under("HOME", &relative)
    });
    system_wide.chain(per_user).collect()
}

/// A file that this user may execute. On Windows every file counts: its executables are known by
/// their `.exe` name, which the candidates already carry.
fn is_executable_file(path: &Path) -> bool {
    let Ok(metadata) = std::fs::metadata(path) else {
        return false;
    };
    if !metadata.is_file() {
        return false;
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        metadata.permissions().mode() & 0o111 != 0
    }
    #[cfg(not(unix))]
    {
        true
    }
}

/// The executable `ChromiumLaunchOptions`/`FirefoxLaunchOptions` start: the one they were given,
/// else the one found here.
pub(super) fn given_or_found(
    given: Option<&Path>,
    program: Program,
) -> Result<PathBuf, ExecutableNotFound> {
    match given {
        Some(path) => Ok(path.to_path_buf()),
        None => find_executable(program),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsStr;

    /// The value of an environment variable as a test gives it.
    fn fake_environment<'a>(
        pairs: &'a [(&'a str, &'a OsStr)],
    ) -> impl Fn(&str) -> Option<OsString> + 'a {
        move |name| {
            pairs
                .iter()
                .find(|(key, _)| *key == name)
                .map(|(_, value)| value.to_os_string())
        }
    }

    /// Writes an executable file (or, with `executable` false, a plain one) at `path`.
    fn write_program(path: &Path, executable: bool) {
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("folder");
        std::fs::write(path, "#!/bin/sh\n").expect("write");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = if executable { 0o755 } else { 0o644 };
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).expect("chmod");
        }
    }

    fn joined_path(folders: &[&Path]) -> OsString {
        std::env::join_paths(folders).expect("a PATH")
    }

    #[test]
    fn path_is_searched_folder_by_folder_and_in_each_folder_name_by_name() {
        let root = tempfile::tempdir().expect("temp dir");
        let first = root.path().join("first");
        let second = root.path().join("second");
        // The first folder has the first name only as a file that is not executable, and the
        // second name as an executable: the first folder still wins, with its executable.
        write_program(&first.join("chrome.exe"), false);
        write_program(&first.join("chromium.exe"), true);
        write_program(&second.join("chrome.exe"), true);
        let path = joined_path(&[&first, &second]);
        let environment = [("PATH", path.as_os_str())];
        // Windows' known places come from %ProgramFiles% and %LOCALAPPDATA%, which this
        // environment does not set, so PATH alone is searched (Linux's known places are real
        // paths of the machine that runs the test).
        let found = find_executable_with(
            Program::Chromium,
            OperatingSystem::Windows,
            &fake_environment(&environment),
        );
        assert_eq!(found, Ok(first.join("chromium.exe")));
        std::fs::remove_file(first.join("chromium.exe")).expect("remove");
        let found = find_executable_with(
            Program::Chromium,
            OperatingSystem::Windows,
            &fake_environment(&environment),
        );
        assert_eq!(found, Ok(second.join("chrome.exe")));
    }

    #[test]
    fn windows_program_folders_come_from_the_environment_and_precede_path() {
        let root = tempfile::tempdir().expect("temp dir");
        let program_files = root.path().join("Program Files");
        let on_path = root.path().join("bin");
        let installed = program_files.join("Mozilla Firefox").join("firefox.exe");
        write_program(&installed, true);
        write_program(&on_path.join("firefox.exe"), true);
        let path = joined_path(&[&on_path]);
        let environment = [
            ("PATH", path.as_os_str()),
            ("ProgramFiles", program_files.as_os_str()),
        ];
        let found = find_executable_with(
            Program::Firefox,
            OperatingSystem::Windows,
            &fake_environment(&environment),
        );
        assert_eq!(found, Ok(installed.clone()));
        // Without the installed one, PATH's.
        std::fs::remove_file(&installed).expect("remove");
        let found = find_executable_with(
            Program::Firefox,
            OperatingSystem::Windows,
            &fake_environment(&environment),
        );
        assert_eq!(found, Ok(on_path.join("firefox.exe")));
    }

    #[test]
    fn an_override_with_a_folder_is_taken_as_it_is_and_never_falls_back() {
        let root = tempfile::tempdir().expect("temp dir");
        let own_build = root.path().join("out").join("chrome");
        let on_path = root.path().join("bin");
        write_program(&on_path.join("chromium"), true);
        let path = joined_path(&[&on_path]);
        let environment = [
            ("PATH", path.as_os_str()),
            ("ALLWRIGHT_CHROMIUM", own_build.as_os_str()),
        ];
        let missing = find_executable_with(
            Program::Chromium,
            OperatingSystem::Linux,
            &fake_environment(&environment),
        )
        .expect_err("the override names nothing yet");
        assert_eq!(missing.tried, vec![own_build.clone()]);
        let message = missing.to_string();
        assert!(
            message.starts_with("ALLWRIGHT_CHROMIUM=") && message.contains("names no executable"),
            "{message}"
        );
        write_program(&own_build, true);
        let found = find_executable_with(
            Program::Chromium,
            OperatingSystem::Linux,
            &fake_environment(&environment),
        );
        assert_eq!(found, Ok(own_build));
    }

    #[test]
    fn an_override_with_a_bare_name_is_looked_up_on_path_only() {
        let root = tempfile::tempdir().expect("temp dir");
        let on_path = root.path().join("bin");
        write_program(&on_path.join("firefox-nightly"), true);
        let path = joined_path(&[&on_path]);
        let environment = [
            ("PATH", path.as_os_str()),
            ("ALLWRIGHT_FIREFOX", OsStr::new("firefox-nightly")),
        ];
        let found = find_executable_with(
            Program::Firefox,
            OperatingSystem::Linux,
            &fake_environment(&environment),
        );
        assert_eq!(found, Ok(on_path.join("firefox-nightly")));
        let environment = [
            ("PATH", path.as_os_str()),
            ("ALLWRIGHT_FIREFOX", OsStr::new("firefox-beta")),
        ];
        let message = find_executable_with(
            Program::Firefox,
            OperatingSystem::Linux,
            &fake_environment(&environment),
        )
        .expect_err("no firefox-beta on PATH")
        .to_string();
        assert!(
            message.starts_with(
                "ALLWRIGHT_FIREFOX=firefox-beta names no executable file in any folder of PATH"
            ),
            "{message}"
        );
    }

    #[test]
    fn an_empty_search_names_every_place_it_tried_and_the_variable_to_set() {
        let root = tempfile::tempdir().expect("temp dir");
        let empty = root.path().join("empty");
        let path = joined_path(&[&empty]);
        let environment = [("PATH", path.as_os_str())];
        let error = find_executable_with(
            Program::Chromium,
            OperatingSystem::Windows,
            &fake_environment(&environment),
        )
        .expect_err("nothing is installed");
        assert_eq!(
            error.tried,
            vec![empty.join("chrome.exe"), empty.join("chromium.exe")]
        );
        let message = error.to_string();
        assert!(message.contains("set ALLWRIGHT_CHROMIUM"), "{message}");
        assert!(
            message.contains(&empty.join("chromium.exe").display().to_string()),
            "{message}"
        );
    }

    #[test]
    fn each_system_lists_its_usual_places_with_real_binaries_before_wrappers() {
        let no_variables = |_: &str| None;
        let linux_chromium = known_places(Program::Chromium, OperatingSystem::Linux, &no_variables);
        let position = |places: &[PathBuf], place: &str| {
            places
                .iter()
                .position(|candidate| candidate == Path::new(place))
                .unwrap_or_else(|| panic!("{place} in {places:?}"))
        };
        // Debian's wrapper adds flags: its real binary comes first.
        assert!(
            position(&linux_chromium, "/usr/lib/chromium/chromium")
                < position(&linux_chromium, "/usr/bin/chromium")
        );
        assert!(
            position(&linux_chromium, "/opt/google/chrome/chrome")
                < position(&linux_chromium, "/usr/bin/google-chrome")
        );
        position(&linux_chromium, "/usr/bin/chromium-browser");
        let linux_firefox = known_places(Program::Firefox, OperatingSystem::Linux, &no_variables);
        assert_eq!(linux_firefox[0], Path::new("/usr/bin/firefox-esr"));
        let home = [("HOME", OsStr::new("/Users/someone"))];
        let mac_chromium = known_places(
            Program::Chromium,
            OperatingSystem::MacOs,
            &fake_environment(&home),
        );
        assert_eq!(
            mac_chromium,
            paths(&[
                "/Applications/Chromium.app/Contents/MacOS/Chromium",
                "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
                "/Users/someone/Applications/Chromium.app/Contents/MacOS/Chromium",
                "/Users/someone/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
            ])
        );
        let mac_firefox = known_places(Program::Firefox, OperatingSystem::MacOs, &no_variables);
        assert_eq!(
            mac_firefox,
            paths(&["/Applications/Firefox.app/Contents/MacOS/firefox"])
        );
        // Unset Windows folders are left out rather than guessed.
        let windows = [("ProgramFiles", OsStr::new("C:/Program Files"))];
        let windows_chromium = known_places(
            Program::Chromium,
            OperatingSystem::Windows,
            &fake_environment(&windows),
        );
        assert_eq!(
            windows_chromium,
            vec![PathBuf::from("C:/Program Files")
                .join("Google")
                .join("Chrome")
                .join("Application")
                .join("chrome.exe")]
        );
    }
}
