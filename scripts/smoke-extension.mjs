#!/usr/bin/env node
// Smoke check of the built Chrome extension in Debian's Chromium, through its real native port.
//
//   node scripts/smoke-extension.mjs [--stand-ins] [--browser chromium|firefox]
//
// Builds the extension into a temporary folder, serves fixtures/ on two origins, registers a
// stand-in native host (a small Node relay) in a fresh profile, starts headless Chromium with the
// extension and drives the tools over native messaging as the real host would: hello, calls,
// results, a chunked call, and a service-worker restart. It checks the extension id against
// manifest/identity.json and that strict-CSP frames get the JS core and no CSP report.
//
// With --stand-ins (automatic when extension/generated/ is incomplete) the page-side tree builder
// and both core builds are replaced by tiny stand-ins that report which core the background
// picked, so the background and content router are checked on their own.
//
// Firefox (firefox-esr, through WebDriver BiDi's webExtension.install) runs the same tool calls;
// the checks that need Chromium's DevTools (service-worker id and restart) are Chromium-only.

import { spawn } from "node:child_process";
import { chmod, cp, mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import http from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const identity = JSON.parse(await readFile(path.join(root, "manifest/identity.json"), "utf8"));
const CHROMIUM = "/usr/lib/chromium/chromium";

let failures = 0;
function check(condition, label, detail) {
  if (condition) console.log(`ok   ${label}`);
  else {
    failures += 1;
    console.log(`FAIL ${label}${detail === undefined ? "" : `: ${typeof detail === "string" ? detail : JSON.stringify(detail)}`}`);
  }
}

// Node 20 has WebSocket (for Firefox's BiDi) only behind a flag: run again with it.
if (typeof WebSocket === "undefined" && process.argv.includes("firefox")) {
  const child = spawn(process.execPath, ["--experimental-websocket", ...process.argv.slice(1)], { stdio: "inherit" });
  child.on("exit", (code) => process.exit(code ?? 1));
  await new Promise(() => {});
}

const work = await mkdtemp(path.join(os.tmpdir(), "allwright-smoke-"));
const cleanups = [() => rm(work, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 })];
try {
  await run();
} catch (error) {
  failures += 1;
  console.log(`FAIL smoke run: ${error.stack}`);
} finally {
  for (const cleanup of cleanups.reverse()) await cleanup();
}
console.log(failures === 0 ? "smoke: all checks passed" : `smoke: ${failures} check(s) failed`);
process.exit(failures === 0 ? 0 : 1);

