// The anatomy of one warm tree read (issue 14, item 1), `npm run bench -- --anatomy [--sizes
// 10000] [--runs 7]`: through `allwright mcp --launch chromium --headless`, on the generated page
// without a policy (the core in the page, `wasm-page`) and with `script-src 'self'` (the core in
// the service worker, `wasm-worker`), it times warm `get_accessibility_tree {filter: "all"}`
// round trips while the DevTools CPU profiler samples the page's renderer thread (where the
// content script runs) and the extension's service worker, every 50 µs. Nothing is added to the
// extension or the binary for it: the profiler sees every function by name, so a timing switch
// that could be left on by mistake is not needed. It prints, per read, the busy time of each
// thread, the functions by inclusive and by self time, and what is left of the round trip for
// the processes the profiler does not see (the MCP server, the native host, the browser's
// messaging between them and the extension). The one-button page's round trip and `list_tabs`
// measure that fixed path alone.

import { createRequire } from 'node:module';
import { loadavg } from 'node:os';
import path from 'node:path';
import { bareWalk, generatedPage, McpClient, median, startServer, withTimeout } from './bench-lib.mjs';

const require = createRequire(import.meta.url);
// playwright-core carries a WebSocket client; Node 20 has none without a flag.
const { ws: WebSocket } = require('playwright-core/lib/utilsBundle');

const CSP = "script-src 'self'";
const WHOLE_TREE = 1_000_000;
const ONE_BUTTON = '<!doctype html><html lang="en"><head><title>One</title></head><body><button>Go</button></body></html>';

/** A flat DevTools protocol client over the browser's WebSocket, with sessions (flatten mode). */
class DevTools {
  #socket;
  #next = 1;
  #waiting = new Map();

  static async connect(httpEndpoint) {
    const version = await (await fetch(`${httpEndpoint}/json/version`)).json();
    const socket = new WebSocket(version.webSocketDebuggerUrl, { perMessageDeflate: false, maxPayload: 256 * 1024 * 1024 });
    await new Promise((resolve, reject) => {
      socket.once('open', resolve);
      socket.once('error', reject);
    });
    return new DevTools(socket);
  }

  constructor(socket) {
    this.#socket = socket;
    socket.on('message', (data) => {
      const message = JSON.parse(data.toString());
      const waiter = message.id === undefined ? undefined : this.#waiting.get(message.id);
      if (waiter === undefined) return;
      this.#waiting.delete(message.id);
      if (message.error) waiter.reject(new Error(`${waiter.method}: ${message.error.message}`));
      else waiter.resolve(message.result);
    });
  }

  send(method, params = {}, sessionId = undefined) {
    const id = this.#next++;
    const promise = new Promise((resolve, reject) => this.#waiting.set(id, { resolve, reject, method }));
    this.#socket.send(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }));
    return withTimeout(promise, 60_000, method);
  }

  close() {
    this.#socket.close();
  }
}

/**
 * Self and inclusive time per function of a V8 CPU profile, in ms. A sample's time is the delta
 * to the next sample (as DevTools attributes it); a function counts once per sample however
 * often it recurs on the stack.
 */
function analyse(profile) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parentOf = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
  const keyOf = (node) => {
    const { functionName, url, lineNumber } = node.callFrame;
    const file = url ? path.basename(url.split('?')[0]) : '';
    return `${functionName || '(anonymous)'}${file ? ` ${file}:${lineNumber + 1}` : ''}`;
  };
  const self = new Map();
  const inclusive = new Map();
  let busy = 0;
  for (let index = 0; index < profile.samples.length; index++) {
    const delta = (profile.timeDeltas[index + 1] ?? 0) / 1000;
    const leaf = byId.get(profile.samples[index]);
    const leafKey = keyOf(leaf);
    self.set(leafKey, (self.get(leafKey) ?? 0) + delta);
    if (leafKey === '(idle)') continue;
    busy += delta;
    const seen = new Set();
    for (let id = leaf.id; id !== undefined; id = parentOf.get(id)) {
      const key = keyOf(byId.get(id));
      if (seen.has(key)) continue;
      seen.add(key);
      inclusive.set(key, (inclusive.get(key) ?? 0) + delta);
    }
  }
  return { self, inclusive, busy };
}

function top(map, count, reads) {
  return [...map]
    .filter(([key]) => key !== '(idle)' && key !== '(root)')
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([key, ms]) => `    ${(ms / reads).toFixed(2).padStart(8)} ms  ${key}`)
    .join('\n');
}

