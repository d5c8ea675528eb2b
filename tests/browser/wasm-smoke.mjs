// Smoke test and measurements of the tree core in a real Chromium, below the extension.
//
//   node tests/browser/wasm-smoke.mjs [--bench-only] [--elements 10000] [--runs 7]
//
// Needs `scripts/build-wasm` first (extension/generated/). For each build of the core (WASM and
// wasm2js) it loads fixture pages over HTTP, injects the core and
// extension/content/accessibility-tree.js into the PAGE's world, its API as `globalThis.allwrightAx`
// (only acceptable here: a unit-level smoke test; the extension itself runs them in the content
// script's isolated world), and checks:
//   - the text tree and the JSON/YAML snapshot documents equal what the same crate computes
//     natively over the same HTML (the `native_tree` example, in-memory DOM);
//   - the ref registry: lookup, stable refs across builds, release, sweep, suggestions, the
//     ref_not_found error;
//   - "ai" mode: aria-ref attributes set, stable while role and name hold, stale ones removed.
// Then, on a generated page of N elements, it times (medians, ms) our in-page
// get_accessibility_tree and snapshot, a bare JS DOM walk, and Playwright's
// `locator('body').ariaSnapshot()` round trip, and prints a table.
//
// Chromium: Debian's /usr/lib/chromium/chromium (or $ALLWRIGHT_CHROMIUM), driven by playwright-core.

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import assert from 'node:assert/strict';
import { chromium } from 'playwright-core';
import { CHROMIUM_EXECUTABLE } from './chromium-executable.mjs';
import { generatedPage, median, runScript } from './bench-lib.mjs';
import { bundleTreeForPageTests } from '../../scripts/build-extension.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const argv = process.argv.slice(2);
const option = (name, fallback) => {
  const index = argv.indexOf(name);
  return index >= 0 ? Number(argv[index + 1]) : fallback;
};
const benchOnly = argv.includes('--bench-only');
const elementCount = option('--elements', 10_000);
const runs = option('--runs', 7);

const CORES = {
  wasm: readFileSync(path.join(root, 'extension/generated/ax-core-wasm.js'), 'utf8'),
  js: readFileSync(path.join(root, 'extension/generated/ax-core-js.js'), 'utf8'),
};
const TREE_SCRIPT = await bundleTreeForPageTests();

// ---- Fixtures ----------------------------------------------------------------------------------

const DEMO = readFileSync(path.join(root, 'fixtures/demo/index.html'), 'utf8');

// Cases the glue must carry faithfully: open shadow roots with named and default slots, ids
// inside shadow trees, aria-owns, pseudo-element content, form state, hidden content, text with
// characters outside the BMP, lone surrogates and the separator character in attributes.
const GLUE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Glue fixture 🧪</title>
<style>
  .star::before { content: "★ "; }
  .note::after { content: " (note)"; }
  .gone { display: none; }
  .ghost { visibility: hidden; }
  .contents { display: contents; }
  .inline { display: inline; }
</style></head>
<body>
  <h1>Glue 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 check</h1>
  <button class="star">Favourite</button>
  <a href="/x" class="note">Read</a>
  <p title="sep\u007farator">Separator <span class="inline">inside</span> text</p>
  <label for="pw">Password</label><input id="pw" type="password" value="secret">
  <label>Agree <input type="checkbox" checked></label>
  <select aria-label="Size"><option>S</option><option selected>M</option><option disabled>L</option></select>
  <fieldset disabled><legend>Locked</legend><button>Inside disabled fieldset</button></fieldset>
  <textarea aria-label="Notes">Typed notes</textarea>
  <div class="gone"><button>Not rendered</button></div>
  <div class="ghost"><button>Invisible</button></div>
  <div class="contents"><button>In contents</button></div>
  <div role="listbox" aria-label="Owner" aria-owns="owned1"></div>
  <div role="option" id="owned1">Owned option</div>
  <x-card>
    <template shadowrootmode="open">
      <section aria-labelledby="t"><h2 id="t">Shadow title</h2>
        <slot name="actions"></slot><slot></slot>
      </section>
    </template>
    <button slot="actions">Slotted action</button>
    <span>Default slot text</span>
  </x-card>
  <div aria-hidden="true"><button>Hidden from AT</button></div>