async function run() {
  const browserIndex = process.argv.indexOf("--browser");
  const browserName = browserIndex === -1 ? "chromium" : process.argv[browserIndex + 1];
  const standIns = process.argv.includes("--stand-ins") || !(await generatedComplete());
  console.log(`${browserName}: ${standIns ? "using stand-ins for the page-side tree builder and cores" : "using the real page-side core"}`);
  const source = path.join(work, "extension");
  await cp(path.join(root, "extension"), source, { recursive: true });
  if (standIns) await writeStandIns(source);
  const target = browserName === "firefox" ? "firefox" : "chrome";
  await runNode([path.join(root, "scripts/build-extension.mjs"), target, "--source", source, "--out", path.join(work, "dist")]);
  const extensionDir = path.join(work, "dist", target);

  const reports = [];
  const origins = await startFixtureServers(reports);
  const relay = await startRelay();
  const profile = path.join(work, "profile");
  await installStandInHost(profile, relay.port, target);
  if (target === "firefox") {
    await runFirefox({ extensionDir, profile, relay, origins, reports, standIns });
    return;
  }

  const chrome = await startChromium(extensionDir, profile);
  const browser = await chromium.connectOverCDP(chrome.endpoint);
  cleanups.push(() => browser.close().catch(() => {}));
  const context = browser.contexts()[0];

  const hello = await relay.nextHello(15_000);
  check(hello.type === "hello" && hello.browser === "chrome" && hello.protocol === 1 && hello.extensionVersion === "0.1.0", "hello from the extension", hello);

  const worker = await serviceWorker(context);
  const workerErrors = [];
  worker.on("console", (message) => {
    if (message.type() === "error") workerErrors.push(message.text());
  });
  const workerUrl = new URL(worker.url());
  check(workerUrl.host === identity.chromeExtensionId, "extension id equals identity.json's chromeExtensionId", workerUrl.host);
  // The function runs in the service worker, where `chrome` is the extension API.
  const listeners = await worker.evaluate(({ chrome } = globalThis) => [
    chrome.runtime.onMessage.hasListeners(), chrome.webRequest.onHeadersReceived.hasListeners(),
    chrome.webNavigation.onCompleted.hasListeners(), chrome.tabs.onRemoved.hasListeners(),
  ]);
  check(listeners.every(Boolean), "the service worker ran to its end and registered its listeners", listeners);

  // navigate, then read the frames fixture.
  const framesUrl = `${origins.a}/pages/frames.html`;
  const nav = await relay.call("navigate", { url: framesUrl });
  check(nav.ok && nav.result.url === framesUrl && nav.result.title === "Frames fixture", "navigate returns the final url and title", nav);
  const tree = await relay.call("get_accessibility_tree", {});
  check(tree.ok && typeof tree.result.tree === "string" && tree.result.url === framesUrl && tree.result.title === "Frames fixture", "get_accessibility_tree answers from the top frame", tree);
  if (standIns) check(tree.ok && tree.result.core === "wasm", "a page without CSP gets the WASM core", tree.result?.core);
  if (tree.ok) console.log(`     tree: ${JSON.stringify(tree.result.tree.slice(0, 160))}`);

  const json = await relay.call("accessibility_snapshot", { format: "json" });
  const parsed = json.ok ? JSON.parse(json.result.snapshot) : null;
  check(json.ok && parsed.version === 1 && json.result.documentCount === 4, "accessibility_snapshot collects the top document and its three frames", json.ok ? json.result.documentCount : json);
  if (parsed) {
    const [top, ...frames] = parsed.documents;
    check(top.parentContextId === null && frames.every((d) => d.parentContextId === top.contextId), "frame documents link to the top document", parsed.documents.map((d) => [d.contextId, d.parentContextId]));
    const whos = frames.map((d) => new URL(d.url).searchParams.get("who"));
    check(JSON.stringify(whos) === JSON.stringify(["same", "cross", "hidden"]), "frames come in document order, cross-origin included", whos);
  }
  const yaml = await relay.call("accessibility_snapshot", { format: "yaml", mode: "ai" });
  check(yaml.ok && yaml.result.format === "yaml" && yaml.result.snapshot.startsWith("\"version\": 1\n\"documents\":\n"), "YAML snapshot is assembled", yaml.ok ? yaml.result.snapshot.slice(0, 40) : yaml);

  // Arguments and errors.
  const badUrl = await relay.call("navigate", { url: "javascript:alert(1)" });
  check(!badUrl.ok && badUrl.error.code === "invalid_arguments" && badUrl.error.hint, "navigate refuses javascript: URLs", badUrl);
  const noFrame = await relay.call("get_accessibility_tree", { frameId: 987654 });
  check(!noFrame.ok && noFrame.error.code === "frame_not_found" && noFrame.error.suggestions?.includes("0"), "an unknown frameId is frame_not_found with suggestions", noFrame);
  const noTab = await relay.call("get_accessibility_tree", { tabId: 987654 });
  check(!noTab.ok && noTab.error.code === "no_tab", "an unknown tabId is no_tab", noTab);
  // Over 512 KiB: the relay sends it as a chunk series, as the real host does.
  const big = await relay.call("get_accessibility_tree", { padding: "x".repeat(600 * 1024) });
  check(!big.ok && big.error.code === "invalid_arguments" && /padding/.test(big.error.message), "a chunked call is reassembled (and its unknown argument refused)", big.ok ? "ok" : big.error.message);

  // Strict-CSP pages: the JS core, in the top document and in inheriting frames, and no report.
  for (const page of ["script-self", "default-none", "report-only", "meta"]) {
    const url = `${origins.a}/pages/csp/${page}.html`;
    const opened = await relay.call("navigate", { url });
    const snapshot = await relay.call("accessibility_snapshot", { format: "json" });
    if (!opened.ok || !snapshot.ok) {
      check(false, `${page}: snapshot`, snapshot.ok ? opened : snapshot);
      continue;
    }
    const documents = JSON.parse(snapshot.result.snapshot).documents;
    if (standIns) {
      const cores = documents.map((d) => `${d.url}=${d.root.name}`);
      check(documents.length >= 2 && documents.every((d) => d.root.name === "js"), `${page}: every frame (srcdoc, about:blank included) gets the JS core`, cores);
    } else {
      check(documents.length >= 2, `${page}: snapshot of every frame`, documents.length);
    }
    // default-src 'none' blocks the page's own listener script; its report endpoint still counts.
    const page0 = context.pages().find((p) => p.url() === url);
    if (page0 && (await page0.locator("#violations").count()) > 0) {
      const violations = await page0.locator("#violations").textContent();
      check(violations === "0", `${page}: the page saw no CSP violation`, violations);
    }
  }
  await new Promise((resolve) => setTimeout(resolve, 300));
  check(reports.length === 0, "no CSP report reached the fixture server", reports);

  // A tab whose document has no content script: about:blank has an opaque origin and no match.
  const blank = await relay.call("navigate", { url: "about:blank" });
  check(blank.ok && blank.result.url === "about:blank", "navigate to about:blank", blank);
  const blankTree = await relay.call("get_accessibility_tree", {});
  check(blankTree.ok || blankTree.error.code === "script_failed", "about:blank: read, or refused with script_failed", blankTree.ok ? "read" : blankTree.error);
  console.log(`     about:blank outcome: ${JSON.stringify(blankTree.ok ? { core: blankTree.result.core } : blankTree.error)}`);

  // Service-worker restart: the CSP records survive in storage.session.
  const plain = await context.newPage();
  await plain.goto(`${origins.a}/pages/surface.html`);
  const plainTabId = await tabIdOf(await serviceWorker(context), `${origins.a}/pages/surface.html`);
  const session = await browser.newBrowserCDPSession();
  const { targetInfos } = await session.send("Target.getTargets");
  const swTarget = targetInfos.find((t) => t.type === "service_worker" && t.url.startsWith(`chrome-extension://${identity.chromeExtensionId}/`));
  await session.send("Target.closeTarget", { targetId: swTarget.targetId }).catch((error) => console.log(`note: closeTarget: ${error.message}`));
  const gone = await relay.waitForDisconnect(10_000);
  check(gone, "stopping the service worker closes the native port");
  // Any event wakes the worker again; a navigation in another tab fires webRequest events.
  const waker = await context.newPage();
  await waker.goto(`${origins.a}/pages/frame-child.html?who=waker`);
  const hello2 = await relay.nextHello(15_000).catch((error) => error);
  check(hello2?.type === "hello", "the restarted worker reconnects and says hello again", String(hello2));
  check(workerErrors.length === 0, "the service worker logged no error before the restart", workerErrors);
  const afterRestart = await relay.call("get_accessibility_tree", { tabId: plainTabId });
  check(afterRestart.ok, "a tool call works after the restart", afterRestart);
  if (standIns) check(afterRestart.ok && afterRestart.result.core === "wasm", "the CSP record survived the restart (WASM for a page without CSP)", afterRestart.result?.core);
}

