// Benchmark (not a test; scripts/test never runs it): the first read of a document (issue 14,
// item 2), and where the core runs on strict-CSP pages (item 1).
//
//   npm run bench -- --cold [--sizes 10000] [--runs 5] [--browsers chromium,firefox]
//   node tests/browser/bench-cold.mjs [same options]
//
// On the generated page (tests/browser/bench-lib.mjs), served without a policy ("open") and
// with `Content-Security-Policy: script-src 'self'` ("strict"), per browser:
//   1. MCP round trips through `target/release/allwright mcp --launch BROWSER --headless --dev`:
//      per run, `navigate` to a new document, then `get_accessibility_tree {filter: all}` four
//      times: the first is the cold read (the core is loaded for this document), the median of
//      the other three the warm one; then, on another new document, the first read after a
//      pause of PAUSE_MS (an agent's think time, during which the core is prepared and warmed up:
//      background/core/core-warmup.js). The engine each read names (`engine`) is reported. The
//      bare walk of docs/performance.md runs in the open page through `execute_js` (the page's
//      own world, timed inside the page), so that Firefox is measured against its own walk.
//   2. Chromium only, Playwright (playwright-core, the same browser binary): per run, a new page,
//      its first `locator('body').ariaSnapshot()` (cold) and the median of three more (warm).
//   3. Chromium only, where the cold read's time goes, in the page's world of a Playwright page
//      (as bench.mjs's in-page measurement does): evaluating the WASM core's script (parse and
//      base64 decode; the compilation starts), waiting for `ready` (compile and instantiate),
//      the base64 decode alone and `WebAssembly.compile` alone on the same bytes, evaluating the
//      tree bundle, then the first, second and third `generateAccessibilityTree` (the first
//      includes the first gather after the load and the core's first calls).
// Prints the tables of docs/performance/strict-csp.md ("The first read of a document") and writes
// target/bench/cold.json. Needs the release binary, dist/ and extension/generated/ (./scripts/build
// and cargo build --release).

import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { bareWalk, generatedPage, McpClient, median, runScript, startServer, withTimeout } from './bench-lib.mjs';
import { hopTable } from './bench-anatomy.mjs';
import { bundleTreeForPageTests } from '../../scripts/build-extension.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CHROMIUM = '/usr/lib/chromium/chromium';
const BINARY = path.join(root, 'target/release/allwright');
const CSP = "script-src 'self'";
const RESULTS = path.join(root, 'target/bench/cold.json');
const WHOLE_TREE = 1_000_000;

const argv = process.argv.slice(2);
const optionValue = (name) => {
  const index = argv.indexOf(name);
  return index >= 0 ? argv[index + 1] : undefined;
};
const size = Number((optionValue('--sizes') ?? '10000').split(',')[0]);
const runs = Number(optionValue('--runs') ?? 5);
const browsers = (optionValue('--browsers') ?? 'chromium,firefox').split(',');
const timeout = 60_000 + size * 3;
const WARM_READS = 3;
/** The pause between navigate and the first read in the "after a pause" column. */
const PAUSE_MS = 1000;

const ms = (value) => (Number.isFinite(value) ? value.toFixed(1) : 'n/a');
const ratio = (value) => (Number.isFinite(value) ? value.toFixed(2) : 'n/a');

const pagePath = (variant, run) => `/${variant}-${run}.html`;

