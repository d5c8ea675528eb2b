// @ts-check
// Which URLs reach a local file: the extension's half of "local files are not opened unless the
// session allows them" (background/tools/local-files.js applies it; src/tools/local_files.rs is the
// host's half). Both run the same cases, tests/cases/local-file-urls.json. Pure, no imports, so
// that node runs it as it is.

/**
 * Schemes that wrap another URL and show or load what it names: Chromium's view-source: and
 * filesystem:, Firefox's jar: and view-source:, and blob: (whose origin is the URL after it).
 */
const WRAPPING_SCHEMES = Object.freeze(["view-source:", "jar:", "blob:", "filesystem:"]);

/**
 * `text` without C0 controls and spaces at its start (and, with `bothEnds`, at its end), as the
 * WHATWG URL parser drops them.
 * @param {string} text
 * @param {boolean} bothEnds
 */
function trimmedAsAUrl(text, bothEnds) {
  let start = 0;
  let end = text.length;
  while (start < end && text.charCodeAt(start) <= 0x20) start += 1;
  while (bothEnds && end > start && text.charCodeAt(end - 1) <= 0x20) end -= 1;
  return text.slice(start, end);
}

/**
 * The scheme as given ("file:", or the outer wrapper such as "view-source:") when `text` names a
 * local file as the browser's URL parser reads it (WHATWG URL, "basic URL parser": leading and
 * trailing C0 controls and spaces dropped, tabs and newlines anywhere removed, the scheme ASCII
 * case-insensitive), else null. A wrapper is looked through, however deep.
 * @param {string} text
 * @returns {string|null}
 */
export function localFileScheme(text) {
  let rest = trimmedAsAUrl(String(text), true)
    .replace(/[\t\n\r]/g, "")
    .toLowerCase();
  /** @type {string|null} */
  let outer = null;
  for (;;) {
    if (rest.startsWith("file:")) return outer ?? "file:";
    const wrapper = WRAPPING_SCHEMES.find((scheme) => rest.startsWith(scheme));
    if (wrapper === undefined) return null;
    outer ??= wrapper;
    rest = trimmedAsAUrl(rest.slice(wrapper.length), false);
  }
}
