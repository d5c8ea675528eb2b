//! The `allwright` binary: the native-messaging host (when a browser starts it), the MCP server,
//! one-shot snapshots, and the registration of the host with the user's browsers.
//!
//! `main` only turns `try_main`'s outcome into an exit status: 0 on success, 1 when the command
//! failed, 2 for a command line that cannot be understood (clap's convention).

mod bidi_only;
mod browser_bridge;
mod browser_launch;
mod downloads;
mod driven_browser;
mod embedded_extension;
mod exit_signals;
mod file_server;
mod generated_modules;
mod host;
mod host_client;
mod identity;
mod input_mode;
mod install;
mod local_socket;
mod logging;
mod marker_attributes;
mod mcp;
mod mcp_reply;
mod native_messaging;
mod page_observations;
mod pdf;
mod relay;
mod screenshot;
mod served_files;
mod session_folder;
mod snapshot_command;
mod socket_lines;
mod tool_error;
mod tool_service;
mod tools;
mod upload;
mod upload_roots;
mod wire;

use std::path::PathBuf;

use clap::{Parser, Subcommand};

use browser_launch::{BrowserChoice, LaunchRequest};
use snapshot_command::{OutputFormat, SnapshotMode, TreeFilter};
use tools::Tier;

/// `allwright --version`: the package version, then the commit and the embedded extension build
/// (both written by build.rs), so a bug report says exactly what ran.
const VERSION_TEXT: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (",
    env!("ALLWRIGHT_BUILD_DETAILS"),
    ")"
);

/// `--capability NAME=JSON`, defined once for each command that takes `--webdriver`.
#[derive(clap::Args)]
struct CapabilityArguments {
    /// With --webdriver: a capability for the new session (repeatable), as NAME=JSON: browserName,
    /// browserVersion, platformName, or a vendor's options such as goog:chromeOptions or se:name
    /// (--capability se:name='"nightly"'). Merged with the ones allwright sets itself; see
    /// docs/grid.md.
    #[arg(long = "capability", value_name = "NAME=JSON", requires = "webdriver")]
    capabilities: Vec<allwright_surface_web::remote::RequestedCapability>,
}

