// What the agent benchmark reads of each server's replies (docs/agent-benchmark.md): the text a
// client shows the model, how many characters that is, and the snapshot lines in each server's
// format, parsed into {role, name, ref, line} entries that the policies search by role and name.
//
// The three formats, one line per node:
//   allwright:        ` button "Send" [ref_12] type="submit"` (an iframe adds `frameId=3`)
//   Playwright MCP:   `- button "Send" [ref=e5] [cursor=pointer]`, or with the text after a
//                     colon: `- generic [ref=e7] [cursor=pointer]: Doroteya`
//   chrome-devtools:  `uid=1_5 button "Send" focusable`, a text run `uid=1_6 "Doroteya"`
// Lines of other shapes (markdown headings, result lines) parse to nothing or to entries without
// a ref, which the policies never act on.

/** The text content blocks of an MCP tool result, joined by newlines. */
export function textBlocks(result) {
  return (result?.content ?? [])
    .filter((block) => block?.type === 'text' && typeof block.text === 'string')
    .map((block) => block.text)
    .join('\n');
}

/**
 * Characters of one tool result as a client shows them to a model: every text block, plus the
 * JSON of `structuredContent` when the server sent one (clients put both in the model's
 * context). The same count for every server.
 */
export function resultCharacters(result) {
  let characters = 0;
  for (const block of result?.content ?? []) {
    if (block?.type === 'text' && typeof block.text === 'string') characters += block.text.length;
    else if (block && typeof block === 'object') characters += JSON.stringify(block).length;
  }
  if (result?.structuredContent !== undefined) characters += JSON.stringify(result.structuredContent).length;
  return characters;
}

/** The JSON object at the start of `text` (its first line, or the whole text), or null. */
function leadingJsonObject(text) {
  for (const candidate of [text, text.split('\n', 1)[0]]) {
    try {
      const value = JSON.parse(candidate);
      if (value && typeof value === 'object' && !Array.isArray(value)) return value;
    } catch {
      // Not JSON: try the next shape.
    }
  }
  return null;
}

/**
 * The value of an allwright result, in both reply formats: `structuredContent` (with the same
 * object as JSON text) today, or one text block whose first line is a compact JSON object (an
 * action's whole result, or a read's header before the tree text).
 */
export function replyValue(result) {
  if (result?.structuredContent && typeof result.structuredContent === 'object') return result.structuredContent;
  return leadingJsonObject(textBlocks(result)) ?? {};
}

/**
 * The tree text of an allwright read, in both reply formats: the `tree` field of the result
 * object today, or the text after the JSON header line.
 */
export function replyText(result) {
  const value = replyValue(result);
  if (typeof value.tree === 'string') return value.tree;
  const text = textBlocks(result);
  try {
    // Today's format without structuredContent: the whole text is the result's JSON.
    const whole = JSON.parse(text);
    if (whole && typeof whole === 'object') return '';
  } catch {
    // Not one JSON value: a header line and the tree, or the tree alone.
  }
  const header = leadingJsonObject(text.split('\n', 1)[0]);
  if (!header) return text;
  // A reply of one JSON line (an action's result) holds no tree.
  const lineEnd = text.indexOf('\n');
  return lineEnd < 0 ? '' : text.slice(lineEnd + 1);
}

const QUOTED = String.raw`"((?:[^"\\]|\\.)*)"`;
const unescape = (quoted) => quoted.replace(/\\(.)/g, '$1');

const ALLWRIGHT_LINE = new RegExp(String.raw`^(\s*)([A-Za-z][\w-]*)(?: ${QUOTED})?(.*)$`);
const PLAYWRIGHT_LINE = new RegExp(String.raw`^(\s*)- ([A-Za-z][\w-]*)(?: ${QUOTED})?((?: \[[^\]]*\])*)(?::\s*(.*))?$`);
// A text run has no role word: `uid=1_4 "Doroteya"`.
const CHROME_DEVTOOLS_LINE = new RegExp(String.raw`^(\s*)uid=(\S+)(?: ([A-Za-z][\w-]*))?(?: ${QUOTED})?(.*)$`);

