// @ts-check
// A stopped background comes back by itself (docs/protocol/action-safety.md, "Service-worker life"). Chrome
// stops an extension's service worker that is idle (and the native host ends with its port);
// Firefox suspends an idle event page. Either wakes only for an event it listens to, and an
// agent's call arrives on the host's socket, which is no browser event: with no host, the MCP
// server has nobody to reach. A repeating alarm is such an event: every ALARM_PERIOD_MINUTES the
// background wakes, if it was stopped, and connects to its native host again
// (native.js ensureConnected, which does nothing when the port is open), and the MCP server,
// which waits for a host that went away (src/host_client.rs, HOST_RETURN_WAIT), reaches it.

import { KEEP_ALIVE_PERIOD_MINUTES } from "../build-config.js";
import { api } from "../platform.js";

const ALARM_NAME = "allwright-keep-alive";

/**
 * Chrome's shortest alarm period for a packed extension (Chrome 120 and later: 30 seconds),
 * which Firefox accepts too; 3 seconds in the build the browser tests load, unpacked
 * (scripts/build-extension.mjs, KEEP_ALIVE_PERIOD_MINUTES, says why that is allowed there).
 */
export const ALARM_PERIOD_MINUTES = KEEP_ALIVE_PERIOD_MINUTES;

/**
 * Registers the alarm's listener (in the background's first turn, so that the alarm wakes it)
 * and creates the alarm unless it exists: re-creating it on every start would push its next
 * firing back each time.
 * @param {() => void} reconnect
 */
export function keepHostReachable(reconnect) {
  api.alarms.onAlarm.addListener((alarm) => {
    if (alarm.name === ALARM_NAME) reconnect();
  });
  api.alarms
    .get(ALARM_NAME)
    .then((existing) => {
      if (existing === undefined || existing === null) {
        return api.alarms.create(ALARM_NAME, { periodInMinutes: ALARM_PERIOD_MINUTES });
      }
      return undefined;
    })
    .catch((error) => console.warn(`allwright: no keep-alive alarm: ${error?.message ?? error}`));
}
