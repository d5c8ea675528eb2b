//! `allwright mcp`: the MCP server over stdio (rmcp). It lists the tools of the chosen tier with
//! their JSON Schemas, validates each call against the same table, forwards it over the local
//! socket to the native host, and answers with one text content block shaped by src/mcp_reply.rs
//! (a short reply, or the whole result object with `verbose: true`; never `structuredContent`),
//! or with an `isError` result whose one text block is `{code, message, hint?, suggestions?}`.
//! `screenshot` is asked of a [`ScreenshotSource`] instead and answers with an image content
//! block before its facts (src/screenshot.rs); `save_pdf` and `get_download` answer a text
//! block and an embedded resource (src/pdf.rs, src/downloads.rs).

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, Implementation, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::{json, Value};

use crate::bidi_only::BidiOnlyTools;
use crate::browser_bridge::{BidiSessionOwner, BrowserBridge};
use crate::browser_launch::{ExtensionChoice, LaunchRequest};
use crate::downloads::{self, DownloadFolder, GET_DOWNLOAD_TOOL, LIST_DOWNLOADS_TOOL};
use crate::driven_browser::{self, DrivenBrowser, WebDriverRequest};
use crate::exit_signals::ExitSignals;
use crate::host_client::HostClient;
use crate::input_mode::{self, InputMode};
use crate::log;
use crate::mcp_reply;
use crate::page_observations;
use crate::pdf::{self, SAVE_PDF_TOOL};
use crate::screenshot::SCREENSHOT_TOOL;
use crate::tool_error::ToolError;
use crate::tool_service::ToolService;
use crate::tools::{self, ServedBy, Tier, ToolAccess, ToolDefinition};
use crate::upload::{self, UPLOAD_TOOL};
use crate::upload_roots::UploadRoots;

/// What the model reads before it calls anything.
const SERVER_INSTRUCTIONS: &str = "allwright lets you read and drive a real web browser through its accessibility tree. \
Start with get_accessibility_tree: it prints each element as `role \"name\" [ref_N]`. Use navigate to open pages. \
Act on elements by their refs (click_ax, type_ax, set_field, select_option, hover, press_key, scroll): every action says \
whether it made observable progress (`progress`, `effect`); never repeat one whose retryAllowed is false. \
Replies are short; pass verbose: true to an action, a read or navigate for every field. \
Refs stop working after navigation or re-rendering: read the tree again when one fails. \
ref_changed means the element behind a ref now has another role or name (both are given): nothing was done. \
outcome_unknown means an action's answer was lost and it may have happened: read the page, do not repeat it. \
Take a screenshot only when you need to see the page (layout, images, colours): it costs far more than the tree. \
Errors come back as {code, message, hint}: follow the hint. page_blocked and dialog_open mean a dialog in the page waits for an answer: ask the user.";

/// Added to the instructions in BiDi-only mode, where the actions the instructions name are not
/// all listed.
const BIDI_ONLY_INSTRUCTIONS: &str = "This session drives the browser over WebDriver BiDi alone (BiDi-only mode): \
only the listed tools are served, and a tool the instructions name that is not listed answers not_supported_here.";

pub struct McpOptions {
    pub tier: Tier,
    pub dev: bool,
    pub launch: Option<LaunchRequest>,
    /// `--webdriver URL`: a browser from a WebDriver remote end on this machine (a chromedriver's
    /// Chromium, or a running Firefox's remote agent).
    pub webdriver: Option<WebDriverRequest>,
    /// `--input`, already checked against whether there is a BiDi session (src/input_mode.rs).
    pub input: InputMode,
    /// `--allow-file-urls`: navigate, new_tab and promote_iframe may open local files.
    pub allow_file_urls: bool,
    /// `--upload-root DIR` (repeatable): the folders upload_file may read; none, no upload_file.
    pub upload_roots: Vec<std::path::PathBuf>,
    /// `--no-extension`, or a `--webdriver` remote end on another machine: BiDi-only mode.
    pub extension: ExtensionChoice,
}

pub struct AllwrightMcpServer {
    /// What answers the calls (src/tool_service.rs): the extension's host, or BiDi alone.
    service: ToolService,
    /// Where get_download may read a launched browser's downloads (src/downloads.rs).
    download_folder: DownloadFolder,
    /// The folders upload_file may read (src/upload_roots.rs); None: the tool is not listed.
    upload_roots: Option<Arc<UploadRoots>>,
}

impl AllwrightMcpServer {
    /// The server lists the tools of the service's access: `--tier`/`--dev` at first, then
    /// whatever the side panel sets (docs/protocol/access.md, "Tool access"), of the tools the
    /// service serves.
    pub fn new(service: ToolService, upload_roots: Option<Arc<UploadRoots>>) -> Self {
        Self {
            service,
            upload_roots,
            download_folder: DownloadFolder::default(),
        }
    }