/** The same tool calls in Firefox, installed as a temporary add-on over WebDriver BiDi. */
async function runFirefox({ extensionDir, profile, relay, origins, reports, standIns }) {
  const bidi = await startFirefox(profile);
  const installed = await bidi.send("webExtension.install", { extensionData: { type: "path", path: extensionDir } });
  check(installed.extension === identity.geckoId, "Firefox installs the extension under identity.json's geckoId", installed);
  const hello = await relay.nextHello(20_000);
  check(hello.type === "hello" && hello.browser === "firefox" && hello.protocol === 1, "hello from the extension", hello);

  const framesUrl = `${origins.a}/pages/frames.html`;
  const nav = await relay.call("navigate", { url: framesUrl });
  check(nav.ok && nav.result.url === framesUrl && nav.result.title === "Frames fixture", "navigate returns the final url and title", nav);
  const tree = await relay.call("get_accessibility_tree", { filter: "interactive" });
  check(tree.ok && typeof tree.result.tree === "string" && tree.result.url === framesUrl, "get_accessibility_tree answers from the top frame", tree);
  if (standIns) check(tree.ok && tree.result.core === "wasm", "Firefox gets the WASM core", tree.result?.core);
  const json = await relay.call("accessibility_snapshot", { format: "json" });
  const parsed = json.ok ? JSON.parse(json.result.snapshot) : null;
  check(json.ok && json.result.documentCount === 4, "accessibility_snapshot collects the top document and its three frames", json.ok ? json.result.documentCount : json);
  if (parsed) {
    const whos = parsed.documents.slice(1).map((d) => new URL(d.url).searchParams.get("who"));
    check(JSON.stringify(whos) === JSON.stringify(["same", "cross", "hidden"]), "frames come in document order, cross-origin included", whos);
  }
  const noFrame = await relay.call("get_accessibility_tree", { frameId: 987654 });
  check(!noFrame.ok && noFrame.error.code === "frame_not_found", "an unknown frameId is frame_not_found", noFrame);
  const big = await relay.call("get_accessibility_tree", { padding: "x".repeat(600 * 1024) });
  check(!big.ok && big.error.code === "invalid_arguments", "a chunked call is reassembled (and its unknown argument refused)", big.ok ? "ok" : big.error.message);

  for (const page of ["script-self", "report-only", "meta"]) {
    const url = `${origins.a}/pages/csp/${page}.html`;
    const opened = await relay.call("navigate", { url });
    check(opened.ok && opened.result.url === url, `${page}: navigate`, opened);
    const snapshot = await relay.call("accessibility_snapshot", { format: "yaml" });
    check(snapshot.ok && snapshot.result.documentCount >= 2, `${page}: snapshot of every frame`, snapshot.ok ? snapshot.result.documentCount : snapshot);
    const { contexts } = await bidi.send("browsingContext.getTree", {});
    const evaluated = await bidi.send("script.evaluate", {
      expression: "document.getElementById('violations')?.textContent ?? 'none'",
      target: { context: contexts[0].context },
      awaitPromise: false,
    });
    check(evaluated.result?.value === "0", `${page}: the page saw no CSP violation`, evaluated.result);
  }
  await new Promise((resolve) => setTimeout(resolve, 300));
  check(reports.length === 0, "no CSP report reached the fixture server", reports);
}

