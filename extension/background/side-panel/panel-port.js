// @ts-check
// The side panel's link to the background (docs/protocol/access.md, "The side panel"): a runtime port
// named "allwright-panel". On connection the panel gets the connection state and the whole call
// log; then every change of either, live. The panel sends one thing back: the access the person
// chose, which becomes the active access at once and goes on to the MCP server through the host.

import { api, BROWSER, messages } from "../platform.js";
import { activeAccess, activeClient, onAccessChange, setActiveAccess } from "../tools/tool-access.js";
import { loggedCalls, onCallLogged } from "./call-log.js";

/** @type {Set<chrome.runtime.Port>} */
const panels = new Set();

/**
 * @param {{isHostConnected: () => boolean, sendToHost: (message: BackgroundToNative) => void}} native
 */
export function servePanels(native) {
  api.runtime.onConnect.addListener((port) => {
    // Only the panel page itself may connect: a content script's port carries its page's URL,
    // which a page cannot make an extension URL.
    const panelPage = api.runtime.getURL("panel/panel.html");
    if (port.name !== messages.PANEL_PORT_NAME) return;
    if (!String(port.sender?.url ?? "").startsWith(panelPage)) {
      port.disconnect();
      return;
    }
    panels.add(port);
    port.onDisconnect.addListener(() => panels.delete(port));
    port.onMessage.addListener((message) => {
      if (!messages.isPanelSetAccess(message)) return;
      setActiveAccess(message.access, "panel");
    });
    (async () => {
      port.postMessage(messages.panelState(await connectionState(native)));
      port.postMessage(messages.panelCalls(await loggedCalls()));
    })();
  });
  onCallLogged((call) => broadcast(messages.panelCall(call)));
  onAccessChange(async ({ access, source }) => {
    // The person's choice goes to the MCP server, which lists tools for it and tells its client.
    if (source === "panel") native.sendToHost(messages.accessChanged(access));
    broadcast(messages.panelState(await connectionState(native)));
  });
  return {
    /** The native port opened or closed: the panels show it. */
    async connectionChanged() {
      broadcast(messages.panelState(await connectionState(native)));
    },
  };
}

/**
 * @param {{isHostConnected: () => boolean}} native
 * @returns {Promise<PanelConnectionState>}
 */
async function connectionState(native) {
  return {
    hostConnected: native.isHostConnected(),
    client: await activeClient(),
    browser: BROWSER,
    extensionVersion: api.runtime.getManifest().version,
    access: await activeAccess(),
  };
}

/** @param {BackgroundToPanel} message */
function broadcast(message) {
  for (const port of panels) {
    try {
      port.postMessage(message);
    } catch {
      panels.delete(port);
    }
  }
}