/** The bare walk (bench-lib.mjs) in the page's own world, timed inside the page: median of 5 after one. */
async function bareWalkIn(devtools, url) {
  const { targetInfos } = await devtools.send('Target.getTargets');
  const page = targetInfos.find((target) => target.type === 'page' && target.url === url);
  if (!page) throw new Error(`no page target at ${url}`);
  const { sessionId } = await devtools.send('Target.attachToTarget', { targetId: page.targetId, flatten: true });
  try {
    const walks = [];
    for (let run = 0; run < 6; run++) {
      const { result } = await devtools.send('Runtime.evaluate', { expression: `(${bareWalk.toString()})()`, returnByValue: true }, sessionId);
      walks.push(result.value.ms);
    }
    return median(walks.slice(1));
  } finally {
    await devtools.send('Target.detachFromTarget', { sessionId }).catch(() => {});
  }
}

/** Attaches to a target and starts its sampling profiler. */
async function profilerOn(devtools, targetId) {
  const { sessionId } = await devtools.send('Target.attachToTarget', { targetId, flatten: true });
  await devtools.send('Profiler.enable', {}, sessionId);
  await devtools.send('Profiler.setSamplingInterval', { interval: 50 }, sessionId);
  return sessionId;
}

/**
 * Without `extensions`, one session of the extension the binary finds (its checkout's dist/).
 * With `--extensions A,B` (built extension folders, e.g. a copy of dist/chrome from before a
 * change and dist/chrome after it), sessions of each in turn, `--rounds` times (default 3), so
 * that a change is measured before and after in the same run on the same machine; the profiler
 * then stays off and only the round trips are timed.
 * @param {{sizes: number[], runs: number, endpointOf: (pid: number) => string|null, binary: string, root: string,
 *   extensions?: string[], rounds?: number}} options
 */
export async function measureAnatomy(options) {
  const { extensions, rounds = 3 } = options;
  if (extensions === undefined || extensions.length === 0) return measureOneSession(options, undefined, true);
  const report = { extensions, rounds: [] };
  for (let round = 0; round < rounds; round++) {
    const results = {};
    for (const extension of extensions) {
      console.log(`\n#### round ${round + 1}, extension ${extension}`);
      results[extension] = await measureOneSession(options, extension, false);
    }
    report.rounds.push(results);
  }
  console.log('\nwarm round trips, median of each session, ms:');
  for (const key of Object.keys(report.rounds[0][extensions[0]]).filter((name) => name.includes('-'))) {
    for (const extension of extensions) {
      const values = report.rounds.map((round) => round[extension][key].warmMs);
      console.log(`  ${key.padEnd(14)} ${extension.padEnd(40)} ${values.map((value) => value.toFixed(1)).join('  ')}  (median ${median(values).toFixed(1)})`);
    }
  }
  for (const key of Object.keys(report.rounds[0][extensions[0]]).filter((name) => name.includes('-'))) {
    for (const extension of extensions) {
      const walks = report.rounds.map((round) => round[extension][key].bareWalkMs);
      const perWalk = report.rounds.map((round) => round[extension][key].readAndTransferPerWalk);
      const inPage = report.rounds.map((round) => round[extension][key].inPagePerWalk ?? Number.NaN);
      console.log(`  ${key.padEnd(14)} ${path.basename(extension).padEnd(30)} bare walk ${median(walks).toFixed(1)} ms; read and transfer ${median(perWalk).toFixed(2)}x the walk; in the page ${median(inPage).toFixed(2)}x`);
    }
  }
  // With call-timing builds, each step too: the median over the sessions of each session's median.
  const first = report.rounds[0][extensions[0]];
  for (const key of Object.keys(first).filter((name) => name.includes('-') && first[name].hops)) {
    console.log(`\nsteps of ${key}, ms (${extensions.map((extension) => path.basename(extension)).join(' | ')}):`);
    for (const step of Object.keys(first[key].hops)) {
      const columns = extensions.map((extension) =>
        median(report.rounds.map((round) => round[extension][key].hops?.[step] ?? Number.NaN)).toFixed(1).padStart(7));
      console.log(`  ${columns.join(' ')}  ${step}`);
    }
  }
  return report;
}