async function startFirefox(profile) {
  await mkdir(profile, { recursive: true });
  const home = path.join(work, "home");
  await mkdir(home, { recursive: true });
  const child = spawn("firefox-esr", ["-headless", "-no-remote", "-profile", profile, "--remote-debugging-port=0"], {
    env: { ...process.env, HOME: home, TMPDIR: home, XDG_CONFIG_HOME: home },
    stdio: ["ignore", "ignore", "pipe"],
  });
  cleanups.push(() => new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once("exit", resolve);
    child.kill("SIGTERM");
  }));
  const endpoint = await withTimeout(new Promise((resolve, reject) => {
    let text = "";
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (piece) => {
      text += piece;
      const match = /WebDriver BiDi listening on (ws:\/\/\S+)/.exec(text);
      if (match) resolve(match[1]);
    });
    child.once("exit", (code) => reject(new Error(`firefox exited with ${code}: ${text.slice(-2000)}`)));
  }), 30_000, "firefox did not start");
  const socket = new WebSocket(`${endpoint.replace(/\/$/, "")}/session`);
  await new Promise((resolve, reject) => { socket.onopen = resolve; socket.onerror = () => reject(new Error("BiDi socket failed")); });
  cleanups.push(() => socket.close());
  let nextId = 1;
  const pending = new Map();
  socket.onmessage = (event) => {
    const message = JSON.parse(event.data);
    if (message.id !== undefined && pending.has(message.id)) {
      pending.get(message.id)(message);
      pending.delete(message.id);
    }
  };
  const send = async (method, params) => {
    const id = nextId++;
    socket.send(JSON.stringify({ id, method, params }));
    const reply = await withTimeout(new Promise((resolve) => pending.set(id, resolve)), 30_000, `BiDi ${method} timed out`);
    if (reply.type === "error") throw new Error(`BiDi ${method}: ${reply.error}: ${reply.message}`);
    return reply.result;
  };
  await send("session.new", { capabilities: {} });
  return { send };
}

