// One adapter per server for the agent benchmark's policies (docs/agent-benchmark.md): the same
// few moves (open a URL, read the page, click, type, choose, hover, press a key) as that
// server's tools, and the text of each reply that the policy reads for refs. `call(tool, args)`
// is the runner's: it counts every reply's characters and classifies failures.
//
// The success check (`passes`) is the harness's, not the policy's: it reads the page's own
// state through the server's evaluate tool and is neither counted nor timed.

import { replyText, textBlocks } from './snapshot-formats.mjs';

/** What the success check's page expression answers; searched for in the evaluate reply. */
export const PASSED = 'agent-task-passed';
const verdictExpression = (predicate) => `((${predicate}) ? "${PASSED}" : "agent-task-failed")`;
const allText = (result) => `${textBlocks(result)}${result?.structuredContent === undefined ? '' : JSON.stringify(result.structuredContent)}`;

/** allwright: the tools of src/tools/table.rs, in either reply format (snapshot-formats.mjs). */
function allwrightAdapter(call) {
  const inFrame = (entry, pageTool, frameTool, args) =>
    entry.frameId === undefined ? call(pageTool, args) : call(frameTool, { ...args, frameId: entry.frameId });
  return {
    navigate: (url) => call('navigate', { url }),
    read: async () => replyText(await call('get_accessibility_tree', {})),
    replyText,
    click: (entry) => inFrame(entry, 'click_ax', 'iframe_click', { ref_id: entry.ref }),
    type: (entry, text, submit) =>
      entry.frameId === undefined && submit
        ? call('set_field', { ref_id: entry.ref, text, submit: true })
        : inFrame(entry, 'type_ax', 'iframe_type', { ref_id: entry.ref, text }),
    select: (entry, label) => call('select_option', { ref_id: entry.ref, label }),
    hover: (entry) => call('hover', { ref_id: entry.ref }),
    press: (key) => call('press_key', { key }),
    /** The frames printed with `frameId=N` on their iframe's line, each read with iframe_read. */
    readFrames: async (entries) => {
      const frames = [];
      for (const frameId of new Set(entries.filter((entry) => entry.frameId !== undefined).map((entry) => entry.frameId))) {
        frames.push({ frameId, text: replyText(await call('iframe_read', { frameId })) });
      }
      return frames;
    },
    passes: async (evaluate, predicate) =>
      allText(await evaluate('execute_js', { code: verdictExpression(predicate) })).includes(PASSED),
  };
}

/** Playwright MCP 0.0.83: browser_* tools; actions answer with the page's snapshot. */
function playwrightAdapter(call) {
  const element = (entry) => ({ element: `${entry.role} "${entry.name}"`, target: entry.ref });
  return {
    navigate: (url) => call('browser_navigate', { url }),
    read: async () => textBlocks(await call('browser_snapshot', {})),
    replyText: textBlocks,
    click: (entry) => call('browser_click', element(entry)),
    type: (entry, text, submit) => call('browser_type', { ...element(entry), text, submit }),
    select: (entry, label) => call('browser_select_option', { ...element(entry), values: [label] }),
    hover: (entry) => call('browser_hover', element(entry)),
    press: (key) => call('browser_press_key', { key }),
    passes: async (evaluate, predicate) =>
      allText(await evaluate('browser_evaluate', { function: `() => ${verdictExpression(predicate)}` })).includes(PASSED),
  };
}

/** chrome-devtools-mcp 1.11.0: uid-based tools; snapshots only when asked for. */
function chromeDevtoolsAdapter(call) {
  return {
    navigate: (url) => call('navigate_page', { type: 'url', url }),
    read: async () => textBlocks(await call('take_snapshot', {})),
    replyText: textBlocks,
    click: (entry) => call('click', { uid: entry.ref }),
    type: async (entry, text, submit) => {
      const filled = await call('fill', { uid: entry.ref, value: text });
      return submit ? call('press_key', { key: 'Enter' }) : filled;
    },
    select: (entry, label) => call('fill', { uid: entry.ref, value: label }),
    hover: (entry) => call('hover', { uid: entry.ref }),
    press: (key) => call('press_key', { key }),
    passes: async (evaluate, predicate) =>
      allText(await evaluate('evaluate_script', { function: `() => ${verdictExpression(predicate)}` })).includes(PASSED),
  };
}

/** The adapter of each snapshot format (servers.mjs `format`). */
export const ADAPTERS = {
  allwright: allwrightAdapter,
  playwright: playwrightAdapter,
  'chrome-devtools': chromeDevtoolsAdapter,
};
