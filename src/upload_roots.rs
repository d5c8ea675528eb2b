//! Which files `upload_file` may hand to a page (docs/security.md, "Files the agent uploads"):
//! only regular files inside the folders the person named with `allwright mcp --upload-root DIR`,
//! reached without leaving them through a link, none of them secret-looking, within the size caps.
//!
//! A path the agent gives is never opened outside a root, whatever it says: `..` is refused
//! before anything is opened, an absolute path is taken only when it starts with a root, and the
//! rest is opened from the root's own descriptor with `openat2(RESOLVE_BENEATH)` (Linux 5.6 and
//! later), which follows a link only while it stays below the root, or, where the system has no
//! `openat2`, component by component with `O_NOFOLLOW` (no link at all). The file is checked on
//! the descriptor that was opened (`fstat`: a regular file, its size) and read from it, so nothing
//! can swap it between the check and the read. Where the file really is (`/proc/self/fd`) is
//! checked again for secret-looking names, so that a link inside a root cannot reach a root's
//! `.ssh` folder either.

use std::ffi::OsStr;
use std::fs::File;
use std::io::Read;
use std::os::fd::{AsFd, OwnedFd};
use std::path::{Component, Path, PathBuf};

use rustix::fs::{Mode, OFlags};

use crate::tool_error::ToolError;

/// The largest file upload_file hands to a page.
pub const MAX_FILE_BYTES: u64 = 10 * 1024 * 1024;
/// The most bytes of one upload_file call, all its files together: the extension's route carries
/// them as base64 through the host (chunked toward the browser, src/native_messaging.rs) and a
/// message to the page's frame, and 25 MiB stays well inside every bound on that way.
pub const MAX_CALL_BYTES: u64 = 25 * 1024 * 1024;

/// Names that say a file or folder holds credentials, compared without case: a component of the
/// path below a root that is one of these, or starts with one followed by `.` (`.env.local`,
/// `id_rsa.pub`), is refused. The roots themselves are the person's choice and are not checked.
const SECRET_NAMES: &[&str] = &[
    ".ssh",
    ".gnupg",
    ".gpg",
    ".aws",
    ".azure",
    ".kube",
    ".docker",
    ".password-store",
    ".env",
    ".netrc",
    ".pgpass",
    ".git-credentials",
    ".npmrc",
    ".pypirc",
    ".htpasswd",
    "id_rsa",
    "id_dsa",
    "id_ecdsa",
    "id_ed25519",
    "credentials",
    "credentials.json",
    "secrets",
    "keychain",
    "login.keychain-db",
];

/// Extensions that name key material or a credential store (a component ending in `.<this>`).
const SECRET_EXTENSIONS: &[&str] = &["pem", "key", "p12", "pfx", "kdbx", "keystore", "jks"];

/// Whether one path component looks like a credential (see [`SECRET_NAMES`]).
fn is_secret_looking(component: &OsStr) -> bool {
    let name = component.to_string_lossy().to_lowercase();
    let named = SECRET_NAMES.iter().any(|secret| {
        name == *secret
            || name
                .strip_prefix(secret)
                .is_some_and(|rest| rest.starts_with('.'))
    });
    let extension = name.rsplit_once('.').map(|(_, extension)| extension);
    named || extension.is_some_and(|extension| SECRET_EXTENSIONS.contains(&extension))
}

/// The MIME type a browser gives a file of this name (the `type` of its `File`), by extension;
/// "" for one it does not know, as browsers do.
pub fn mime_type_of(name: &str) -> &'static str {
    let extension = name
        .rsplit_once('.')
        .map(|(_, extension)| extension.to_ascii_lowercase())
        .unwrap_or_default();
    match extension.as_str() {
        "txt" | "text" | "log" => "text/plain",
        "csv" => "text/csv",
        "tsv" => "text/tab-separated-values",
        "htm" | "html" => "text/html",
        "css" => "text/css",
        "js" | "mjs" => "text/javascript",
        "md" | "markdown" => "text/markdown",
        "ics" => "text/calendar",
        "json" => "application/json",
        "xml" => "text/xml",
        "pdf" => "application/pdf",
        "zip" => "application/zip",
        "gz" | "tgz" => "application/gzip",
        "tar" => "application/x-tar",
        "7z" => "application/x-7z-compressed",
        "rtf" => "application/rtf",
        "doc" => "application/msword",
        "docx" => "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        "xls" => "application/vnd.ms-excel",
        "xlsx" => "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        "ppt" => "application/vnd.ms-powerpoint",
        "pptx" => "application/vnd.openxmlformats-officedocument.presentationml.presentation",
        "odt" => "application/vnd.oasis.opendocument.text",
        "ods" => "application/vnd.oasis.opendocument.spreadsheet",
        "odp" => "application/vnd.oasis.opendocument.presentation",
        "png" => "image/png",
        "jpg" | "jpeg" | "jfif" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "avif" => "image/avif",
        "svg" => "image/svg+xml",
        "bmp" => "image/bmp",
        "ico" => "image/x-icon",
        "tif" | "tiff" => "image/tiff",
        "heic" => "image/heic",
        "mp3" => "audio/mpeg",
        "wav" => "audio/wav",
        "ogg" | "oga" => "audio/ogg",
        "m4a" => "audio/mp4",
        "flac" => "audio/flac",
        "mp4" | "m4v" => "video/mp4",
        "webm" => "video/webm",
        "mov" => "video/quicktime",
        "ogv" => "video/ogg",
        "wasm" => "application/wasm",
        _ => "",
    }
}