// ---------------------------------------------------------------------------------------------

async function generatedComplete() {
  for (const file of ["content/accessibility-tree.js", "generated/ax-core-wasm.js", "generated/ax-core-js.js"]) {
    try {
      await stat(path.join(root, "extension", file));
    } catch {
      return false;
    }
  }
  return true;
}

/** Stand-ins with the page-side API's shape; the "document" names the core it was given. */
async function writeStandIns(source) {
  await mkdir(path.join(source, "generated"), { recursive: true });
  // The WASM stand-in compiles an empty module, as the real one would: on a page whose policy
  // forbids it, that is the violation the page must never see.
  await writeFile(path.join(source, "generated", "ax-core-wasm.js"),
    "new WebAssembly.Module(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0]));\nglobalThis.standInCore = \"wasm\";\n");
  await writeFile(path.join(source, "generated", "ax-core-js.js"), "globalThis.standInCore = \"js\";\n");
  await writeFile(path.join(source, "content", "accessibility-tree.js"), `"use strict";
(function () {
  const runtime = (globalThis.browser ?? globalThis.chrome).runtime;
  async function core() {
    if (globalThis.standInCore === undefined) {
      const metaPolicies = Array.from(document.querySelectorAll("meta[http-equiv='Content-Security-Policy']"), (m) => m.content);
      const reply = await runtime.sendMessage({ kind: "allwright/load-core", metaPolicies });
      if (reply?.ok === false) throw reply.error;
      if (reply.core !== globalThis.standInCore) throw { code: "script_failed", message: "core mismatch" };
    }
    return globalThis.standInCore;
  }
  globalThis.allwrightAx = {
    async generateAccessibilityTree(args) {
      const kind = await core();
      return { tree: "stand-in tree of " + document.title, truncated: false, hasMore: false, autoDegraded: false, page: 1, pageCount: 1, core: kind, args };
    },
    async snapshotDocument(args) {
      const kind = await core();
      const fields = { contextId: args.contextId, parentContextId: args.parentContextId, url: document.URL, title: document.title,
        root: { role: "document", name: kind, states: {}, properties: {}, children: [] } };
      if (args.format === "json") return { document: JSON.stringify(fields) };
      return { document: "  - " + Object.entries(fields).map(([k, v]) => JSON.stringify(k) + ": " + JSON.stringify(v)).join("\\n    ") + "\\n" };
    },
  };
})();
`);
}

function runNode(args) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ["ignore", "inherit", "inherit"] });
    child.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`node ${args[0]} exited with ${code}`))));
  });
}