/// Lets an AI agent see and act on real web pages through a browser extension.
#[derive(Parser)]
#[command(name = "allwright", version = VERSION_TEXT, about, long_about = None)]
struct CommandLine {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Serve the browser tools to an agent over MCP (stdio).
    ///
    /// Without --launch it drives the user's own browser, which must have the allwright extension
    /// loaded (and `allwright install` run once). With --launch it starts its own browser; with
    /// --webdriver it asks a WebDriver remote end on this machine for one, or installs the
    /// extension in a running Firefox through that Firefox's own remote agent.
    Mcp {
        /// Start this browser with a temporary profile and the extension installed.
        #[arg(long, value_enum, conflicts_with = "webdriver")]
        launch: Option<BrowserChoice>,
        /// A WebDriver remote end on this machine: http://127.0.0.1:9515 (a chromedriver or a
        /// Selenium standalone) to start a Chromium with the extension installed (a Firefox, with
        /// --capability browserName='"firefox"', from a geckodriver or a grid's Firefox node run
        /// by a user who ran `allwright install`), or
        /// ws://127.0.0.1:PORT/session (a Firefox started with --remote-debugging-port PORT by a
        /// user who ran `allwright install`) to install the extension in that Firefox. https://
        /// and wss:// use TLS; http://user:password@host:port sends basic authentication
        /// (docs/grid.md).
        #[arg(long, value_name = "URL")]
        webdriver: Option<String>,
        #[command(flatten)]
        capability: CapabilityArguments,
        /// With --launch or --webdriver: run the browser without a window.
        #[arg(long)]
        headless: bool,
        /// The tool tier to list.
        #[arg(long, value_enum, default_value = "full")]
        tier: Tier,
        /// Dev mode: add execute_js to the acting tiers, and the Full tier's fallbacks
        /// (get_frames, get_shadow_dom, shadow_dom_query) to Mid. Not with --tier ask.
        #[arg(long)]
        dev: bool,
        /// Which input the action tools send: trusted (real input over WebDriver BiDi for
        /// click_ax, iframe_click, hover and press_key; the default with --launch or
        /// --webdriver) or
        /// synthetic (the extension's own events for every tool, the only input of the user's
        /// own browser, so trusted is refused without --launch or --webdriver).
        #[arg(long, value_enum, value_name = "MODE")]
        input: Option<input_mode::InputMode>,
        /// With --launch or --webdriver: the built extension folder (default: $ALLWRIGHT_EXTENSION_DIR, then the checkout's dist/<browser>, then the copy built into this binary).
        #[arg(long, value_name = "DIR")]
        extension: Option<PathBuf>,
        /// Let navigate, new_tab and promote_iframe open local files (file: URLs, and
        /// view-source:, jar: and the like around one). Off by default: a page can ask the agent
        /// to open a file and read it back (file_url_refused).
        #[arg(long)]
        allow_file_urls: bool,
        /// With --launch or --webdriver: no extension in the browser, the tools served over
        /// WebDriver BiDi alone (BiDi-only mode; the default for a --webdriver remote end on
        /// another machine). Only the tools this mode serves are listed: see docs/grid.md,
        /// "BiDi-only mode".
        #[arg(long, conflicts_with = "extension")]
        no_extension: bool,
        /// A folder upload_file may attach files from (repeatable). Without one, upload_file is
        /// not offered. Files are opened only below these folders, never through a link that
        /// leaves them, never a credential-looking name (.ssh, .env, id_rsa, *.pem, ...), at most
        /// 10 MiB each and 25 MiB per call.
        #[arg(long, value_name = "DIR")]
        upload_root: Vec<PathBuf>,
    },
    /// Load a page in a headless browser and print its accessibility tree or snapshot.
    Snapshot {
        /// An http(s) URL, or a local HTML file (served from a temporary localhost server).
        #[arg(value_name = "URL_OR_FILE")]
        target: String,
        #[arg(long, value_enum, default_value = "chromium")]
        browser: BrowserChoice,
        /// text: the agent's tree; json or yaml: the version-1 structured snapshot.
        #[arg(long, value_enum, default_value = "text")]
        format: OutputFormat,
        /// Which elements the text tree shows.
        #[arg(long, value_enum, default_value = "all")]
        filter: TreeFilter,
        /// ai: give actionable elements an aria-ref (json and yaml only).
        #[arg(long, value_enum)]
        mode: Option<SnapshotMode>,
        /// Show the browser window instead of running headless.
        #[arg(long)]
        headed: bool,
        /// The built extension folder (default: $ALLWRIGHT_EXTENSION_DIR, then the checkout's dist/<browser>, then the copy built into this binary).
        #[arg(long, value_name = "DIR")]
        extension: Option<PathBuf>,
        /// Read the page in a browser from this WebDriver remote end on this machine (a Chromium
        /// from a chromedriver or a grid, a Firefox from a geckodriver or a grid, or a running
        /// Firefox's remote agent: see `allwright mcp --webdriver`) instead of launching a browser.
        #[arg(long, value_name = "URL", conflicts_with = "browser")]
        webdriver: Option<String>,
        #[command(flatten)]
        capability: CapabilityArguments,
    },
    /// Register the native host with the user's Chrome, Chromium and Firefox.
    Install,
    /// Remove what `allwright install` wrote.
    Uninstall,
    /// Print the tool contract that extension/shared/tool-contract.json holds (a build step,
    /// not a user command: the file is checked in and a host test keeps it current).
    #[command(hide = true)]
    ToolContract,
    /// Write the JS modules of extension/shared/generated/ from the Rust definitions they copy
    /// (a build step, not a user command: the modules are checked in and a host test keeps them
    /// current).
    #[command(hide = true)]
    GeneratedModules {
        /// The folder to write them into: extension/shared/generated.
        #[arg(value_name = "DIR")]
        folder: PathBuf,
    },
}

fn main() {
    let arguments: Vec<String> = std::env::args().skip(1).collect();
    let status = match try_main(arguments) {
        Ok(()) => 0,
        Err(message) => {
            eprintln!("allwright: {message}");
            1
        }
    };
    // Reading stdin blocks a runtime thread that would otherwise keep the process alive after
    // the work is done; leave at once with the status.
    std::process::exit(status);
}