/** allwright's tree lines: `role "name" [ref_N] attributes`, `frameId=N` on an iframe's. */
function parseAllwright(text) {
  const entries = [];
  // The lines under a `[removed]` banner (a read since a snapshot, an action's changes) are
  // what left the page: up to the next banner, they show nothing to act on.
  let inRemoved = false;
  for (const line of text.split('\n')) {
    if (line.startsWith('[')) {
      inRemoved = line === '[removed]';
      continue;
    }
    const match = ALLWRIGHT_LINE.exec(line);
    if (!match || inRemoved) continue;
    const [, indent, role, name, rest] = match;
    const ref = /\[(ref_\d+)\]/.exec(rest)?.[1] ?? null;
    const frameId = /\bframeId=(\d+)/.exec(rest)?.[1];
    entries.push({
      role,
      name: name === undefined ? '' : unescape(name),
      ref,
      depth: indent.length,
      line,
      ...(frameId === undefined ? {} : { frameId: Number(frameId) }),
    });
  }
  // A nameless node with a ref whose one child line is a text run (`generic [ref_34]` over
  // ` text "14"`) reads as that text, as Playwright's `generic [ref=e7]: 14` does.
  for (const [index, entry] of entries.entries()) {
    const child = entries[index + 1];
    const after = entries[index + 2];
    if (entry.ref === null || entry.name !== '' || !child || child.role !== 'text' || child.ref !== null) continue;
    if (child.depth > entry.depth && (!after || after.depth <= entry.depth)) entry.name = child.name;
  }
  return entries;
}

/** Playwright's ai snapshot lines: `- role "name" [ref=eN] [attr]: text`. */
function parsePlaywright(text) {
  const entries = [];
  for (const line of text.split('\n')) {
    const match = PLAYWRIGHT_LINE.exec(line);
    if (!match) continue;
    const [, indent, role, name, attributes, after] = match;
    const ref = /\[ref=([^\]]+)\]/.exec(attributes ?? '')?.[1] ?? null;
    // A node without a quoted name that holds only text prints it after the colon: that text is
    // what a reader takes for its name.
    const textAfter = after?.trim().replace(/^"(.*)"$/, '$1') ?? '';
    entries.push({ role, name: name === undefined ? textAfter : unescape(name), ref, depth: indent.length, line });
  }
  return entries;
}

/** chrome-devtools-mcp's take_snapshot lines: `uid=N_M role "name" properties` (text: no role). */
function parseChromeDevtools(text) {
  const entries = [];
  for (const line of text.split('\n')) {
    const match = CHROME_DEVTOOLS_LINE.exec(line);
    if (!match) continue;
    const [, indent, uid, role, name] = match;
    entries.push({ role: role ?? 'text', name: name === undefined ? '' : unescape(name), ref: uid, depth: indent.length, line });
  }
  return entries;
}

/** The parser of each format, by the `format` of tests/browser/agent-bench/servers.mjs. */
export const PARSERS = {
  allwright: parseAllwright,
  playwright: parsePlaywright,
  'chrome-devtools': parseChromeDevtools,
};

/** Collapses runs of white space and ignores case, as a person comparing two labels would. */
export function normalizeName(name) {
  return name.replace(/\s+/g, ' ').trim().toLowerCase();
}

/**
 * The entry a policy acts on for `target` ({name: string|RegExp, roles?: string[], inLine?}):
 * the first entry with a ref whose name matches (exactly, white space and case aside, or by the
 * RegExp) and whose role is one of `roles` when given. `inLine: true` also matches the RegExp
 * against the whole line (hints printed beside a name). When only an entry without a ref matches
 * and the target names no role, its parent line when that is an item with a ref
 * (`ITEM_ROLES_CLICKED_FOR_THEIR_TEXT`): a person reading `row [ref_12]` over `cell "INV-1043"`
 * clicks the row, as a model would; never a landmark or a container around the text. Null when
 * neither is found.
 */
export function findTarget(entries, target) {
  const roleMatches = (entry) => !target.roles || target.roles.includes(entry.role);
  const nameMatches = (entry) => {
    if (target.name instanceof RegExp) {
      return target.name.test(entry.name) || (target.inLine === true && target.name.test(entry.line));
    }
    return normalizeName(entry.name) === normalizeName(target.name);
  };
  const withRef = entries.find((entry) => entry.ref !== null && roleMatches(entry) && nameMatches(entry));
  if (withRef !== undefined) return withRef;
  if (target.roles) return null;
  const index = entries.findIndex((entry) => nameMatches(entry));
  if (index < 0) return null;
  for (let above = index - 1; above >= 0; above -= 1) {
    if (entries[above].depth >= entries[index].depth) continue;
    const parent = entries[above];
    return parent.ref !== null && ITEM_ROLES_CLICKED_FOR_THEIR_TEXT.has(parent.role) ? parent : null;
  }
  return null;
}

/** Items a person clicks by the text inside them: a table row, a list or tree item. */
const ITEM_ROLES_CLICKED_FOR_THEIR_TEXT = new Set(['row', 'listitem', 'treeitem', 'clickable', 'gridcell']);
