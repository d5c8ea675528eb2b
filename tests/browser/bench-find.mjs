// What find costs against a whole read (issue 29, item 5; docs/agent-tools.md, "find"): through
// `allwright mcp --launch BROWSER --headless`, on the generated benchmark page (bench-lib.mjs),
// it measures the characters of each find reply as an agent gets it (no `verbose`) and its median
// round trip, beside the first page of a default read (50,000 characters at most) and the whole
// tree in one page.
//
//   node tests/browser/bench-find.mjs [--browser chromium|firefox] [--size 10000] [--runs 5]
//     [--binary target/debug/allwright]

import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generatedPage, McpClient, median, startServer } from './bench-lib.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const argv = process.argv.slice(2);
const option = (name, fallback) => {
  const index = argv.indexOf(name);
  return index === -1 ? fallback : argv[index + 1];
};
const browser = option('--browser', 'chromium');
const size = Number(option('--size', '10000'));
const runs = Number(option('--runs', '5'));
const binary = path.resolve(root, option('--binary', 'target/debug/allwright'));

/** What an agent looks for on the page, from one line to many. */
const QUERIES = [
  ['one heading by its words', { text: 'Section 42: quarterly' }],
  ['the e-mail fields, 5 of them', { role: 'textbox', name: 'email', limit: 5 }],
  ['the Apply buttons (20 shown)', { role: 'button', name: 'Apply' }],
  ['a navigation link', { role: 'link', name: 'Pricing' }],
];

const server = await startServer(new Map([['/page.html', { body: generatedPage(size) }]]));
const mcp = new McpClient(binary, ['mcp', '--launch', browser, '--headless'], { cwd: root });
/** The characters and the median round trip of `runs` calls (after one that warms up). */
const measure = async (tool, args) => {
  const times = [];
  let chars = 0;
  let text = '';
  for (let run = 0; run <= runs; run++) {
    const reply = await mcp.callTool(tool, args, 120_000, { verbose: false });
    if (run > 0) times.push(reply.ms);
    chars = reply.chars;
    text = reply.text ?? '';
  }
  return { chars, ms: median(times), text };
};
try {
  await mcp.initialize(120_000);
  await mcp.callTool('navigate', { url: `${server.origin}/page.html`, timeoutMs: 120_000 }, 180_000, { verbose: false });
  await new Promise((resolve) => setTimeout(resolve, 500));
  const firstPage = await measure('get_accessibility_tree', {});
  const whole = await measure('get_accessibility_tree', { maxChars: 1_000_000 });
  const rows = [];
  for (const [what, query] of QUERIES) {
    const found = await measure('find', query);
    rows.push({ what, query, ...found });
  }
  console.log(`allwright mcp --launch ${browser}, generated page of ${size} elements, median of ${runs} calls`);
  console.log(`  first page of a read      ${String(firstPage.chars).padStart(9)} characters ${firstPage.ms.toFixed(0).padStart(6)} ms`);
  console.log(`  whole tree in one page    ${String(whole.chars).padStart(9)} characters ${whole.ms.toFixed(0).padStart(6)} ms`);
  for (const row of rows) {
    const ratio = (row.chars / whole.chars).toFixed(4);
    console.log(
      `  find: ${row.what.padEnd(30)}${String(row.chars).padStart(7)} characters ${row.ms.toFixed(0).padStart(6)} ms  (${ratio} of the whole tree)`,
    );
  }
  console.log(
    JSON.stringify({
      browser,
      size,
      firstPage: { chars: firstPage.chars, ms: firstPage.ms },
      whole: { chars: whole.chars, ms: whole.ms },
      finds: rows.map(({ what, query, chars, ms }) => ({ what, query, chars, ms })),
    }),
  );
  console.log('\nThe replies of find, as the agent reads them:');
  for (const row of rows) console.log(`--- ${row.what}\n${row.text}`);
} finally {
  await mcp.close();
  await server.close();
}