    /// A launched browser's private downloads folder: get_download reads only inside it, and
    /// names it for a file it does not embed.
    pub fn with_download_folder(mut self, folder: Option<std::path::PathBuf>) -> Self {
        self.download_folder = DownloadFolder {
            private_folder: folder,
        };
        self
    }

    /// The tools of the session's access; upload_file only when the person allowed folders.
    fn listed_tools(&self) -> impl Iterator<Item = &'static ToolDefinition> + '_ {
        let access = self.service.access();
        tools::listed_tools_served_by(access.tier, access.dev, self.service.served_by())
            .filter(|tool| tool.name != UPLOAD_TOOL || self.upload_roots.is_some())
    }

    fn listed_tool(&self, name: &str) -> Option<&'static ToolDefinition> {
        self.listed_tools().find(|tool| tool.name == name)
    }

    async fn answer(&self, request: CallToolRequestParams) -> Result<CallToolResult, ToolError> {
        let Some(tool) = self.listed_tool(&request.name) else {
            let listed: Vec<Value> = self.listed_tools().map(|tool| json!(tool.name)).collect();
            if let Some(definition) = tools::tool_named(&request.name) {
                let access = self.service.access();
                // Listed for this tier, but not served without the extension.
                if self.service.served_by() == ServedBy::BidiOnly
                    && definition.availability.is_listed(access.tier, access.dev)
                {
                    return Err(ToolError::needs_extension(
                        definition.name,
                        tools::why_bidi_only_lacks(definition.name),
                    ));
                }
                // Listed for this tier, but only with a BiDi session on the browser.
                if definition.availability.needs_browser_bridge
                    && definition.availability.is_listed(access.tier, access.dev)
                {
                    return Err(ToolError::needs_browser_bridge(definition.name));
                }
                if definition.name == UPLOAD_TOOL
                    && definition.availability.is_listed(access.tier, access.dev)
                {
                    return Err(ToolError::needs_upload_root(definition.name));
                }
                return Err(ToolError::not_in_tier(
                    &request.name,
                    &access.describe(),
                    listed,
                ));
            }
            return Err(ToolError::invalid_arguments(format!(
                "there is no tool {:?} in this session",
                request.name
            ))
            .with_hint("Call one of the listed tools.")
            .with_suggestions(listed));
        };
        tool.local_file_refusal(request.arguments.as_ref(), self.service.file_urls_allowed())?;
        let mut arguments = tool.validate(request.arguments.as_ref())?;
        // `verbose` shapes the reply here and is no business of the browser's.
        let verbose = arguments
            .as_object_mut()
            .and_then(|arguments| arguments.remove(mcp_reply::VERBOSE_ARGUMENT))
            .and_then(|verbose| verbose.as_bool())
            .unwrap_or(false);
        let timeout = tool.host_wait(&arguments);
        let (host, bridge, screenshots) = match &self.service {
            ToolService::Extension {
                host,
                bridge,
                screenshots,
            } => (host, bridge, screenshots),
            ToolService::BidiOnly { tools, .. } => {
                // The same checks above and the same replies below; only the answer differs.
                if tool.name == SCREENSHOT_TOOL {
                    let screenshot = tools.screenshot(arguments).await?;
                    return Ok(mcp_reply::without_structured_content(
                        screenshot.into_tool_result(),
                    ));
                }
                if tool.name == SAVE_PDF_TOOL {
                    let tab_id = arguments.get("tabId").and_then(Value::as_i64);
                    return pdf::reply(tools.call(tool, &arguments, timeout).await?, tab_id);
                }
                let result = tools.call(tool, &arguments, timeout).await?;
                return Ok(mcp_reply::success_reply(
                    tool.name, &arguments, result, verbose,
                ));
            }
        };
        if tool.name == SCREENSHOT_TOOL {
            let screenshot = screenshots.capture(arguments, timeout).await?;
            return Ok(mcp_reply::without_structured_content(
                screenshot.into_tool_result(),
            ));
        }
        if tool.name == SAVE_PDF_TOOL {
            let tab_id = arguments.get("tabId").and_then(Value::as_i64);
            let printed = match bridge {
                Some(bridge) => bridge.save_pdf(host, arguments, timeout).await?,
                None => host.call(tool.name, arguments, timeout).await?,
            };
            return pdf::reply(printed, tab_id);
        }
        let mut result = if tool.name == UPLOAD_TOOL {
            self.upload(host, bridge.as_ref(), tool, &arguments, timeout)
                .await?
        } else {
            match bridge {
                Some(bridge) => bridge.call(host, tool, arguments.clone(), timeout).await?,
                None => {
                    let result = host.call(tool.name, arguments.clone(), timeout).await?;
                    // The extension sends its request and console records as they are: they are
                    // masked and printed here, as the bridge's are (src/page_observations.rs).
                    let query = page_observations::ObservationQuery::of(&arguments);
                    match tool.name {
                        "network_requests" => {
                            page_observations::network_result_from_extension(&result, &query)
                        }
                        "console_messages" => {
                            page_observations::console_result_from_extension(&result, &query)
                        }
                        _ => result,
                    }
                }
            }
        };
        downloads::mask_evidence(&mut result);
        match tool.name {
            // The extension's facts: masked, the path read here and left out (src/downloads.rs).
            LIST_DOWNLOADS_TOOL => result = downloads::list_result(&result, verbose),
            GET_DOWNLOAD_TOOL => {
                return Ok(downloads::get_reply(
                    &result,
                    &self.download_folder,
                    verbose,
                ));
            }
            _ => {}
        }
        input_mode::label_result(tool.name, &mut result);
        Ok(mcp_reply::success_reply(
            tool.name, &arguments, result, verbose,
        ))
    }
}