/** MCP reads in one browser: cold and warm per variant, and the bare walk of the open page. */
async function measureMcp(browser, origin) {
  const mcp = new McpClient(BINARY, ['mcp', '--launch', browser, '--headless', '--dev'], { cwd: root });
  try {
    await mcp.initialize(120_000);
    const result = {};
    for (const variant of ['open', 'strict']) {
      const cold = [];
      const warm = [];
      const engines = new Set();
      // The engine of each cold read apart, so that a cold read on another route than the warm
      // ones shows (docs/performance/warm-read.md, "The read sent the instant `navigate` returns").
      const coldEngines = [];
      const coldAfterPause = [];
      const coldStamps = [];
      const warmStamps = [];
      for (let run = 0; run < runs; run += 1) {
        await mcp.callTool('navigate', { url: origin + pagePath(variant, run) }, timeout);
        const reads = [];
        for (let read = 0; read <= WARM_READS; read += 1) {
          const sent = performance.timeOrigin + performance.now();
          const call = await mcp.callTool('get_accessibility_tree', { filter: 'all', maxChars: WHOLE_TREE }, timeout);
          const received = performance.timeOrigin + performance.now();
          reads.push(call.ms);
          // A call-timing build (ALLWRIGHT_CALL_TIMING=1 node scripts/build-extension.mjs) stamps
          // each step of the read: the cold and the warm reads' steps are printed side by side.
          if (call.result.timing) {
            (read === 0 ? coldStamps : warmStamps).push({ ...call.result.timing, clientSent: sent, clientReceived: received });
          }
          engines.add(call.result.engine);
          if (read === 0) coldEngines.push(call.result.engine);
        }
        cold.push(reads[0]);
        warm.push(median(reads.slice(1)));
        // The same first read when the agent takes a moment after navigate, as a model does
        // (the core was prepared meanwhile: background/core/core-warmup.js).
        await mcp.callTool('navigate', { url: `${origin + pagePath(variant, run)}?paused` }, timeout);
        await new Promise((resolve) => setTimeout(resolve, PAUSE_MS));
        const paused = await mcp.callTool('get_accessibility_tree', { filter: 'all', maxChars: WHOLE_TREE }, timeout);
        coldAfterPause.push(paused.ms);
        engines.add(paused.result.engine);
      }
      result[variant] = {
        coldMs: median(cold),
        warmMs: median(warm),
        coldFirstRunMs: cold[0],
        coldLaterRunsMs: median(cold.slice(1)),
        coldSamples: cold,
        coldAfterPauseMs: median(coldAfterPause),
        coldAfterPauseSamples: coldAfterPause,
        warmSamples: warm,
        engines: [...engines],
        coldEngines,
      };
      if (coldStamps.length > 0 && warmStamps.length > 0) {
        // The session's first document apart: its read also runs code new to the browser's
        // processes (the first column), where later documents' first reads do not (the second).
        const firstDocumentSteps = hopTable(coldStamps.slice(0, 1));
        const coldSteps = hopTable(coldStamps.slice(1));
        const warmSteps = hopTable(warmStamps);
        Object.assign(result[variant], { firstDocumentSteps, coldSteps, warmSteps });
        console.log(`  ${browser} ${variant}: steps of the first document's | later documents' cold | warm reads (call-timing build), medians, ms:`);
        for (const [step, coldMs] of Object.entries(coldSteps)) {
          if (Number.isNaN(coldMs)) continue;
          console.log(`    ${ms(firstDocumentSteps[step]).padStart(7)} ${ms(coldMs).padStart(7)} ${ms(warmSteps[step]).padStart(7)}  ${step}`);
        }
      }
      console.log(`  ${browser} ${variant}: cold ${ms(result[variant].coldMs)} ms (first document ${ms(cold[0])}; after a ${PAUSE_MS} ms pause ${ms(result[variant].coldAfterPauseMs)}), warm ${ms(result[variant].warmMs)} ms, engine ${[...engines].join(', ')} (cold reads: ${coldEngines.join(', ')})`);
    }
    await mcp.callTool('navigate', { url: origin + pagePath('open', 0) }, timeout);
    const walks = [];
    for (let run = 0; run <= 5; run += 1) {
      const call = await mcp.callTool('execute_js', { code: `(${bareWalk.toString()})()` }, timeout);
      const value = typeof call.result.value === 'string' ? JSON.parse(call.result.value) : call.result.value;
      walks.push(value.ms);
    }
    result.bareWalkMs = median(walks.slice(1));
    console.log(`  ${browser} bare walk ${ms(result.bareWalkMs)} ms`);
    return result;
  } finally {
    await mcp.close();
  }
}