</body></html>`;

// Generated content the document's rules do not show the gatherer (facts.rs,
// GENERATED_CONTENT_POSSIBLE): a shadow tree's own sheet, the host's `:host::after`, and (on
// the second page) a rule the gatherer cannot turn into a selector list, which makes every
// element a candidate.
const GENERATED_SHADOW = `<!doctype html><html lang="en"><head><title>Generated content</title></head><body>
  <x-offer><template shadowrootmode="open"><style>.badge::before { content: "New: "; }</style>
    <button class="badge">Offer</button></template></x-offer>
  <button><x-tag><template shadowrootmode="open"><style>:host::after { content: " (host)"; }</style>
    <span>Tag</span></template></x-tag></button>
  <button class="plain">Plain</button>
</body></html>`;
const GENERATED_UNKNOWN = `<!doctype html><html lang="en"><head><title>Generated content</title>
<style>:is(.tagged)::after { content: " [tag]"; }</style></head><body>
  <button class="tagged">Tagged</button>
  <button>Plain</button>
</body></html>`;

// Quote marks from `open-quote` / `close-quote`: nested <q> in several languages, a shadow tree
// under a <q>, explicit `quotes`, `quotes: none`, and a rule using the keywords off a <q>.
const QUOTES = `<!doctype html><html lang="en"><head><title>Quotes</title>
<style>.said::before { content: open-quote "Said: "; } .said::after { content: close-quote; }
.none { quotes: none; } .custom { quotes: "<" ">" "[" "]"; }</style></head><body>
  ${['en', 'fr', 'fr-CH', 'de-AT', 'ja', 'pl', 'zh-Hant-TW', 'xx'].map((language) =>
    `<button lang="${language}"><q>outer <q>inner <q>deepest</q></q></q></button>`).join('\n  ')}
  <button lang="de"><x-quoted><template shadowrootmode="open"><q>shadow</q></template></x-quoted></button>
  <button><q class="custom">custom <q>nested</q></q></button>
  <button><q class="none">none</q></button>
  <button><span class="said">plain</span></button>
</body></html>`;

const PAGES = {
  '/quotes.html': QUOTES,
  '/demo.html': DEMO,
  '/glue.html': GLUE,
  '/generated-shadow.html': GENERATED_SHADOW,
  '/generated-unknown.html': GENERATED_UNKNOWN,
  '/big.html': generatedPage(elementCount),
};

// ---- Native results ----------------------------------------------------------------------------

const scratch = mkdtempSync(path.join(tmpdir(), 'allwright-smoke-'));

/** Output of the `native_tree` example (same crate, in-memory DOM): envelope line + body. */
function native(html, ...args) {
  const file = path.join(scratch, 'page.html');
  execFileSync('sh', ['-c', 'cat > "$0"', file], { input: html });
  const output = execFileSync(
    'cargo',
    ['run', '-q', '--locked', '-p', 'allwright-ax-wasm', '--example', 'native_tree', '--', file, ...args],
    { cwd: root, encoding: 'utf8', maxBuffer: 1 << 28 },
  );
  const end = output.indexOf('\n');
  return { envelope: JSON.parse(output.slice(0, end)), body: output.slice(end + 1) };
}

// ---- Browser -----------------------------------------------------------------------------------

const server = createServer((request, response) => {
  const page = PAGES[new URL(request.url ?? '/', 'http://x').pathname];
  response.writeHead(page ? 200 : 404, { 'content-type': 'text/html; charset=utf-8' });
  response.end(page ?? 'not found');
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const origin = `http://127.0.0.1:${server.address().port}`;

process.env.TMPDIR = scratch;
process.env.XDG_CONFIG_HOME = scratch;
const browser = await chromium.launch({
  executablePath: CHROMIUM_EXECUTABLE,
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});

/** Opens a page with the given core and the tree script in its world. */
async function openWithCore(flavour, pathname) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
  await page.goto(origin + pathname);
  await runScript(page, CORES[flavour]);
  await page.evaluate(() => globalThis.allwrightAxCore.ready);
  await runScript(page, TREE_SCRIPT);
  return page;
}

let failures = 0;
async function check(name, body) {
  try {
    await body();
    console.log(`ok   ${name}`);
  } catch (error) {
    failures += 1;
    console.log(`FAIL ${name}\n${String(error?.stack ?? error).split('\n').slice(0, 30).join('\n')}`);
  }
}

/** The names of the buttons of a text tree, in order. */
const buttonNames = (tree) => [...tree.matchAll(/button "([^"]*)"/g)].map((match) => match[1]);

/** Removes the per-run fields so documents can be compared. */
const rootOf = (document) => JSON.parse(document).root;