impl AllwrightMcpServer {
    /// upload_file: every path checked and opened inside the roots first (nothing is read or
    /// sent when one is refused), then the browser's own file chooser where the bridge can use
    /// it, else the files' bytes through the extension (src/upload.rs). The reply names the
    /// files.
    async fn upload(
        &self,
        host: &Arc<HostClient>,
        bridge: Option<&Arc<BrowserBridge>>,
        tool: &'static ToolDefinition,
        arguments: &Value,
        timeout: std::time::Duration,
    ) -> Result<Value, ToolError> {
        let Some(roots) = &self.upload_roots else {
            return Err(ToolError::needs_upload_root(tool.name));
        };
        let mut files = roots.check_all(&upload::paths_of(arguments))?;
        let described = upload::described(&files);
        let mut result = match bridge {
            Some(bridge) => {
                bridge
                    .upload_files(host, tool, arguments, &mut files, timeout)
                    .await?
            }
            None => {
                let call = upload::attach_arguments(arguments, &mut files)?;
                host.call(upload::ATTACH_FILES_CALL, call, timeout)
                    .await
                    .map_err(|error| error.for_call_of(tool.name))?
            }
        };
        if let Some(object) = result.as_object_mut() {
            object.insert("files".to_owned(), described);
        }
        Ok(result)
    }
}

fn mcp_tool(definition: &ToolDefinition) -> Tool {
    let annotations = ToolAnnotations::new()
        .read_only(definition.read_only)
        .destructive(definition.destructive)
        .open_world(true);
    Tool::new(
        definition.name,
        definition.description,
        Arc::new(definition.input_schema()),
    )
    .with_title(definition.title)
    .with_annotations(annotations)
}

impl ServerHandler for AllwrightMcpServer {
    fn get_info(&self) -> ServerConfig {
        // listChanged: the side panel can change the tier during a session.
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_tool_list_changed()
                .build(),
        )
        .with_server_info(Implementation::new("allwright", env!("CARGO_PKG_VERSION")))
        .with_instructions(match self.service {
            ToolService::Extension { .. } => SERVER_INSTRUCTIONS.to_owned(),
            ToolService::BidiOnly { .. } => {
                format!("{SERVER_INSTRUCTIONS} {BIDI_ONLY_INSTRUCTIONS}")
            }
        })
    }

    /// Once the client has initialized: announce the session (tier, Dev mode, the client's
    /// name) to the browser's host, and follow the side panel's access changes with
    /// `notifications/tools/list_changed`.
    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        // Without the extension there is no host to announce the session to and no side panel
        // to change the access.
        let ToolService::Extension { host, .. } = &self.service else {
            return;
        };
        let client = context
            .peer
            .peer_info()
            .map(|info| info.client_info.name.clone());
        let mut access_changes = host.watch_access();
        let peer = context.peer.clone();
        tokio::spawn(async move {
            while access_changes.changed().await.is_ok() {
                let access = *access_changes.borrow_and_update();
                log!(
                    "the side panel set the tool access to {}",
                    access.describe()
                );
                if peer.notify_tool_list_changed().await.is_err() {
                    return;
                }
            }
        });
        // In its own task: a host that is slow to say ready must not hold up the first request.
        let host = Arc::clone(host);
        tokio::spawn(async move { host.start_session(client).await });
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(
            self.listed_tools().map(mcp_tool).collect(),
        ))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.listed_tool(name).map(mcp_tool)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let name = request.name.to_string();
        let result = match self.answer(request).await {
            Ok(result) => result,
            Err(error) => {
                // The code only: an error's message may quote page text (an option's label, a
                // script's exception, a ref's name), which the log never holds.
                log!("{name}: {}", error.code);
                mcp_reply::error_reply(&error)
            }
        };
        Ok(result.into())
    }
}