async function measureOneSession({ sizes, runs, endpointOf, binary, root }, extension, profile) {
  const routes = new Map([['/one.html', { body: ONE_BUTTON }]]);
  for (const size of sizes) {
    routes.set(`/anatomy-${size}.html`, { body: generatedPage(size) });
    routes.set(`/csp/anatomy-${size}.html`, { body: generatedPage(size), headers: { 'content-security-policy': CSP } });
  }
  const server = await startServer(routes);
  const env = extension === undefined ? process.env : { ...process.env, ALLWRIGHT_EXTENSION_DIR: extension };
  const mcp = new McpClient(binary, ['mcp', '--launch', 'chromium', '--headless'], { cwd: root, env });
  const report = {};
  try {
    await mcp.initialize(120_000);
    const endpoint = endpointOf(mcp.child.pid);
    if (endpoint === null) throw new Error('no DevTools address of the launched Chromium');
    const devtools = await DevTools.connect(endpoint);
    try {
      // The fixed path: a tree read of a one-button page, and list_tabs (no page at all).
      await mcp.callTool('navigate', { url: `${server.origin}/one.html` }, 60_000);
      const small = [];
      const tabs = [];
      for (let run = 0; run < runs + 3; run++) {
        small.push((await mcp.callTool('get_accessibility_tree', { filter: 'all' }, 60_000)).ms);
        tabs.push((await mcp.callTool('list_tabs', {}, 60_000)).ms);
      }
      report.oneButtonTreeMs = median(small.slice(3));
      report.listTabsMs = median(tabs.slice(3));
      console.log(`fixed path: one-button tree read ${report.oneButtonTreeMs.toFixed(1)} ms, list_tabs ${report.listTabsMs.toFixed(1)} ms`);
      for (const size of sizes) {
        for (const [variant, pagePath] of [['open', `/anatomy-${size}.html`], ['strict', `/csp/anatomy-${size}.html`]]) {
          const url = server.origin + pagePath;
          await mcp.callTool('navigate', { url }, 120_000);
          let engine = null;
          for (let run = 0; run < 4; run++) {
            engine = (await mcp.callTool('get_accessibility_tree', { filter: 'all', maxChars: WHOLE_TREE }, 120_000)).result.engine;
          }
          // Unprofiled warm reads first, so the profiler's own cost shows as the difference.
          const plain = [];
          const stamped = [];
          for (let run = 0; run < runs; run++) {
            const sent = performance.timeOrigin + performance.now();
            const call = await mcp.callTool('get_accessibility_tree', { filter: 'all', maxChars: WHOLE_TREE }, 120_000);
            const received = performance.timeOrigin + performance.now();
            plain.push(call.ms);
            if (call.result.timing) stamped.push({ ...call.result.timing, clientSent: sent, clientReceived: received });
          }
          const hops = stamped.length === 0 ? null : hopTable(stamped);
          const walkMs = await bareWalkIn(devtools, url);
          const ratios = {
            bareWalkMs: walkMs,
            // What the read adds to a tool call's fixed cost (a one-button page's read).
            readAndTransferMs: median(plain) - report.oneButtonTreeMs,
          };
          ratios.readAndTransferPerWalk = ratios.readAndTransferMs / walkMs;
          if (hops !== null) ratios.inPagePerWalk = hops['in page (content handler)'] / walkMs;
          console.log(`  ${size} ${variant}: bare walk ${walkMs.toFixed(1)} ms; round trip less the one-button read ${ratios.readAndTransferMs.toFixed(1)} ms = ${ratios.readAndTransferPerWalk.toFixed(2)}x the walk${hops === null ? '' : `; in the page ${hops['in page (content handler)'].toFixed(1)} ms = ${ratios.inPagePerWalk.toFixed(2)}x`}`);
          if (hops !== null) {
            console.log(`  ${size} ${variant} (${engine}): steps of the warm read (call-timing build), medians of ${stamped.length} reads, ms:`);
            for (const [step, ms] of Object.entries(hops)) if (!Number.isNaN(ms)) console.log(`    ${ms.toFixed(1).padStart(7)}  ${step}`);
          }
          if (!profile) {
            report[`${size}-${variant}`] = { engine, warmMs: median(plain), warmSamples: plain, hops, ...ratios };
            console.log(`  ${size} ${variant} (${engine}): warm ${median(plain).toFixed(1)} ms`);
            continue;
          }
          const { targetInfos } = await devtools.send('Target.getTargets');
          const page = targetInfos.find((target) => target.type === 'page' && target.url === url);
          const worker = targetInfos.find((target) => target.type === 'service_worker' && target.url.startsWith('chrome-extension://'));
          if (!page || !worker) throw new Error(`targets not found (page ${Boolean(page)}, worker ${Boolean(worker)})`);
          const sessions = [await profilerOn(devtools, page.targetId), await profilerOn(devtools, worker.targetId)];
          for (const sessionId of sessions) await devtools.send('Profiler.start', {}, sessionId);
          const profiled = [];
          let chars = 0;
          for (let run = 0; run < runs; run++) {
            const call = await mcp.callTool('get_accessibility_tree', { filter: 'all', maxChars: WHOLE_TREE }, 120_000);
            profiled.push(call.ms);
            chars = call.result.tree.length;
          }
          const [pageProfile, workerProfile] = await Promise.all(
            sessions.map(async (sessionId) => (await devtools.send('Profiler.stop', {}, sessionId)).profile),
          );
          for (const sessionId of sessions) await devtools.send('Target.detachFromTarget', { sessionId }).catch(() => {});
          const pageTimes = analyse(pageProfile);
          const workerTimes = analyse(workerProfile);
          const entry = {
            engine,
            chars,
            warmMs: median(plain),
            warmSamples: plain,
            hops,
            ...ratios,
            profiledMs: median(profiled),
            pageBusyMs: pageTimes.busy / runs,
            workerBusyMs: workerTimes.busy / runs,
          };
          entry.restMs = entry.profiledMs - entry.pageBusyMs - entry.workerBusyMs;
          report[`${size}-${variant}`] = entry;
          console.log(`\n== ${size} elements, ${variant} page (${engine}), ${count(chars)} characters ==`);
          console.log(`  warm round trip ${entry.warmMs.toFixed(1)} ms (profiled: ${entry.profiledMs.toFixed(1)} ms); per read: page thread busy ${entry.pageBusyMs.toFixed(1)} ms, service worker busy ${entry.workerBusyMs.toFixed(1)} ms, rest (MCP server, host, browser messaging, waits) ${entry.restMs.toFixed(1)} ms`);
          console.log(`  page thread, inclusive:\n${top(pageTimes.inclusive, 40, runs)}`);
          console.log(`  page thread, self:\n${top(pageTimes.self, 20, runs)}`);
          console.log(`  service worker, inclusive:\n${top(workerTimes.inclusive, 30, runs)}`);
          console.log(`  service worker, self:\n${top(workerTimes.self, 15, runs)}`);
        }
      }
    } finally {
      devtools.close();
    }
  } finally {
    await mcp.close().catch(() => {});
    await server.close();
  }
  console.log(`\nLoad average at the end: ${loadavg().map((value) => value.toFixed(2)).join(' ')}`);
  return report;
}