if (!benchOnly) {
  for (const flavour of ['wasm', 'js']) {
    for (const pathname of ['/demo.html', '/glue.html']) {
      await check(`${flavour}: ${pathname} text tree and snapshots equal the native core`, async () => {
        const page = await openWithCore(flavour, pathname);
        const html = PAGES[pathname];
        const result = await page.evaluate(() => globalThis.allwrightAx.generateAccessibilityTree({}));
        const expected = native(html, 'text');
        assert.equal(result.tree, expected.body);
        for (const key of ['truncated', 'hasMore', 'autoDegraded', 'page', 'pageCount']) {
          assert.equal(result[key], expected.envelope.result[key], key);
        }
        assert.equal(result.url, origin + pathname);
        const json = await page.evaluate(() =>
          globalThis.allwrightAx.snapshotDocument({ format: 'json', contextId: 'c1', parentContextId: null }));
        assert.deepEqual(rootOf(json.document), rootOf(native(html, 'json').body));
        const yaml = await page.evaluate(() =>
          globalThis.allwrightAx.snapshotDocument({ format: 'yaml', contextId: 'c1' }));
        const nativeYaml = native(html, 'yaml').body;
        const tail = (text) => text.slice(text.indexOf('"root":'));
        assert.equal(tail(yaml.document), tail(nativeYaml));
        await page.close();
      });
    }

    await check(`${flavour}: generated content outside the document's readable rules`, async () => {
      const names = async (pathname) => {
        const page = await openWithCore(flavour, pathname);
        const { tree } = await page.evaluate(() => globalThis.allwrightAx.generateAccessibilityTree({}));
        await page.close();
        return buttonNames(tree);
      };
      assert.deepEqual(await names('/generated-shadow.html'), ['New: Offer', 'Tag (host)', 'Plain']);
      assert.deepEqual(await names('/generated-unknown.html'), ['Tagged [tag]', 'Plain']);
    });

    await check(`${flavour}: quote marks as Chromium draws them`, async () => {
      const page = await openWithCore(flavour, '/quotes.html');
      const { tree } = await page.evaluate(() => globalThis.allwrightAx.generateAccessibilityTree({}));
      const ours = buttonNames(tree);
      const cdp = await page.context().newCDPSession(page);
      const { nodes } = await cdp.send('Accessibility.getFullAXTree');
      const chromium = nodes.filter((node) => node.role?.value === 'button').map((node) => node.name?.value);
      await page.close();
      assert.equal(ours.length, 12);
      assert.deepEqual(ours, chromium);
    });

    await check(`${flavour}: ref registry`, async () => {
      const page = await openWithCore(flavour, '/demo.html');
      const outcome = await page.evaluate(async () => {
        const ax = globalThis.allwrightAx;
        const first = await ax.generateAccessibilityTree({});
        const second = await ax.generateAccessibilityTree({});
        const counter = window.__wbRefCounter;
        const button = window.__wb_ax_lookup('ref_3');
        const anchored = await ax.generateAccessibilityTree({ ref_id: 'ref_4' });
        const anchoredPaged = await ax.generateAccessibilityTree({ ref_id: 'ref_4', maxChars: 100 });
        const keys = Object.keys(window.__wbElementMap).length;
        // Remove an element, then ask for its ref.
        const target = window.__wb_ax_lookup('ref_2');
        target.remove();
        let error = null;
        try {
          await ax.generateAccessibilityTree({ ref_id: 'ref_2' });
        } catch (thrown) {
          error = thrown;
        }
        const released = window.__wb_ax_release('ref_5');
        return {
          same: first.tree === second.tree,
          counter,
          counterAfter: window.__wbRefCounter,
          buttonTag: button?.tagName,
          anchored,
          anchoredPaged,
          keys,
          error,
          released,
          lookupReleased: window.__wb_ax_lookup('ref_5'),
          suggest: window.__wb_ax_suggest('ref_2', 3),
          prototype: Object.getPrototypeOf(window.__wbElementMap),
        };
      });
      assert.ok(outcome.same, 'a second build keeps every ref');
      assert.ok(outcome.counter > 0 && outcome.counter === outcome.keys, 'one entry per ref handed out');
      assert.equal(outcome.buttonTag, 'BUTTON');
      // The anchored form holds an expanded combobox, which the core lists first as an overlay.
      assert.match(outcome.anchored.tree, /^form "New product" \[ref_4\]$/m);
      assert.equal(outcome.anchoredPaged.continuationArgs?.ref_id, 'ref_4');
      assert.equal(outcome.anchoredPaged.hasMore, true);
      assert.equal(outcome.error?.code, 'ref_not_found');
      assert.deepEqual(outcome.error?.suggestions, ['ref_1', 'ref_3', 'ref_4', 'ref_5', 'ref_6']);
      assert.equal(outcome.released, true);
      assert.equal(outcome.lookupReleased, null);
      assert.deepEqual(outcome.suggest, ['ref_1', 'ref_3', 'ref_4']);
      assert.equal(outcome.prototype, null);
      await page.close();
    });

    await check(`${flavour}: page out of range and anchored paging`, async () => {
      const page = await openWithCore(flavour, '/demo.html');
      const error = await page.evaluate(() =>
        globalThis.allwrightAx.generateAccessibilityTree({ maxChars: 100, page: 999 }).catch((thrown) => thrown));
      assert.equal(error.code, 'page_out_of_range');
      const pages = await page.evaluate(async () => {
        const ax = globalThis.allwrightAx;
        const seen = [];
        let args = { maxChars: 400 };
        for (let guard = 0; guard < 50 && args; guard++) {
          const result = await ax.generateAccessibilityTree(args);
          seen.push(result.tree);
          args = result.continuationArgs;
        }
        return seen;
      });
      const whole = await page.evaluate(() => globalThis.allwrightAx.generateAccessibilityTree({}));
      assert.ok(pages.length > 1);
      assert.equal(pages.join('\n'), whole.tree, 'pages joined are the whole tree');
      await page.close();
    });

    await check(`${flavour}: "ai" mode references`, async () => {
      const page = await openWithCore(flavour, '/demo.html');
      const outcome = await page.evaluate(async () => {
        const ax = globalThis.allwrightAx;
        const refsOf = (document) => {
          const found = [];
          const stack = [JSON.parse(document).root];
          while (stack.length) {
            const node = stack.pop();
            if (node['aria-ref']) found.push([node.role, node.name, node['aria-ref']]);
            stack.push(...node.children);
          }
          return found;
        };
        const first = refsOf((await ax.snapshotDocument({ format: 'json', mode: 'ai', contextId: 'c' })).document);
        const second = refsOf((await ax.snapshotDocument({ format: 'json', mode: 'ai', contextId: 'c' })).document);
        const heading = document.querySelector('h1');
        const headingRef = heading.getAttribute('aria-ref');
        heading.textContent = 'Renamed products';
        const third = refsOf((await ax.snapshotDocument({ format: 'json', mode: 'ai', contextId: 'c' })).document);
        // Hide a referenced button: its attribute must go on the next capture.
        const danger = document.querySelector('button[disabled]');
        const dangerRef = danger.getAttribute('aria-ref');
        danger.style.display = 'none';
        await ax.snapshotDocument({ format: 'json', mode: 'ai', contextId: 'c' });
        const plain = await ax.snapshotDocument({ format: 'json', contextId: 'c' });
        return {
          first, second, third, headingRef,
          headingRefAfter: heading.getAttribute('aria-ref'),
          dangerRef,
          dangerAfter: danger.getAttribute('aria-ref'),
          attributeCount: document.querySelectorAll('[aria-ref]').length,
          plainHasRefs: plain.document.includes('"aria-ref"'),
          textRefs: first.filter(([role]) => role === 'text').length,
        };
      });
      assert.ok(outcome.first.length > 5);
      assert.deepEqual(outcome.second, outcome.first, 'stable while role and name hold');
      assert.equal(new Set(outcome.first.map(([, , ref]) => ref)).size, outcome.first.length, 'unique');
      assert.notEqual(outcome.headingRefAfter, outcome.headingRef, 'a new name gets a new reference');
      assert.ok(outcome.dangerRef !== null);
      assert.equal(outcome.dangerAfter, null, 'stale attribute removed');
      assert.equal(outcome.textRefs, 0);
      assert.equal(outcome.plainHasRefs, false);
      await page.close();
    });
  }
}

