// The paired round trips of `npm run bench` (issue 14, item 1's target: the warm MCP tree read at
// most 0.25x Playwright's `ariaSnapshot()` round trip, "in one run with the bench"). The bench's
// first sections measure our reads and Playwright's minutes apart, and this 2-core machine's
// speed drifts by a third over such spans (docs/performance/warm-read.md, "Messages as structured clones"), which moves their ratio as much as any change did. Here both run at
// once, in two browsers started side by side: per round, one warm `get_accessibility_tree
// {filter: "all"}` through `allwright mcp` and one warm `locator('body').ariaSnapshot()` on the
// same page, in alternating order, so that each ratio is taken over a few hundred milliseconds.
// It reports the median of the per-round ratios, with both medians, for the page without a
// policy (the core in the page) and with `script-src 'self'` (the core in the service worker).
// Playwright reads the page without a policy in both rows, as the bench's other rows do.

import { launchPlaywrightChromium, McpClient, median, withTimeout } from './bench-lib.mjs';

/** Warm-up reads of each side before the measured rounds (the bench's other sections warm up too). */
const WARM_UP_READS = 3;

/**
 * @param {{origin: string, sizes: number[], runsFor: (size: number) => number,
 *   callTimeout: (size: number) => number, pagePath: (size: number, flavour: string) => string,
 *   flavours: readonly string[], binary: string, root: string, chromiumPath: string,
 *   scratch: string, closers: Array<() => unknown>}} setting
 * @returns {Promise<Record<number, Record<string, {ratio: number, oursMs: number,
 *   playwrightMs: number, ratios: number[], engine: string | undefined, rounds: number}>>>}
 */
export async function measurePaired(setting) {
  const { origin, sizes, runsFor, callTimeout, pagePath, flavours, binary, root, chromiumPath, scratch, closers } = setting;
  const mcp = new McpClient(binary, ['mcp', '--launch', 'chromium', '--headless'], { cwd: root });
  closers.push(() => mcp.close());
  await mcp.initialize(120_000);
  const browser = await launchPlaywrightChromium(chromiumPath, scratch);
  closers.push(() => browser.close());
  const results = {};
  try {
    for (const size of sizes) {
      const rounds = runsFor(size);
      const timeout = callTimeout(size);
      const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
      page.setDefaultTimeout(timeout);
      await page.goto(origin + pagePath(size, 'wasm'), { waitUntil: 'load', timeout });
      const playwrightRead = async () => {
        const start = performance.now();
        await page.locator('body').ariaSnapshot({ timeout });
        return performance.now() - start;
      };
      for (let read = 0; read < WARM_UP_READS; read++) await playwrightRead();
      results[size] = {};
      for (const flavour of flavours) {
        await mcp.callTool('navigate', { url: origin + pagePath(size, flavour) }, timeout);
        let engine;
        const ourRead = async () => {
          const call = await mcp.callTool('get_accessibility_tree', { filter: 'all', maxChars: 1_000_000 }, timeout);
          engine = call.result.engine;
          return call.ms;
        };
        for (let read = 0; read < WARM_UP_READS; read++) await ourRead();
        const ours = [];
        const theirs = [];
        for (let round = 0; round < rounds; round++) {
          // Alternating which side goes first, so that neither always reads after the other's
          // garbage or always first after a pause.
          if (round % 2 === 0) {
            ours.push(await ourRead());
            theirs.push(await playwrightRead());
          } else {
            theirs.push(await playwrightRead());
            ours.push(await ourRead());
          }
        }
        const ratios = ours.map((time, round) => time / theirs[round]);
        results[size][flavour] = {
          ratio: median(ratios),
          oursMs: median(ours),
          playwrightMs: median(theirs),
          ratios,
          engine,
          rounds,
        };
        console.log(`  paired ${String(size).padStart(6)} ${flavour.padEnd(4)} (${engine}): ours ${median(ours).toFixed(1)} ms, Playwright ${median(theirs).toFixed(1)} ms, median ratio ${median(ratios).toFixed(2)} over ${rounds} rounds`);
      }
      await page.close();
    }
  } finally {
    await withTimeout(browser.close(), 30_000, 'Chromium to close').catch(() => {});
    await mcp.close();
  }
  return results;
}
