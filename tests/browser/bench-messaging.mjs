// Benchmark (not a test): what it would cost to run the WASM core in the extension's service
// worker instead of the page, for Chromium pages whose CSP forbids WASM in content scripts.
//
//   node tests/browser/bench-messaging.mjs [--size 10000] [--runs 15]
//
// Chromium compiles no WASM in a content script on such pages (docs/protocol/core.md, "Loading the core"), so allwright runs
// the same crate there as JavaScript (wasm2js), which V8 runs at about 3.5-4x the WASM time. The
// service worker may compile WASM, but the DOM facts would then have to travel to it and the
// answer back, through extension messaging. This script measures that trip with the real sizes
// of a generated page (tests/browser/bench-lib.mjs): a throwaway MV3 extension whose content
// script packs facts shaped like the gatherer's (every string of the page joined, five numbers
// per node as base64, the most compact form messaging carries) and sends them to its service
// worker, which answers with either the new references only (about 30 KB) or a text tree of the
// size allwright returns for that page. Medians of the runs after the first, against the bare
// DOM walk of the benchmark on the same page.
//
// The numbers feed docs/performance/in-page-read.md ("What was tried for the JS path").

import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { bareWalk, generatedPage, median, startServer, withTimeout } from './bench-lib.mjs';

const CHROMIUM = '/usr/lib/chromium/chromium';
const argument = (name, fallback) => {
  const position = process.argv.indexOf(`--${name}`);
  return position > 0 ? Number(process.argv[position + 1]) : fallback;
};
const size = argument('size', 10_000);
const runs = argument('runs', 15);

const scratch = mkdtempSync(path.join(tmpdir(), 'allwright-bench-messaging-'));
const extension = path.join(scratch, 'extension');
mkdirSync(extension);
writeFileSync(path.join(extension, 'manifest.json'), JSON.stringify({
  manifest_version: 3,
  name: 'allwright messaging benchmark',
  version: '1',
  background: { service_worker: 'worker.js', type: 'module' },
  content_scripts: [{ matches: ['<all_urls>'], js: ['content.js'], run_at: 'document_idle' }],
}));
// The worker decodes what it receives (as the core's glue would) and answers with a string of
// the requested length.
writeFileSync(path.join(extension, 'worker.js'), `
chrome.runtime.onMessage.addListener((message, _sender, reply) => {
  const numbers = Uint8Array.fromBase64(message.numbers);
  reply({ answer: 'x'.repeat(message.answerLength), received: numbers.length + message.strings.length });
});
`);
// The content script waits for the page to ask (a DOM event), so that the page decides when
// each run starts and reads the result from a data attribute.
writeFileSync(path.join(extension, 'content.js'), `
document.addEventListener('allwright-bench', async (event) => {
  const { answerLength, runs } = JSON.parse(event.detail);
  const samples = { factsOnly: [], factsAndTree: [], compactFactsOnly: [] };
  let payloadBytes = 0;
  let compactPayloadBytes = 0;
  for (let run = 0; run <= runs; run++) {
    // Facts shaped like accessibility-tree.js gatherFacts: every text and attribute value,
    // joined, and five 32-bit numbers per node.
    const strings = [];
    let nodeCount = 0;
    const walker = document.createTreeWalker(document, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT);
    for (let node = walker.currentNode; node !== null; node = walker.nextNode()) {
      nodeCount += 1;
      if (node.nodeType === Node.TEXT_NODE) strings.push(node.data);
      else for (const attribute of node.attributes ?? []) strings.push(attribute.name, attribute.value);
    }
    const numbers = new Uint32Array(nodeCount * 5).fill(7);
    const message = { strings: strings.join('\u007f'), numbers: new Uint8Array(numbers.buffer).toBase64() };
    // The same numbers as varints with parents as distances: about 1.3 bytes per number on
    // the real facts of this page (measured on accessibility-tree.js output).
    const compact = { strings: message.strings, numbers: new Uint8Array(Math.round(nodeCount * 5 * 1.3)).toBase64() };
    payloadBytes = message.strings.length + message.numbers.length;
    compactPayloadBytes = compact.strings.length + compact.numbers.length;
    let start = performance.now();
    await chrome.runtime.sendMessage({ ...message, answerLength: 30000 });
    samples.factsOnly.push(performance.now() - start);
    start = performance.now();
    await chrome.runtime.sendMessage({ ...message, answerLength });
    samples.factsAndTree.push(performance.now() - start);
    start = performance.now();
    await chrome.runtime.sendMessage({ ...compact, answerLength: 30000 });
    samples.compactFactsOnly.push(performance.now() - start);
  }
  document.documentElement.dataset.allwrightBench = JSON.stringify({ samples, payloadBytes, compactPayloadBytes });
});
document.documentElement.dataset.allwrightBenchReady = '1';
`);

const html = generatedPage(size);
const server = await startServer(new Map([['/page.html', { body: html }]]));
const context = await withTimeout(chromium.launchPersistentContext(path.join(scratch, 'profile'), {
  executablePath: CHROMIUM,
  headless: true,
  args: ['--headless=new', '--no-sandbox', '--disable-gpu', `--disable-extensions-except=${extension}`, `--load-extension=${extension}`],
}), 90_000, 'Chromium to start');
try {
  const page = await context.newPage();
  await page.goto(`${server.origin}/page.html`, { waitUntil: 'load' });
  await page.waitForFunction(() => document.documentElement.dataset.allwrightBenchReady === '1', null, { timeout: 30_000 });
  const walks = [];
  for (let run = 0; run <= runs; run++) walks.push((await page.evaluate(bareWalk)).ms);
  // allwright's text tree of this page is about 32 characters per element (320,773 at 10k).
  const answerLength = Math.round(size * 32);
  await page.evaluate(({ answerLength, runs }) => {
    document.dispatchEvent(new CustomEvent('allwright-bench', { detail: JSON.stringify({ answerLength, runs }) }));
  }, { answerLength, runs });
  await page.waitForFunction(() => document.documentElement.dataset.allwrightBench, null, { timeout: 300_000 });
  const { samples, payloadBytes, compactPayloadBytes } = JSON.parse(await page.evaluate(() => document.documentElement.dataset.allwrightBench));
  const walk = median(walks.slice(1));
  const row = (label, values) => {
    const ms = median(values.slice(1));
    console.log(`${label.padEnd(58)}${ms.toFixed(1).padStart(8)} ms${(ms / walk).toFixed(2).padStart(8)}x walk`);
  };
  console.log(`${size} elements, medians of ${runs} runs after the first, headless Chromium ${context.browser()?.version() ?? ''}`);
  console.log(`facts payload: ${(payloadBytes / 1000).toFixed(0)} KB (joined strings + five base64 u32 per node); compact: ${(compactPayloadBytes / 1000).toFixed(0)} KB`);
  row('bare DOM walk', walks);
  row('facts to the service worker, references back (30 KB)', samples.factsOnly);
  row('compact facts to the service worker, references back', samples.compactFactsOnly);
  row(`facts to the service worker, the tree back (${(answerLength / 1000).toFixed(0)} KB)`, samples.factsAndTree);
} finally {
  await context.close();
  await server.close();
  rmSync(scratch, { recursive: true, force: true });
}
