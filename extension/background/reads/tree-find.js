// @ts-check
// find's rules (docs/agent-tools.md, "find"), pure: which lines of a frame's text tree match a
// query, and how a match is printed, after the path of its ancestors. The lines are the core's
// (crates/allwright-ax/src/text/line.rs): `role "name" [ref_N] frameId=N marks key="value"...`,
// indented one space per level, every string quoted and escaped so that no page text can end a
// string, start a line or spell `[ref_` (docs/protocol/reading.md, "What the text tree leaves out": page text never
// forges a line or a reference). Reading them back is therefore exact, and a part of a line reused here stays as
// safe as the line.

/** The most ancestors a path shows: the outermost two, then the innermost ones. */
const PATH_ANCESTORS_SHOWN = 6;
const PATH_OUTERMOST_KEPT = 2;
/** A name in a path is shortened to about this many characters (the match itself is whole). */
const PATH_NAME_CHARS = 40;
/** Attributes whose strings are addresses, not words on the page: `text` does not look in them. */
const ADDRESS_ATTRIBUTES = new Set(["href", "src", "url"]);

/**
 * One line of the text tree, read back.
 * @typedef {{depth: number, role: string, rawName: string | null, name: string, ref: string | null,
 *   words: string, printed: string}} TreeLine
 * `rawName`: the name as printed, still escaped, without its quotes; `name`: unescaped;
 * `words`: every string of the line but addresses, unescaped, one space apart; `printed`: the
 * line without its indentation.
 */

/**
 * Text as find compares it: lower case, every run of white space one space, trimmed.
 * @param {string} text
 */
export function comparable(text) {
  return text.toLowerCase().replace(/\s+/g, " ").trim();
}

/**
 * The string an escaped one stands for (the escapes of crates/allwright-ax/src/text/escaping.rs).
 * @param {string} escaped
 */
export function unescapeTreeString(escaped) {
  return escaped.replace(/\\(u\{([0-9a-fA-F]{1,6})\}|.)/gsu, (_whole, escape, hex) => {
    if (hex !== undefined) {
      const point = Number.parseInt(hex, 16);
      return point <= 0x10ffff ? String.fromCodePoint(point) : "";
    }
    return /** @type {Record<string, string>} */ ({ n: "\n", r: "\r", t: "\t" })[escape] ?? escape;
  });
}

/**
 * The quoted string that starts at `start` (its opening quote): its escaped content and where the
 * line goes on after the closing quote. An unterminated string runs to the end of the line.
 * @param {string} line
 * @param {number} start
 */
function quotedAt(line, start) {
  let index = start + 1;
  while (index < line.length && line[index] !== '"') index += line[index] === "\\" ? 2 : 1;
  return { content: line.slice(start + 1, Math.min(index, line.length)), next: index + 1 };
}

/**
 * Reads one printed line back. Banner lines (`[open overlays]`, `[changed]`) and blank lines are
 * not elements: null.
 * @param {string} line
 * @returns {TreeLine | null}
 */
export function parseTreeLine(line) {
  const depth = line.length - line.trimStart().length;
  const printed = line.slice(depth);
  if (printed === "" || printed.startsWith("[")) return null;
  const roleEnd = printed.indexOf(" ");
  const role = roleEnd < 0 ? printed : printed.slice(0, roleEnd);
  /** @type {string | null} */
  let rawName = null;
  /** @type {string | null} */
  let ref = null;
  const words = [];
  let index = roleEnd < 0 ? printed.length : roleEnd + 1;
  if (printed[index] === '"') {
    const quoted = quotedAt(printed, index);
    rawName = quoted.content;
    words.push(unescapeTreeString(rawName));
    index = quoted.next + 1;
  }
  while (index < printed.length) {
    const tokenEnd = printed.indexOf(" ", index);
    const equals = printed.indexOf('="', index);
    if (equals >= 0 && (tokenEnd < 0 || equals < tokenEnd)) {
      // key="value": the value may hold spaces.
      const key = printed.slice(index, equals);
      const quoted = quotedAt(printed, equals + 1);
      if (!ADDRESS_ATTRIBUTES.has(key)) words.push(unescapeTreeString(quoted.content));
      index = quoted.next + 1;
      continue;
    }
    const token = printed.slice(index, tokenEnd < 0 ? printed.length : tokenEnd);
    const reference = /^\[(ref_\d+)\]$/.exec(token);
    if (reference !== null) ref = reference[1];
    index = tokenEnd < 0 ? printed.length : tokenEnd + 1;
  }
  return {
    depth,
    role,
    rawName,
    name: rawName === null ? "" : unescapeTreeString(rawName),
    ref,
    words: words.join(" "),
    printed,
  };
}

/**
 * What find looks for, each part optional (at least one is given: the tool contract's rule).
 * @typedef {{text?: string, role?: string, name?: string}} FindQuery
 */

/**
 * Whether a line matches every part of the query that is given.
 * @param {TreeLine} line
 * @param {FindQuery} query
 */