/// One folder the person allowed.
struct UploadRoot {
    /// The folder as the person wrote it, made absolute (an agent may spell its files that way).
    given: PathBuf,
    /// The same folder with its links resolved: where it is, and how paths inside it read.
    real: PathBuf,
    /// The folder itself, held open for the session: everything is opened beneath it.
    directory: OwnedFd,
}

/// The folders of `--upload-root`, opened once when the server starts.
pub struct UploadRoots {
    roots: Vec<UploadRoot>,
}

/// One file the agent named, opened and checked, not yet read.
pub struct CheckedFile {
    /// The path as the agent gave it (for replies).
    pub given: String,
    /// Where the file really is (for the browser's own `input.setFiles`, which takes paths).
    pub real_path: PathBuf,
    /// Its name, as the page's `File.name` shows it.
    pub name: String,
    /// Its MIME type, by extension ([`mime_type_of`]).
    pub mime_type: &'static str,
    pub size: u64,
    /// Modification time in milliseconds since the epoch (`File.lastModified`).
    pub last_modified_ms: u64,
    file: File,
}

impl CheckedFile {
    /// The file's bytes, read from the descriptor that was checked: at most the size it had then
    /// (a file that grew since is cut there, one that shrank is refused).
    pub fn read(&mut self) -> Result<Vec<u8>, ToolError> {
        let mut bytes = Vec::with_capacity(self.size as usize);
        (&mut self.file)
            .take(self.size)
            .read_to_end(&mut bytes)
            .map_err(|error| ToolError::upload_file_unreadable(&self.given, &error.to_string()))?;
        if (bytes.len() as u64) != self.size {
            return Err(ToolError::upload_file_unreadable(
                &self.given,
                "it changed while it was read",
            ));
        }
        Ok(bytes)
    }
}

impl UploadRoots {
    /// Opens each folder. Fails (at start-up) for one that is not a folder or cannot be opened.
    pub fn open(folders: &[PathBuf]) -> Result<Self, String> {
        let mut roots = Vec::new();
        for folder in folders {
            let given = std::path::absolute(folder)
                .map_err(|error| format!("--upload-root {}: {error}", folder.display()))?;
            let real = std::fs::canonicalize(&given)
                .map_err(|error| format!("--upload-root {}: {error}", folder.display()))?;
            let directory = rustix::fs::open(
                &real,
                OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
                Mode::empty(),
            )
            .map_err(|error| {
                format!(
                    "--upload-root {}: not a folder that can be opened ({error})",
                    folder.display()
                )
            })?;
            roots.push(UploadRoot {
                given,
                real,
                directory,
            });
        }
        if roots.is_empty() {
            return Err("no --upload-root was given".into());
        }
        Ok(Self { roots })
    }