/** fixtures/ on two origins, as tests/support/fixture_server.rs serves it. */
async function startFixtureServers(reports) {
  const servers = [];
  const origins = {};
  for (const name of ["a", "b"]) {
    const server = http.createServer(async (request, response) => {
      const url = new URL(request.url, "http://x");
      if (request.method === "POST" && url.pathname === "/csp-report") {
        let body = "";
        for await (const piece of request) body += piece;
        reports.push({ page: url.searchParams.get("page"), body });
        response.writeHead(204).end();
        return;
      }
      const file = path.join(root, "fixtures", path.normalize(url.pathname));
      try {
        let body = await readFile(file);
        const headers = { "content-type": file.endsWith(".js") ? "text/javascript" : "text/html; charset=utf-8" };
        try {
          for (const line of (await readFile(`${file}.headers`, "utf8")).split("\n")) {
            const colon = line.indexOf(":");
            if (colon > 0) headers[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
          }
        } catch { /* no sidecar headers */ }
        if (file.endsWith(".html")) {
          body = body.toString("utf8").replaceAll("{{OTHER_ORIGIN}}", name === "a" ? origins.b : origins.a)
            .replaceAll("{{SELF_ORIGIN}}", origins[name]);
        }
        response.writeHead(200, headers).end(body);
      } catch {
        response.writeHead(404).end("not found");
      }
    });
    await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
    // Two hosts make the second origin cross-site, not only cross-port.
    origins[name] = `http://${name === "a" ? "127.0.0.1" : "localhost"}:${server.address().port}`;
    servers.push(server);
  }
  cleanups.push(() => Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve)))));
  return origins;
}

/**
 * The test's side of the stand-in host: a TCP server the host process connects to, one JSON
 * message per line in each direction.
 */