// ---- Measurements ------------------------------------------------------------------------------

/** In-page medians: ours (tree, snapshot, and the core call alone) and the bare walk. */
async function measure(flavour) {
  const page = await openWithCore(flavour, '/big.html');
  const inPage = await page.evaluate(async (runs) => {
    const ax = globalThis.allwrightAx;
    // Times the core call alone by wrapping the core object (smoke test only).
    const core = globalThis.allwrightAxCore;
    let coreTime = 0;
    globalThis.allwrightAxCore = {
      ...core,
      buildTextTree: (...args) => {
        const start = performance.now();
        const output = core.buildTextTree(...args);
        coreTime = performance.now() - start;
        return output;
      },
    };
    const bareWalk = () => {
      // The floor: every element once, reading what the bare walk of docs/performance.md reads.
      let count = 0;
      const walker = document.createTreeWalker(document.documentElement, NodeFilter.SHOW_ELEMENT);
      for (let node = walker.currentNode; node; node = walker.nextNode()) {
        const element = /** @type {Element} */ (node);
        if (element.tagName && element.id !== undefined && element.getAttribute('role') !== 'x'
          && element.getAttribute('aria-label') !== 'x' && element.className !== undefined
          && getComputedStyle(element).display) count++;
      }
      return count;
    };
    const samples = { tree: [], core: [], snapshot: [], walk: [] };
    let chars = 0;
    let elements = 0;
    for (let run = 0; run < runs + 1; run++) {
      let start = performance.now();
      const result = await ax.generateAccessibilityTree({});
      const tree = performance.now() - start;
      chars = result.tree.length;
      start = performance.now();
      const snapshot = await ax.snapshotDocument({ format: 'json', contextId: 'c' });
      const snapshotTime = performance.now() - start;
      start = performance.now();
      elements = bareWalk();
      const walk = performance.now() - start;
      if (run > 0) {
        samples.tree.push(tree);
        samples.core.push(coreTime);
        samples.snapshot.push(snapshotTime);
        samples.walk.push(walk);
      }
      void snapshot;
    }
    return { samples, chars, elements };
  }, runs);
  // The same call as seen from the client (one CDP round trip), like Playwright's below.
  const roundTrips = [];
  for (let run = 0; run < runs; run++) {
    const start = performance.now();
    await page.evaluate(() => globalThis.allwrightAx.generateAccessibilityTree({}).then((r) => r.tree.length));
    roundTrips.push(performance.now() - start);
  }
  await page.close();
  return {
    tree: median(inPage.samples.tree),
    core: median(inPage.samples.core),
    snapshot: median(inPage.samples.snapshot),
    walk: median(inPage.samples.walk),
    roundTrip: median(roundTrips),
    chars: inPage.chars,
    elements: inPage.elements,
  };
}