    /// The roots, as the errors name them.
    pub fn describe(&self) -> String {
        self.roots
            .iter()
            .map(|root| root.real.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Opens and checks every path of one call: each inside a root, a regular file of at most
    /// [`MAX_FILE_BYTES`], all together at most [`MAX_CALL_BYTES`]. The first refusal ends the
    /// call: nothing is read before every file passed.
    pub fn check_all(&self, paths: &[String]) -> Result<Vec<CheckedFile>, ToolError> {
        let mut files = Vec::with_capacity(paths.len());
        let mut total = 0u64;
        for path in paths {
            let file = self.check(path)?;
            total += file.size;
            if total > MAX_CALL_BYTES {
                return Err(ToolError::file_too_large(
                    path,
                    &format!(
                        "the files of one call hold more than {} MiB together",
                        MAX_CALL_BYTES / (1024 * 1024)
                    ),
                ));
            }
            files.push(file);
        }
        Ok(files)
    }

    /// Opens one path the agent gave, inside a root, and checks it.
    pub fn check(&self, given: &str) -> Result<CheckedFile, ToolError> {
        let outside =
            |why: &str| ToolError::path_outside_upload_roots(given, why, &self.describe());
        if given.is_empty() || given.contains('\0') {
            return Err(outside("it is empty or holds a NUL character"));
        }
        let path = Path::new(given);
        // A parent step is refused before anything is opened, whether or not it would stay
        // inside: it is never needed to name a file inside a root.
        if path
            .components()
            .any(|component| component == Component::ParentDir)
        {
            return Err(outside("it holds a `..` step"));
        }
        let candidates: Vec<(&UploadRoot, PathBuf)> = if path.is_absolute() {
            self.roots
                .iter()
                .filter_map(|root| {
                    [&root.real, &root.given].into_iter().find_map(|prefix| {
                        path.strip_prefix(prefix)
                            .ok()
                            .map(|rest| (root, rest.to_path_buf()))
                    })
                })
                .collect()
        } else {
            self.roots
                .iter()
                .map(|root| (root, path.to_path_buf()))
                .collect()
        };
        if candidates.is_empty() {
            return Err(outside("it is not inside any of them"));
        }
        let mut last_error = None;
        for (root, inside) in candidates {
            match open_beneath(root, &inside, given, &self.describe()) {
                Ok(file) => return Ok(file),
                // A relative path is looked for in each root in turn.
                Err(error) if error.code == crate::tool_error::codes::FILE_NOT_FOUND => {
                    last_error = Some(error)
                }
                Err(error) => return Err(error),
            }
        }
        Err(last_error.unwrap_or_else(|| outside("it is not inside any of them")))
    }
}

/// Opens `inside` (relative, without `..`) beneath `root`, then checks what was opened.
fn open_beneath(
    root: &UploadRoot,
    inside: &Path,
    given: &str,
    roots: &str,
) -> Result<CheckedFile, ToolError> {
    let components: Vec<&OsStr> = inside
        .components()
        .filter_map(|component| match component {
            Component::Normal(name) => Some(name),
            _ => None,
        })
        .collect();
    if components.is_empty() {
        return Err(ToolError::not_a_regular_file(
            given,
            "it names the folder itself",
        ));
    }
    if components
        .iter()
        .any(|component| is_secret_looking(component))
    {
        return Err(ToolError::secret_path_refused(given));
    }
    let relative: PathBuf = components.iter().collect();
    let descriptor = open_descriptor(root, &relative).map_err(|error| match error {
        rustix::io::Errno::NOENT => ToolError::file_not_found(given, roots),
        // RESOLVE_BENEATH: a link (or a step) that would leave the root; O_NOFOLLOW: a link.
        rustix::io::Errno::XDEV | rustix::io::Errno::LOOP | rustix::io::Errno::NOTDIR => {
            ToolError::path_outside_upload_roots(
                given,
                "it leads out of them through a symbolic link",
                roots,
            )
        }
        other => ToolError::upload_file_unreadable(given, &other.to_string()),
    })?;
    let status = rustix::fs::fstat(descriptor.as_fd())
        .map_err(|error| ToolError::upload_file_unreadable(given, &error.to_string()))?;
    let file_type = rustix::fs::FileType::from_raw_mode(status.st_mode);
    if file_type != rustix::fs::FileType::RegularFile {
        return Err(ToolError::not_a_regular_file(
            given,
            match file_type {
                rustix::fs::FileType::Directory => "it is a folder",
                _ => "it is a device, a pipe or a socket",
            },
        ));
    }
    let size = status.st_size.max(0) as u64;
    if size > MAX_FILE_BYTES {
        return Err(ToolError::file_too_large(
            given,
            &format!(
                "it holds {size} bytes, over the {} MiB a file may hold",
                MAX_FILE_BYTES / (1024 * 1024)
            ),
        ));
    }
    // Where the file really is: a link inside the root may lead to a secret-looking folder of
    // the root, which the agent's spelling did not show.
    let real_path = real_path_of(&descriptor).unwrap_or_else(|| root.real.join(&relative));
    if let Ok(below_root) = real_path.strip_prefix(&root.real) {
        if below_root.components().any(
            |component| matches!(component, Component::Normal(name) if is_secret_looking(name)),
        ) {
            return Err(ToolError::secret_path_refused(given));
        }
    } else {
        // Never reached with RESOLVE_BENEATH; kept as the last word.
        return Err(ToolError::path_outside_upload_roots(
            given,
            "it resolves outside them",
            roots,
        ));
    }
    let name = real_path
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    let file = File::from(descriptor);
    let last_modified_ms = file
        .metadata()
        .and_then(|metadata| metadata.modified())
        .ok()
        .and_then(|modified| modified.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |since| {
            u64::try_from(since.as_millis()).unwrap_or(u64::MAX)
        });
    Ok(CheckedFile {
        given: given.to_owned(),
        real_path,
        mime_type: mime_type_of(&name),
        name,
        size,
        last_modified_ms,
        file,
    })
}

/// The flags of the file itself: read only, never a controlling terminal, and no wait on a pipe
/// (it is refused after the `fstat` anyway).
fn file_flags() -> OFlags {
    OFlags::RDONLY | OFlags::CLOEXEC | OFlags::NOCTTY | OFlags::NONBLOCK
}

/// `openat2` with `RESOLVE_BENEATH` where the kernel has it, else the walk without links.
#[cfg(target_os = "linux")]
fn open_descriptor(root: &UploadRoot, relative: &Path) -> Result<OwnedFd, rustix::io::Errno> {
    use rustix::fs::ResolveFlags;
    match rustix::fs::openat2(
        root.directory.as_fd(),
        relative,
        file_flags(),
        Mode::empty(),
        ResolveFlags::BENEATH | ResolveFlags::NO_MAGICLINKS,
    ) {
        Err(rustix::io::Errno::NOSYS) => open_without_links(root, relative),
        opened => opened,
    }
}

#[cfg(not(target_os = "linux"))]
fn open_descriptor(root: &UploadRoot, relative: &Path) -> Result<OwnedFd, rustix::io::Errno> {
    open_without_links(root, relative)
}

/// Each folder of the path opened from the last with `O_NOFOLLOW | O_DIRECTORY`, the file with
/// `O_NOFOLLOW`: a link anywhere is refused (`ELOOP`, or `ENOTDIR` for a folder's).
fn open_without_links(root: &UploadRoot, relative: &Path) -> Result<OwnedFd, rustix::io::Errno> {
    let components: Vec<&OsStr> = relative.iter().collect();
    let (last, folders) = components.split_last().ok_or(rustix::io::Errno::INVAL)?;
    let mut current: Option<OwnedFd> = None;
    for folder in folders {
        let parent = current
            .as_ref()
            .map_or(root.directory.as_fd(), |fd| fd.as_fd());
        let next = rustix::fs::openat(
            parent,
            *folder,
            OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::empty(),
        )?;
        current = Some(next);
    }
    let parent = current
        .as_ref()
        .map_or(root.directory.as_fd(), |fd| fd.as_fd());
    rustix::fs::openat(
        parent,
        *last,
        file_flags() | OFlags::NOFOLLOW,
        Mode::empty(),
    )
}

/// Where an open file is, as the kernel knows it (Linux's `/proc/self/fd`).
fn real_path_of(descriptor: &OwnedFd) -> Option<PathBuf> {
    use std::os::fd::AsRawFd;
    std::fs::read_link(format!("/proc/self/fd/{}", descriptor.as_raw_fd())).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    struct Fixture {
        _folder: tempfile::TempDir,
        base: PathBuf,
        roots: UploadRoots,
    }

    /// A root `base/root` holding a few files, a secret beside it, and links of every kind.
    fn fixture() -> Fixture {
        let folder = tempfile::tempdir().expect("a temporary folder");
        let base = std::fs::canonicalize(folder.path()).expect("canonical");
        let root = base.join("root");
        std::fs::create_dir_all(root.join("docs/deep")).expect("the fixture");
        std::fs::create_dir_all(root.join(".ssh")).expect("the fixture");
        std::fs::write(root.join("report.pdf"), b"%PDF-1.4 small").expect("the fixture");
        std::fs::write(root.join("docs/deep/photo.JPG"), b"jpeg bytes").expect("the fixture");
        std::fs::write(root.join(".ssh/id_rsa"), b"PRIVATE").expect("the fixture");
        std::fs::write(root.join(".env.local"), b"TOKEN=1").expect("the fixture");
        std::fs::write(base.join("outside.txt"), b"secret outside").expect("the fixture");
        symlink(base.join("outside.txt"), root.join("escape.txt")).expect("the fixture");
        symlink("../outside.txt", root.join("relative-escape.txt")).expect("the fixture");
        symlink(&base, root.join("up")).expect("the fixture");
        symlink("report.pdf", root.join("alias.pdf")).expect("the fixture");
        symlink(".ssh/id_rsa", root.join("innocent.txt")).expect("the fixture");
        std::fs::write(
            root.join("big.bin"),
            vec![0u8; (MAX_FILE_BYTES + 1) as usize],
        )
        .expect("the fixture");
        let roots = UploadRoots::open(&[root]).expect("the root opens");
        Fixture {
            _folder: folder,
            base,
            roots,
        }
    }

    fn code_of(result: Result<CheckedFile, ToolError>) -> String {
        match result {
            Ok(file) => format!("ok {}", file.name),
            Err(error) => error.code,
        }
    }

    #[test]
    fn files_inside_a_root_open_by_relative_or_absolute_path() {
        let fixture = fixture();
        let mut file = fixture.roots.check("report.pdf").expect("inside");
        assert_eq!(file.name, "report.pdf");
        assert_eq!(file.mime_type, "application/pdf");
        assert_eq!(file.read().expect("the fixture"), b"%PDF-1.4 small");
        let absolute = fixture.base.join("root/docs/deep/photo.JPG");
        let file = fixture
            .roots
            .check(absolute.to_str().expect("the fixture"))
            .expect("inside");
        assert_eq!(
            (file.name.as_str(), file.mime_type),
            ("photo.JPG", "image/jpeg")
        );
        // A link that stays inside the root is followed, and the file is named as it really is.
        let file = fixture.roots.check("alias.pdf").expect("a link inside");
        assert_eq!(file.name, "report.pdf");
    }

    #[test]
    fn nothing_outside_the_roots_is_opened() {
        let fixture = fixture();
        let outside = fixture.base.join("outside.txt");
        for path in [
            outside.to_str().expect("the fixture"),
            "/etc/passwd",
            "../outside.txt",
            "docs/../../outside.txt",
            "escape.txt",
            "relative-escape.txt",
            "up/outside.txt",
            "",
        ] {
            assert_eq!(
                code_of(fixture.roots.check(path)),
                "path_outside_upload_roots",
                "{path:?}"
            );
        }
    }

    #[test]
    fn secret_looking_paths_are_refused_even_inside_a_root() {
        let fixture = fixture();
        for path in [
            ".ssh/id_rsa",
            ".env.local",
            "innocent.txt",
            "docs/ID_RSA.pub",
        ] {
            let code = code_of(fixture.roots.check(path));
            assert!(code == "secret_path_refused", "{path:?}: {code}");
        }
        assert!(is_secret_looking(OsStr::new("server.PEM")));
        assert!(!is_secret_looking(OsStr::new("environment.txt")));
        assert!(!is_secret_looking(OsStr::new("keys.txt")));
    }

    #[test]
    fn folders_missing_files_and_big_files_are_refused_by_name() {
        let fixture = fixture();
        assert_eq!(code_of(fixture.roots.check("docs")), "not_a_regular_file");
        assert_eq!(
            code_of(fixture.roots.check("nothing.txt")),
            "file_not_found"
        );
        assert_eq!(code_of(fixture.roots.check("big.bin")), "file_too_large");
        let many: Vec<String> = (0..3).map(|_| "report.pdf".to_owned()).collect();
        assert!(fixture.roots.check_all(&many).is_ok());
    }

    #[test]
    fn the_walk_without_openat2_refuses_every_link() {
        let fixture = fixture();
        let root = &fixture.roots.roots[0];
        assert!(open_without_links(root, Path::new("docs/deep/photo.JPG")).is_ok());
        for path in ["alias.pdf", "escape.txt", "up/outside.txt"] {
            assert!(open_without_links(root, Path::new(path)).is_err(), "{path}");
        }
    }

    #[test]
    fn mime_types_follow_the_extension_without_case() {
        assert_eq!(mime_type_of("a.PNG"), "image/png");
        assert_eq!(mime_type_of("notes.txt"), "text/plain");
        assert_eq!(mime_type_of("Makefile"), "");
        assert_eq!(mime_type_of("x.unknownext"), "");
    }
}