export function lineMatches(line, query) {
  if (query.role !== undefined && line.role !== query.role.trim().toLowerCase()) return false;
  if (query.name !== undefined && !comparable(line.name).includes(comparable(query.name))) return false;
  if (query.text !== undefined && !comparable(line.words).includes(comparable(query.text))) return false;
  return true;
}

/**
 * An escaped name shortened to about `limit` characters without cutting an escape in half.
 * @param {string} rawName
 * @param {number} limit
 */
function shortenEscaped(rawName, limit) {
  if (rawName.length <= limit) return rawName;
  const units = rawName.match(/\\u\{[0-9a-fA-F]{1,6}\}|\\.|[\s\S]/gu) ?? [];
  let kept = "";
  for (const unit of units) {
    if (kept.length + unit.length > limit) break;
    kept += unit;
  }
  return `${kept}…`;
}

/**
 * An ancestor as a path shows it: its role and shortened name, and its ref when `withRef`.
 * @param {TreeLine} line
 * @param {boolean} withRef
 */
function pathStep(line, withRef) {
  const name =
    line.rawName === null || line.rawName === "" ? "" : ` "${shortenEscaped(line.rawName, PATH_NAME_CHARS)}"`;
  return `${line.role}${name}${withRef && line.ref !== null ? ` [${line.ref}]` : ""}`;
}

/**
 * The matches of a query in one frame's text tree, in page order, each printed after its
 * ancestors' path: `main > form "Shipping" > textbox "Street" [ref_7]`. A match without a ref of
 * its own shows in its path the ref of its nearest ancestor that has one (the row or the item an
 * agent clicks for it). A run of text whose parent line matched too is left out: it repeats it.
 * @param {string} treeText
 * @param {FindQuery} query
 * @returns {string[]}
 */
export function findInTree(treeText, query) {
  /** @type {TreeLine[]} the ancestors of the current line, outermost first */
  const ancestors = [];
  /** @type {Set<TreeLine>} */
  const matched = new Set();
  const found = [];
  /** @type {TreeLine | undefined} the line before this one */
  let previous;
  for (const text of treeText.split("\n")) {
    const line = parseTreeLine(text);
    if (line === null) {
      // A banner starts a new section: nothing above it is an ancestor of what follows.
      if (text.trim() !== "") ancestors.length = 0;
      continue;
    }
    while (ancestors.length > 0 && ancestors[ancestors.length - 1].depth >= line.depth) ancestors.pop();
    const parent = ancestors[ancestors.length - 1];
    const repeatsParent = line.role === "text" && parent !== undefined && matched.has(parent);
    if (lineMatches(line, query) && !repeatsParent) {
      matched.add(line);
      found.push(printMatch(line, ancestors));
    }
    // A container the tree leaves unnamed because its first line, a heading, names it (a
    // section labelled by its heading) is named by that heading in the paths below it: without
    // it, the Apply buttons of 100 sections would all read `main > region > button "Apply"`.
    if (line.role === "heading" && parent !== undefined && parent === previous && parent.rawName === null) {
      parent.rawName = line.rawName;
      parent.name = line.name;
    }
    ancestors.push(line);
    previous = line;
  }
  return found;
}

/**
 * @param {TreeLine} line
 * @param {TreeLine[]} ancestors outermost first
 */
function printMatch(line, ancestors) {
  let refHolder = -1;
  if (line.ref === null) {
    for (let index = ancestors.length - 1; index >= 0; index -= 1) {
      if (ancestors[index].ref !== null) {
        refHolder = index;
        break;
      }
    }
  }
  const steps = ancestors.map((ancestor, index) => pathStep(ancestor, index === refHolder));
  if (steps.length > PATH_ANCESTORS_SHOWN) {
    const innermost = PATH_ANCESTORS_SHOWN - PATH_OUTERMOST_KEPT;
    // The ancestor holding the ref is always shown.
    const firstInner = Math.min(steps.length - innermost, refHolder >= PATH_OUTERMOST_KEPT ? refHolder : Infinity);
    if (firstInner > PATH_OUTERMOST_KEPT) steps.splice(PATH_OUTERMOST_KEPT, firstInner - PATH_OUTERMOST_KEPT, "…");
  }
  return [...steps, line.printed].join(" > ");
}

/**
 * The line that names a frame above its matches: `[frame 3] "https://pay.example/card"`. The
 * URL is the page's, quoted as the tree quotes strings, so that it can spell neither a line nor
 * a ref.
 * @param {number} frameId
 * @param {string} url
 */
export function frameHeading(frameId, url) {
  const shown = url.length > 120 ? `${url.slice(0, 120)}…` : url;
  const escaped = shown
    .replace(/\\/g, "\\\\")
    .replace(/"/g, '\\"')
    .replace(/\[/g, "\\u{5b}")
    .replace(/\p{Cc}|\p{Zl}|\p{Zp}/gu, (character) => `\\u{${character.codePointAt(0)?.toString(16)}}`);
  return `[frame ${frameId}] "${escaped}"`;
}