pub async fn run(options: McpOptions) -> Result<(), String> {
    // Watched before the browser starts: a signal during the launch drops the half-made session,
    // whose Drop ends the browser's process group and removes the session folder.
    let mut exit_signals = ExitSignals::watch()?;
    // Checked before a browser starts: a folder that cannot be opened is a usage error.
    let upload_roots = if options.upload_roots.is_empty() {
        None
    } else {
        Some(Arc::new(UploadRoots::open(&options.upload_roots)?))
    };
    let started = tokio::select! {
        started = driven_browser::start(options.launch.as_ref(), options.webdriver.as_ref(), options.extension) => started?,
        signal = exit_signals.received() => {
            log!("{signal} while the browser was starting");
            return Ok(());
        }
    };
    let launched: Option<Arc<DrivenBrowser>> = started.map(Arc::new);
    if options.extension == ExtensionChoice::Without {
        let Some(browser) = launched else {
            return Err("BiDi-only mode needs --launch or --webdriver".into());
        };
        log!("serving MCP on stdio in BiDi-only mode (no extension)");
        let tools =
            match BidiOnlyTools::start(Arc::clone(&browser) as Arc<dyn BidiSessionOwner>).await {
                Ok(tools) => tools,
                Err(message) => {
                    DrivenBrowser::shutdown_shared(browser).await;
                    return Err(message);
                }
            };
        let service = ToolService::BidiOnly {
            tools: Arc::new(tools),
            access: ToolAccess::new(options.tier, options.dev),
            allow_file_urls: options.allow_file_urls,
        };
        let server = AllwrightMcpServer::new(service, upload_roots)
            .with_download_folder(browser.download_folder());
        let outcome = serve_until_the_end(server, &mut exit_signals).await;
        DrivenBrowser::shutdown_shared(browser).await;
        return outcome;
    }
    // The BiDi session of a browser we launched (or got from a remote end) serves the bridge
    // (dialogs, real pointer input, lifecycle).
    let bridge = match &launched {
        Some(browser) => {
            match BrowserBridge::start(Arc::clone(browser) as _, options.input).await {
                Ok(bridge) => Some(Arc::new(bridge)),
                Err(message) => {
                    if let Some(browser) = launched {
                        DrivenBrowser::shutdown_shared(browser).await;
                    }
                    return Err(message);
                }
            }
        }
        None => None,
    };
    // A launched browser's host is already connected (and serves one client at a time); otherwise
    // the user's browser's host is reached lazily, on the first call.
    let host = match launched.as_ref().and_then(|session| session.host()) {
        Some(host) => host,
        None => Arc::new(HostClient::new(crate::local_socket::default_socket_path())),
    };
    log!(
        "serving MCP on stdio; host socket {}",
        host.socket_path().display()
    );
    host.set_access(ToolAccess::new(options.tier, options.dev));
    host.set_allow_file_urls(options.allow_file_urls);
    host.set_browser_bridge(bridge.is_some());
    let download_folder = launched
        .as_ref()
        .and_then(|browser| browser.download_folder());
    let server = AllwrightMcpServer::new(ToolService::extension(host, bridge), upload_roots)
        .with_download_folder(download_folder);
    let outcome = serve_until_the_end(server, &mut exit_signals).await;
    if let Some(browser) = launched {
        DrivenBrowser::shutdown_shared(browser).await;
    }
    outcome
}

/// Serves MCP on stdio until the client closes it or an exit signal arrives. Signals are watched
/// from the start: a client that never completes the handshake must not keep a launched browser
/// alive. After a signal the service is cancelled and awaited, so that its task has dropped the
/// server (and the bridge's hold on the browser) before the browser is shut down.
async fn serve_until_the_end(
    server: AllwrightMcpServer,
    exit_signals: &mut ExitSignals,
) -> Result<(), String> {
    let running = tokio::select! {
        running = server.serve(rmcp::transport::stdio()) => running
            .map_err(|error| format!("the MCP client did not initialize the session: {error}"))?,
        signal = exit_signals.received() => {
            log!("{signal}");
            return Ok(());
        }
    };
    let cancel = running.cancellation_token();
    let waiting = running.waiting();
    tokio::pin!(waiting);
    tokio::select! {
        finished = &mut waiting => finished
            .map(|_| ())
            .map_err(|error| format!("the MCP session failed: {error}")),
        signal = exit_signals.received() => {
            log!("{signal}");
            cancel.cancel();
            let _ = waiting.await;
            Ok(())
        }
    }
}