/** Playwright's first and later ariaSnapshot() on new documents, and the in-page breakdown. */
async function measureChromiumPage(origin) {
  const browser = await withTimeout(
    chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--headless=new', '--no-sandbox', '--disable-gpu'] }),
    90_000,
    'Chromium to start',
  );
  const core = readFileSync(path.join(root, 'extension/generated/ax-core-wasm.js'), 'utf8');
  const tree = await bundleTreeForPageTests();
  const moduleBase64 = /const moduleBytes = "([^"]+)"/.exec(core)?.[1] ?? '';
  try {
    const playwright = { cold: [], warm: [] };
    const phases = [];
    for (let run = 0; run < runs; run += 1) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 720 } });
      const page = await context.newPage();
      page.setDefaultTimeout(timeout);
      await page.goto(origin + pagePath('open', run), { waitUntil: 'load' });
      const locator = page.locator('body');
      const reads = [];
      for (let read = 0; read <= WARM_READS; read += 1) {
        const start = performance.now();
        await locator.ariaSnapshot({ timeout });
        reads.push(performance.now() - start);
      }
      playwright.cold.push(reads[0]);
      playwright.warm.push(median(reads.slice(1)));
      await context.close();

      // The breakdown, on a new document of a new context (no code cache of the first).
      const breakdownContext = await browser.newContext({ viewport: { width: 1280, height: 720 } });
      const breakdownPage = await breakdownContext.newPage();
      breakdownPage.setDefaultTimeout(timeout);
      await breakdownPage.goto(`${origin + pagePath('open', run)}?breakdown`, { waitUntil: 'load' });
      const firstWalk = (await breakdownPage.evaluate(bareWalk)).ms;
      const walk = (await breakdownPage.evaluate(bareWalk)).ms;
      let start = performance.now();
      await runScript(breakdownPage, core);
      const coreScript = performance.now() - start;
      start = performance.now();
      await breakdownPage.evaluate(() => globalThis.allwrightAxCore.ready);
      const ready = performance.now() - start;
      const alone = await breakdownPage.evaluate(async (base64) => {
        let begin = performance.now();
        const bytes =
          typeof Uint8Array.fromBase64 === 'function'
            ? Uint8Array.fromBase64(base64)
            : Uint8Array.from(atob(base64), (character) => character.charCodeAt(0));
        const decode = performance.now() - begin;
        begin = performance.now();
        await WebAssembly.compile(bytes);
        return { decode, compile: performance.now() - begin };
      }, moduleBase64);
      start = performance.now();
      await runScript(breakdownPage, tree);
      const bundle = performance.now() - start;
      const treeReads = await breakdownPage.evaluate(async () => {
        const times = [];
        for (let read = 0; read < 3; read += 1) {
          const begin = performance.now();
          await globalThis.allwrightAx.generateAccessibilityTree({ filter: 'all' });
          times.push(performance.now() - begin);
        }
        return times;
      });
      phases.push({ firstWalk, walk, coreScript, ready, ...alone, bundle, firstRead: treeReads[0], secondRead: treeReads[1], thirdRead: treeReads[2] });
      await breakdownContext.close();
    }
    const phase = (name) => median(phases.map((entry) => entry[name]));
    const breakdown = Object.fromEntries(Object.keys(phases[0]).map((name) => [name, phase(name)]));
    return {
      version: browser.version(),
      playwrightColdMs: median(playwright.cold),
      playwrightWarmMs: median(playwright.warm),
      playwrightSamples: playwright,
      breakdown,
      breakdownSamples: phases,
    };
  } finally {
    await browser.close();
  }
}