/**
 * The steps of a read from the stamps a call-timing build returns (`timing`: the page's, the
 * service worker's and this process's clocks, all in ms since the epoch), medians in ms. Also
 * used by bench-cold.mjs for the first read of a document.
 */
export function hopTable(samples) {
  const steps = [
    ['MCP server, host, native messaging to the background', 'clientSent', 'backgroundReceived'],
    ['background: call log, contract, tab, ref check', 'backgroundReceived', 'backgroundReadStart'],
    ["background: the tab's ref record (storage.session)", 'backgroundReadStart', 'recordLoaded'],
    ["background: the tab's frame list (webNavigation, executeScript)", 'recordLoaded', 'framesListed'],
    ['tabs.sendMessage to the content script', 'framesListed', 'received'],
    ['content: the frame\'s read queue, the core loaded', 'received', 'coreLoaded'],
    ['content: registry sweep, change observer', 'coreLoaded', 'swept'],
    ['content: gathering the facts', 'swept', 'gathered'],
    ['content: core call (in the page, or the worker trip) and since bookkeeping', 'gathered', 'coreDone'],
    ['  since bookkeeping (form state, referrers; during the worker trip)', 'coreStarted', 'marked'],
    ['  worker trip: packing, generated content (content)', 'gathered', 'workerPacked'],
    ['  worker trip: request (serialisation, IPC, parsing)', 'workerPacked', 'workerReceived'],
    ['  worker trip: checks, base64 of the facts (worker)', 'workerReceived', 'workerDecoded'],
    ['  worker trip: the core (worker)', 'workerDecoded', 'workerCoreDone'],
    ['  worker trip: base64 of the records (worker)', 'workerCoreDone', 'workerReplied'],
    ['  worker trip: reply (serialisation, IPC, parsing)', 'workerReplied', 'workerAnswered'],
    ['  worker trip: the records written (content)', 'workerAnswered', 'coreDone'],
    ['content: output split, refs registered', 'coreDone', 'registered'],
    ['content: snapshot kept, result built', 'registered', 'readEnd'],
    ['content: handler end', 'readEnd', 'replied'],
    ['reply to the background (serialisation, IPC; a handed-off read: its core call)', 'replied', 'frameAnswered'],
    ['background: a handed-off read\'s core and result', 'frameAnswered', 'readFinished'],
    ['background: read coverage, call log', 'readFinished', 'backgroundAnswered'],
    ['reply: size check, native messaging, host, MCP server, client', 'backgroundAnswered', 'clientReceived'],
    ['whole round trip', 'clientSent', 'clientReceived'],
    ['in page (content handler)', 'received', 'replied'],
  ];
  // A step whose stamps a read does not take (the worker trip of a read in the page, or the
  // content script's steps after a read it handed to the background) is left out.
  return Object.fromEntries(
    steps
      .map(([name, from, to]) => [name, median(samples.map((sample) => sample[to] - sample[from]))])
      .filter(([, ms]) => Number.isFinite(ms)),
  );
}

function count(value) {
  return value.toLocaleString('en-US');
}