fn try_main(arguments: Vec<String>) -> Result<(), String> {
    // A browser starting the host passes its own arguments, which are not a command line.
    if let Some(invocation) = host::HostInvocation::from_arguments(&arguments) {
        logging::init("host");
        return run_async(host::run(invocation));
    }
    let command_line =
        match CommandLine::try_parse_from(std::iter::once("allwright".to_owned()).chain(arguments))
        {
            Ok(command_line) => command_line,
            Err(error) => {
                let usage_error = error.use_stderr();
                let _ = error.print();
                // --help and --version are successes; anything else is a usage error (status 2).
                std::process::exit(if usage_error { 2 } else { 0 });
            }
        };
    match command_line.command {
        Command::Mcp {
            launch,
            webdriver,
            capability,
            headless,
            tier,
            dev,
            input,
            extension,
            allow_file_urls,
            upload_root,
            no_extension,
        } => {
            logging::init("mcp");
            if no_extension && launch.is_none() && webdriver.is_none() {
                return Err("--no-extension applies to --launch or --webdriver: the user's own browser is reached through its extension".into());
            }
            // A remote end on another machine cannot start a native host that reaches this
            // server, so it is driven over BiDi alone (driven_browser.rs, `connect`).
            let elsewhere = webdriver
                .as_deref()
                .is_some_and(driven_browser::is_on_another_machine);
            if elsewhere && extension.is_some() {
                return Err("--extension: a --webdriver remote end on another machine is driven without the extension (BiDi-only mode, docs/grid.md)".into());
            }
            let extension_choice = if no_extension || elsewhere {
                browser_launch::ExtensionChoice::Without
            } else {
                browser_launch::ExtensionChoice::Install
            };
            if launch.is_none() && webdriver.is_none() && (headless || extension.is_some()) {
                return Err("--headless and --extension apply to --launch or --webdriver".into());
            }
            if dev && !tier.accepts_dev_mode() {
                return Err("--dev adds execute_js, which can change the page, and --tier ask is read-only: use --tier compact, mid or full with --dev".into());
            }
            let input =
                input_mode::InputMode::for_session(input, launch.is_some() || webdriver.is_some())?;
            let webdriver = webdriver.map(|url| driven_browser::WebDriverRequest {
                url,
                headless,
                extension_dir: extension.clone(),
                keep_user_prompts_open: true,
                capabilities: capability.capabilities,
            });
            let launch = launch.map(|browser| LaunchRequest {
                browser,
                headless,
                extension_dir: extension,
                keep_user_prompts_open: true,
            });
            if let Some(request) = launch
                .as_ref()
                .filter(|_| extension_choice == browser_launch::ExtensionChoice::Install)
            {
                // Fail before the MCP handshake when the extension is not built.
                browser_launch::locate_extension(request)?;
            }
            run_async(mcp::run(mcp::McpOptions {
                tier,
                dev,
                launch,
                webdriver,
                input,
                allow_file_urls,
                upload_roots: upload_root,
                extension: extension_choice,
            }))
        }
        Command::Snapshot {
            target,
            browser,
            format,
            filter,
            mode,
            headed,
            extension,
            webdriver,
            capability,
        } => {
            logging::init("snapshot");
            let options = snapshot_command::SnapshotOptions {
                target,
                browser,
                format,
                filter,
                mode,
                headless: !headed,
                extension_dir: extension,
                webdriver,
                capabilities: capability.capabilities,
            };
            run_async(snapshot_command::run(options))
        }
        Command::Install => install::install(),
        Command::Uninstall => install::uninstall(),
        Command::ToolContract => {
            print!("{}", tools::tool_contract_json());
            Ok(())
        }
        Command::GeneratedModules { folder } => generated_modules::write_generated_modules(&folder),
    }
}

/// Runs `work` on a fresh runtime. The runtime is shut down without waiting for its blocking
/// threads: one of them may be parked forever in a read of stdin, which must not keep the
/// process alive once the work is done.
fn run_async(work: impl std::future::Future<Output = Result<(), String>>) -> Result<(), String> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|error| format!("cannot start the async runtime: {error}"))?;
    let outcome = runtime.block_on(work);
    runtime.shutdown_background();
    outcome
}