async function startRelay() {
  let socket = null;
  let buffer = "";
  let nextId = 1;
  const pending = new Map();
  const hellos = [];
  const helloWaiters = [];
  const disconnectWaiters = [];
  const server = net.createServer((connection) => {
    socket = connection;
    connection.setEncoding("utf8");
    connection.on("data", (text) => {
      buffer += text;
      let newline;
      while ((newline = buffer.indexOf("\n")) !== -1) {
        const message = JSON.parse(buffer.slice(0, newline));
        buffer = buffer.slice(newline + 1);
        if (message.type === "hello") {
          const waiter = helloWaiters.shift();
          if (waiter) waiter(message);
          else hellos.push(message);
        } else if (message.type === "result" && pending.has(message.id)) {
          pending.get(message.id)(message);
          pending.delete(message.id);
        }
      }
    });
    connection.on("close", () => {
      if (socket === connection) socket = null;
      buffer = "";
      for (const waiter of disconnectWaiters.splice(0)) waiter(true);
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  cleanups.push(() => new Promise((resolve) => { socket?.destroy(); server.close(resolve); }));
  return {
    port: server.address().port,
    nextHello(timeoutMs) {
      if (hellos.length > 0) return Promise.resolve(hellos.shift());
      return withTimeout(new Promise((resolve) => helloWaiters.push(resolve)), timeoutMs, "no hello from the extension");
    },
    waitForDisconnect(timeoutMs) {
      if (socket === null) return Promise.resolve(true);
      return withTimeout(new Promise((resolve) => disconnectWaiters.push(resolve)), timeoutMs, "").catch(() => false);
    },
    call(tool, args) {
      if (socket === null) return Promise.resolve({ ok: false, error: { code: "not_connected", message: "no host connected" } });
      const id = String(nextId++);
      socket.write(`${JSON.stringify({ type: "call", id, tool, arguments: args })}\n`);
      return withTimeout(new Promise((resolve) => pending.set(id, resolve)), 30_000, `no result for ${tool}`);
    },
  };
}

/** A native host that relays to the test over TCP and chunks large messages as the real one does. */
async function installStandInHost(profile, relayPort, target) {
  const hostScript = path.join(work, "stand-in-host.mjs");
  await writeFile(hostScript, `import net from "node:net";
const socket = net.connect(${relayPort}, "127.0.0.1");
socket.setEncoding("utf8");
let pending = Buffer.alloc(0);
process.stdin.on("data", (data) => {
  pending = Buffer.concat([pending, data]);
  while (pending.length >= 4) {
    const length = pending.readUInt32LE(0);
    if (pending.length < 4 + length) break;
    socket.write(pending.subarray(4, 4 + length).toString("utf8") + "\\n");
    pending = pending.subarray(4 + length);
  }
});
process.stdin.on("end", () => { socket.end(); process.exit(0); });
function send(text) {
  const body = Buffer.from(text, "utf8");
  const header = Buffer.alloc(4);
  header.writeUInt32LE(body.length, 0);
  process.stdout.write(Buffer.concat([header, body]));
}
let lines = "";
let series = 0;
socket.on("data", (text) => {
  lines += text;
  let newline;
  while ((newline = lines.indexOf("\\n")) !== -1) {
    const line = lines.slice(0, newline);
    lines = lines.slice(newline + 1);
    if (line.length <= 512 * 1024) { send(line); continue; }
    const characters = [...line];
    const size = 256 * 1024;
    const count = Math.ceil(characters.length / size);
    const id = "series-" + (series += 1);
    for (let index = 0; index < count; index += 1) {
      send(JSON.stringify({ type: "chunk", id, index, count, data: characters.slice(index * size, (index + 1) * size).join("") }));
    }
  }
});
socket.on("close", () => process.exit(0));
`);
  const launcher = path.join(work, "stand-in-host.sh");
  await writeFile(launcher, `#!/bin/sh\nexec "${process.execPath}" "${hostScript}" "$@"\n`);
  await chmod(launcher, 0o755);
  // Chromium with --user-data-dir reads <profile>/NativeMessagingHosts; Firefox reads
  // $HOME/.mozilla/native-messaging-hosts, with HOME pointed at the test's folder (RECIPES.md).
  const manifestDir = target === "firefox"
    ? path.join(work, "home", ".mozilla", "native-messaging-hosts")
    : path.join(profile, "NativeMessagingHosts");
  await mkdir(manifestDir, { recursive: true });
  const allowed = target === "firefox"
    ? { allowed_extensions: [identity.geckoId] }
    : { allowed_origins: [`chrome-extension://${identity.chromeExtensionId}/`] };
  await writeFile(path.join(manifestDir, `${identity.nativeHostName}.json`), JSON.stringify({
    name: identity.nativeHostName,
    description: "allwright smoke-test stand-in host",
    path: launcher,
    type: "stdio",
    ...allowed,
  }));
}

async function startChromium(extensionDir, profile) {
  const tmp = path.join(work, "tmp");
  await mkdir(tmp, { recursive: true });
  const child = spawn(CHROMIUM, [
    "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    `--user-data-dir=${profile}`, `--load-extension=${extensionDir}`, `--disable-extensions-except=${extensionDir}`,
    "--remote-debugging-port=0", "about:blank",
  ], { env: { ...process.env, TMPDIR: tmp, XDG_CONFIG_HOME: tmp, HOME: tmp }, stdio: ["ignore", "ignore", "pipe"] });
  cleanups.push(() => new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once("exit", resolve);
    child.kill("SIGTERM");
  }));
  const endpoint = await withTimeout(new Promise((resolve, reject) => {
    let text = "";
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (piece) => {
      text += piece;
      const match = /DevTools listening on (ws:\/\/\S+)/.exec(text);
      if (match) resolve(match[1]);
    });
    child.once("exit", (code) => reject(new Error(`chromium exited with ${code}: ${text.slice(-2000)}`)));
  }), 20_000, "chromium did not start");
  return { endpoint };
}

async function serviceWorker(context) {
  const prefix = `chrome-extension://${identity.chromeExtensionId}/`;
  for (let i = 0; i < 100; i += 1) {
    const found = context.serviceWorkers().find((w) => w.url().startsWith(prefix)) ?? context.serviceWorkers()[0];
    if (found) return found;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error("the extension's service worker did not start");
}

async function tabIdOf(worker, url) {
  const tabs = await worker.evaluate(() => globalThis.chrome.tabs.query({}));
  return tabs.find((tab) => tab.url === url)?.id;
}

function withTimeout(promise, ms, message) {
  let timer;
  return Promise.race([promise, new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(message)), ms); })])
    .finally(() => clearTimeout(timer));
}
