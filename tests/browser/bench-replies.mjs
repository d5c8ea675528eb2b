// What replies cost and how soon actions answer (issue 30, items 4 and 6; docs/protocol/tools.md,
// "Replies"): through `allwright mcp --launch BROWSER --headless`, on a small page whose button
// writes a status line when clicked, it measures the characters of each tool's reply as an agent
// gets it (no `verbose`) and as the whole object (`verbose: true`, what the model read before
// replies were shortened: clients show `JSON.stringify(structuredContent)`), and the median
// round trip of click_ax and type_ax.
//
//   node tests/browser/bench-replies.mjs [--browser chromium|firefox] [--runs 15]
//     [--binary target/debug/allwright] [--extension DIR]
//
// `--extension DIR` runs another build of the extension (ALLWRIGHT_EXTENSION_DIR), for example
// one built from an older commit with `node scripts/build-extension.mjs --source OLD/extension
// --out DIR`, to compare the click latency before and after.

import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { McpClient, median, startServer } from './bench-lib.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const argv = process.argv.slice(2);
const option = (name, fallback) => {
  const index = argv.indexOf(name);
  return index === -1 ? fallback : argv[index + 1];
};
const browser = option('--browser', 'chromium');
const runs = Number(option('--runs', '15'));
const binary = path.resolve(root, option('--binary', 'target/debug/allwright'));
const extension = option('--extension', undefined);

const PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Replies</title></head>
<body><main><h1>Replies</h1>
<label>Name <input id="name"></label>
<button id="save">Save</button>
<p id="status" role="status"></p>
<ul>${Array.from({ length: 20 }, (_, index) => `<li><a href="#item-${index}">Item ${index}</a></li>`).join('')}</ul>
</main>
<script>
  let saves = 0;
  document.getElementById('save').addEventListener('click', () => {
    saves += 1;
    document.getElementById('status').textContent = 'Saved ' + saves;
  });
</script></body></html>`;

const refOf = (tree, role, name) => new RegExp(`${role} "${name}" \\[(ref_\\d+)\\]`).exec(tree)?.[1];

const server = await startServer(new Map([['/replies.html', { body: PAGE }]]));
const env = extension === undefined ? process.env : { ...process.env, ALLWRIGHT_EXTENSION_DIR: path.resolve(extension) };
const mcp = new McpClient(binary, ['mcp', '--launch', browser, '--headless'], { cwd: root, env });
const url = `${server.origin}/replies.html`;
/** @type {Record<string, {quiet: number, verbose: number}>} */
const characters = {};
const measure = async (tool, args) => {
  const quiet = await mcp.callTool(tool, args, 60_000, { verbose: false });
  const verbose = await mcp.callTool(tool, args, 60_000, { verbose: true });
  characters[tool] = { quiet: quiet.chars, verbose: verbose.chars };
  return quiet;
};
try {
  await mcp.initialize(120_000);
  await measure('navigate', { url });
  await new Promise((resolve) => setTimeout(resolve, 300));
  const read = await measure('get_accessibility_tree', {});
  const tree = read.result.tree;
  const save = refOf(tree, 'button', 'Save');
  const name = refOf(tree, 'textbox', 'Name');
  if (save === undefined || name === undefined) throw new Error(`no Save button or Name field in:\n${tree}`);
  await measure('click_ax', { ref_id: save });
  await measure('type_ax', { ref_id: name, text: 'Ada' });
  await measure('press_key', { key: 'Tab' });
  await measure('list_tabs', {});
  const clicks = [];
  const typing = [];
  for (let run = 0; run < runs + 2; run++) {
    clicks.push((await mcp.callTool('click_ax', { ref_id: save }, 60_000, { verbose: false })).ms);
    typing.push((await mcp.callTool('type_ax', { ref_id: name, text: `Ada ${run}` }, 60_000, { verbose: false })).ms);
  }
  console.log(`allwright mcp --launch ${browser}${extension === undefined ? '' : ` (extension ${extension})`}`);
  console.log('reply characters (as the model reads them):');
  console.log('  tool                     short   verbose');
  for (const [tool, { quiet, verbose }] of Object.entries(characters)) {
    console.log(`  ${tool.padEnd(24)}${String(quiet).padStart(6)}${String(verbose).padStart(10)}`);
  }
  console.log(`click_ax median ${median(clicks.slice(2)).toFixed(0)} ms, type_ax median ${median(typing.slice(2)).toFixed(0)} ms (${runs} runs each)`);
  console.log(JSON.stringify({ browser, characters, clickMedianMs: median(clicks.slice(2)), typeMedianMs: median(typing.slice(2)) }));
} finally {
  await mcp.close();
  await server.close();
}
