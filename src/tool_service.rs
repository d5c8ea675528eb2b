//! Where a session's tools are served: the one seam between the MCP server (src/mcp.rs), which
//! lists, checks and answers every call alike, and what answers a call. Either the extension's
//! native host (src/host_client.rs), with the browser bridge beside it when allwright holds a
//! WebDriver BiDi session (src/browser_bridge/), or WebDriver BiDi alone in a browser without the
//! extension (src/bidi_only/; docs/grid.md, "BiDi-only mode").

use std::sync::Arc;

use crate::bidi_only::BidiOnlyTools;
use crate::browser_bridge::{BridgeScreenshots, BrowserBridge};
use crate::host_client::HostClient;
use crate::screenshot::{ExtensionScreenshots, ScreenshotSource};
use crate::tools::{ServedBy, ToolAccess};

pub enum ToolService {
    /// The extension's native host; the side panel may change the access during the session.
    Extension {
        host: Arc<HostClient>,
        /// Where `screenshot` gets its pictures: the extension, or the bridge when there is one.
        screenshots: Arc<dyn ScreenshotSource>,
        /// The BiDi side of a browser allwright launched or got from a remote end.
        bridge: Option<Arc<BrowserBridge>>,
    },
    /// WebDriver BiDi alone: no side panel, so the access is the command line's for good.
    BidiOnly {
        tools: Arc<BidiOnlyTools>,
        access: ToolAccess,
        allow_file_urls: bool,
    },
}

impl ToolService {
    /// The extension's host, with or without a bridge.
    pub fn extension(host: Arc<HostClient>, bridge: Option<Arc<BrowserBridge>>) -> Self {
        // With a BiDi session, screenshots come from the browser itself (any tab, whole pages,
        // elements in any frame); otherwise the extension captures the visible tab.
        let screenshots: Arc<dyn ScreenshotSource> = match &bridge {
            Some(bridge) => Arc::new(BridgeScreenshots::new(bridge.clone(), host.clone())),
            None => Arc::new(ExtensionScreenshots::new(host.clone())),
        };
        Self::Extension {
            host,
            screenshots,
            bridge,
        }
    }

    /// Which tools the session can list (src/tools/tiers.rs).
    pub fn served_by(&self) -> ServedBy {
        match self {
            Self::Extension { bridge, .. } => ServedBy::Extension {
                browser_bridge: bridge.is_some(),
            },
            Self::BidiOnly { .. } => ServedBy::BidiOnly,
        }
    }

    /// The session's tool access now.
    pub fn access(&self) -> ToolAccess {
        match self {
            Self::Extension { host, .. } => host.access(),
            Self::BidiOnly { access, .. } => *access,
        }
    }

    /// `--allow-file-urls`.
    pub fn file_urls_allowed(&self) -> bool {
        match self {
            Self::Extension { host, .. } => host.file_urls_allowed(),
            Self::BidiOnly {
                allow_file_urls, ..
            } => *allow_file_urls,
        }
    }
}