function printTables(report) {
  console.log(`\n=== First read of a document, ${size.toLocaleString('en-US')} elements, medians of ${runs} documents (ms) ===`);
  const chromiumPage = report.chromiumPage;
  for (const browser of browsers) {
    const mcp = report.mcp[browser];
    if (mcp === undefined) continue;
    console.log(`\n-- ${browser}: get_accessibility_tree over MCP --`);
    console.log(`page      engine          cold   (1st doc)  (paused)    warm   cold/warm   cold/walk   warm/walk   (pause: ${PAUSE_MS} ms)`);
    for (const variant of ['open', 'strict']) {
      const entry = mcp[variant];
      console.log(
        `${variant.padEnd(10)}${entry.engines.join(',').padEnd(14)}${ms(entry.coldMs).padStart(6)}${ms(entry.coldFirstRunMs).padStart(12)}${ms(entry.coldAfterPauseMs).padStart(10)}${ms(entry.warmMs).padStart(8)}${ratio(entry.coldMs / entry.warmMs).padStart(12)}${ratio(entry.coldMs / mcp.bareWalkMs).padStart(12)}${ratio(entry.warmMs / mcp.bareWalkMs).padStart(12)}`,
      );
    }
    console.log(`bare walk (open page, page world): ${ms(mcp.bareWalkMs)} ms`);
    if (browser === 'chromium' && chromiumPage !== undefined) {
      console.log(`Playwright ariaSnapshot(): cold ${ms(chromiumPage.playwrightColdMs)} ms, warm ${ms(chromiumPage.playwrightWarmMs)} ms`);
      for (const variant of ['open', 'strict']) {
        const entry = mcp[variant];
        console.log(
          `  ${variant}: cold / Playwright cold ${ratio(entry.coldMs / chromiumPage.playwrightColdMs)} (after a pause ${ratio(entry.coldAfterPauseMs / chromiumPage.playwrightColdMs)}; target <= 0.3), cold / our warm ${ratio(entry.coldMs / entry.warmMs)} (after a pause ${ratio(entry.coldAfterPauseMs / entry.warmMs)}; target <= 2), warm / Playwright warm ${ratio(entry.warmMs / chromiumPage.playwrightWarmMs)}${variant === 'strict' ? ' (target <= 0.25)' : ''}`,
        );
      }
    }
  }
  if (chromiumPage !== undefined) {
    const phases = chromiumPage.breakdown;
    console.log('\n-- Chromium: the first read in the page world, piece by piece (WASM core) --');
    for (const [label, value] of [
      ['first bare walk after load (style, layout)', phases.firstWalk],
      ['bare walk', phases.walk],
      ['core script evaluated (parse, base64 decode)', phases.coreScript],
      ['core ready (compile, instantiate)', phases.ready],
      ['  base64 decode alone', phases.decode],
      ['  WebAssembly.compile alone', phases.compile],
      ['tree bundle evaluated', phases.bundle],
      ['first generateAccessibilityTree', phases.firstRead],
      ['second', phases.secondRead],
      ['third', phases.thirdRead],
    ]) {
      console.log(`${label.padEnd(48)}${ms(value).padStart(8)}`);
    }
  }
  console.log(`\nLoad average at the end: ${loadavg().map((value) => value.toFixed(2)).join(' ')}`);
}

export async function measureCold() {
  if (!existsSync(BINARY)) throw new Error('target/release/allwright is missing: cargo build --release');
  const html = generatedPage(size);
  const routes = new Map();
  for (let run = 0; run < runs; run += 1) {
    routes.set(pagePath('open', run), { body: html });
    routes.set(pagePath('strict', run), { body: html, headers: { 'content-security-policy': CSP } });
  }
  const server = await startServer(routes);
  const report = { startedAt: new Date().toISOString(), size, runs, csp: CSP, mcp: {} };
  try {
    for (const browser of browsers) {
      console.log(`MCP, ${browser}`);
      report.mcp[browser] = await measureMcp(browser, server.origin);
    }
    if (browsers.includes('chromium')) {
      console.log('Playwright and the in-page breakdown, Chromium');
      report.chromiumPage = await measureChromiumPage(server.origin);
    }
  } finally {
    await server.close();
  }
  report.loadAverageAtEnd = loadavg();
  mkdirSync(path.dirname(RESULTS), { recursive: true });
  writeFileSync(RESULTS, `${JSON.stringify(report, null, 2)}\n`);
  printTables(report);
  console.log(`Results: ${path.relative(root, RESULTS)}`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  measureCold().then(
    () => process.exit(0),
    (error) => {
      console.error(`bench --cold failed: ${error?.stack ?? error}`);
      process.exit(1);
    },
  );
}