async function measurePlaywright() {
  const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
  await page.goto(`${origin}/big.html`);
  const times = [];
  let chars = 0;
  for (let run = 0; run < runs + 1; run++) {
    const start = performance.now();
    const snapshot = await page.locator('body').ariaSnapshot();
    if (run > 0) times.push(performance.now() - start);
    chars = snapshot.length;
  }
  // Playwright versions without the "ai" mode report 0.
  const aiChars = await page
    .locator('body')
    .ariaSnapshot({ mode: 'ai' })
    .then((snapshot) => snapshot.length, () => 0);
  await page.close();
  return { roundTrip: median(times), chars, aiChars };
}

const results = {};
for (const flavour of ['wasm', 'js']) results[flavour] = await measure(flavour);
const playwright = await measurePlaywright();
const fixed = (value) => value.toFixed(1).padStart(8);
console.log(`\n${results.wasm.elements} elements, medians of ${runs} runs (ms), headless Chromium`);
console.log('path   tree(in-page)  core-call  snapshot(in-page)  bare-walk  tree/walk  tree round trip  /Playwright');
for (const [flavour, r] of Object.entries(results)) {
  console.log(`${flavour.padEnd(6)} ${fixed(r.tree)}      ${fixed(r.core)}   ${fixed(r.snapshot)}          ${fixed(r.walk)}   ${(r.tree / r.walk).toFixed(2).padStart(6)}x   ${fixed(r.roundTrip)}        ${(r.roundTrip / playwright.roundTrip).toFixed(2)}x`);
}
console.log(`Playwright locator('body').ariaSnapshot() round trip: ${playwright.roundTrip.toFixed(1)} ms`);
console.log(`output characters: ours ${results.wasm.chars}, Playwright ${playwright.chars}, Playwright ai mode ${playwright.aiChars || 'n/a'}`);

await browser.close();
server.close();
rmSync(scratch, { recursive: true, force: true });
if (failures > 0) {
  console.log(`\n${failures} check(s) failed`);
  process.exit(1);
}
