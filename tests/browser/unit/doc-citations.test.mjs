// Every document a comment or a document cites exists, and so does the heading it names
// (ARCHITECTURE.md, "Invariants"). Comments point a reader at the prose that explains them, in
// one of three forms: a path alone, a path and an anchor, or a path and a quoted heading (the
// quote may wrap onto the comment's next line, and is escaped inside JSON strings), or, for the
// three hops, a numbered section:
//
//     docs/protocol/tools.md, "Action results"
//     docs/agent-tools.md#tiers
//     docs/protocol/channels.md, section 2
//
// A heading matches a quote that is the whole heading, its beginning up to a parenthesis, comma,
// colon or dash (so that "Frames" finds "Frames (owner: ...)"), or its end after a colon (so that
// "find" finds "Finding one thing without reading everything: `find`"). Backticks are ignored on
// both sides. When a document is split or a heading renamed, this test names every citation left
// behind, with its file and line.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync, existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const repositoryRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

/** Folders that hold no prose of ours: build output, dependencies, upstream files, fuzz corpora. */
const SKIPPED_FOLDERS = new Set([
  ".git",
  "node_modules",
  "target",
  "dist",
  "third_party",
  "generated",
  "built",
  "corpus",
  "artifacts",
  "regressions",
]);

/** The kinds of files whose comments or text may cite a document. */
const SCANNED_EXTENSIONS = new Set([".rs", ".js", ".mjs", ".ts", ".md", ".html", ".json", ".toml", ".sh", ".css"]);

/** Files of scripts/ have no extension when they are executables (scripts/build, scripts/test). */
function isScanned(relativePath) {
  const extension = path.extname(relativePath);
  if (SCANNED_EXTENSIONS.has(extension)) return true;
  return relativePath.startsWith(`scripts${path.sep}`) && extension === "";
}

function filesToScan(folder = repositoryRoot, found = []) {
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const full = path.join(folder, entry.name);
    if (entry.isDirectory()) {
      if (!SKIPPED_FOLDERS.has(entry.name)) filesToScan(full, found);
    } else if (entry.isFile() && isScanned(path.relative(repositoryRoot, full))) {
      found.push(full);
    }
  }
  return found;
}

/** What stands between lines of one comment: a line break and the next line's comment marker. */
const COMMENT_CONTINUATION = String.raw`\s*\n\s*(?:\/\/[\/!]?|#|\*|--|<!--)?\s*`;

/**
 * A cited document and what follows it: an anchor, a quoted heading or a section number. The path
 * is a run of folder names ending in a `.md` file, not preceded by a letter, slash or dot (so a
 * URL's path or `node_modules/x/README.md` is not taken for one of ours). The separator allows a
 * comma, a space, a Markdown link's closing parenthesis and an opening parenthesis, and one line
 * break of a wrapped comment.
 */
const CITATION = new RegExp(
  String.raw`(?<![\w\/.:-])(?<document>(?:\.\.?\/)*(?:[\w-]+\/)*[\w-]+\.md)` +
    String.raw`(?:#(?<anchor>[\w-]+)` +
    String.raw`|(?<separator>\)?,?[ \t]*\(?(?:${COMMENT_CONTINUATION})?)` +
    String.raw`(?:\\?"(?<heading>[^"\n\\]{1,200}(?:${COMMENT_CONTINUATION}[^"\n\\]{1,200})?)\\?"|sections? (?<section>\d+)))?`,
  "g",
);

/** A heading or a quote as compared: no backticks, no markup of emphasis, one space between words. */
function normalised(text) {
  return text.replace(new RegExp(COMMENT_CONTINUATION, "g"), " ").replace(/[`*]/g, "").replace(/\s+/g, " ").trim();
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
function anchorOf(heading) {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/ /g, "-");
}

const headingsOfDocument = new Map();

/** The headings of a Markdown file, outside its fenced code blocks. */
function headingsOf(documentPath) {
  let headings = headingsOfDocument.get(documentPath);
  if (headings) return headings;
  headings = [];
  let insideFence = false;
  for (const line of readFileSync(documentPath, "utf8").split("\n")) {
    if (/^\s*```/.test(line)) insideFence = !insideFence;
    const match = !insideFence && /^#{1,6} (.*)$/.exec(line);
    if (match) headings.push(normalised(match[1]));
  }
  headingsOfDocument.set(documentPath, headings);
  return headings;
}

function headingMatchesQuote(heading, quote) {
  if (heading === quote) return true;
  const withoutNumber = heading.replace(/^\d+\. /, "");
  for (const candidate of [heading, withoutNumber]) {
    if (candidate === quote) return true;
    if ([" (", ", ", ": ", " — ", " -"].some((separator) => candidate.startsWith(quote + separator))) return true;
    if (candidate.endsWith(`: ${quote}`)) return true;
  }
  return false;
}

/** Where a cited path points: from the repository's root, else from the citing file's folder. */
function resolveDocument(citingFile, documentPath) {
  const fromRoot = path.join(repositoryRoot, documentPath);
  if (existsSync(fromRoot) && statSync(fromRoot).isFile()) return fromRoot;
  const fromCitingFolder = path.join(path.dirname(citingFile), documentPath);
  if (existsSync(fromCitingFolder) && statSync(fromCitingFolder).isFile()) return fromCitingFolder;
  return null;
}

function lineOf(text, index) {
  return text.slice(0, index).split("\n").length;
}

/** Every citation of the repository that names a document, a heading or a section that is not there. */
function brokenCitations() {
  const broken = [];
  for (const file of filesToScan()) {
    if (file === fileURLToPath(import.meta.url)) continue;
    const text = readFileSync(file, "utf8");
    for (const match of text.matchAll(CITATION)) {
      const { document, anchor, heading, section } = match.groups;
      const where = `${path.relative(repositoryRoot, file)}:${lineOf(text, match.index)}`;
      const resolved = resolveDocument(file, document);
      if (!resolved) {
        broken.push(`${where}: ${document} does not exist`);
        continue;
      }
      const headings = headingsOf(resolved);
      if (anchor !== undefined && !headings.some((candidate) => anchorOf(candidate) === anchor)) {
        broken.push(`${where}: ${document} has no heading with the anchor #${anchor}`);
      }
      if (heading !== undefined) {
        const quote = normalised(heading);
        if (!headings.some((candidate) => headingMatchesQuote(candidate, quote))) {
          broken.push(`${where}: ${document} has no heading "${quote}"`);
        }
      }
      if (section !== undefined && !headings.some((candidate) => candidate.startsWith(`${section}. `))) {
        broken.push(`${where}: ${document} has no section ${section}`);
      }
    }
  }
  return broken;
}

test("every document a comment or a document cites exists, with the heading or section it names", () => {
  const broken = brokenCitations();
  assert.deepEqual(broken, [], `citations of missing documents or headings:\n${broken.join("\n")}`);
});

test("the citation pattern reads the forms the comments use, and a missing heading is caught", () => {
  const quotedAndWrapped = 'see docs/protocol/tools.md, "Action\n// results" for more';
  const [wrapped] = quotedAndWrapped.matchAll(CITATION);
  assert.equal(wrapped.groups.document, "docs/protocol/tools.md");
  assert.equal(normalised(wrapped.groups.heading), "Action results");
  const [sectioned] = "(docs/protocol/channels.md, section 2)".matchAll(CITATION);
  assert.equal(sectioned.groups.section, "2");
  const [anchored] = "docs/agent-tools.md#tiers".matchAll(CITATION);
  assert.equal(anchored.groups.anchor, "tiers");
  const [linked] = '[protocol/tools.md](protocol/tools.md) ("The tool table")'.matchAll(CITATION);
  assert.equal(linked.groups.document, "protocol/tools.md");
  const [, linkTarget] = '[protocol/tools.md](protocol/tools.md) ("The tool table")'.matchAll(CITATION);
  assert.equal(linkTarget.groups.heading, "The tool table");
  assert.equal([..."https://example.com/docs/x.md".matchAll(CITATION)].length, 0);
  const [inJson] = String.raw`(docs/protocol/tools.md, \"Action results\")`.matchAll(CITATION);
  assert.equal(inJson.groups.heading, "Action results");

  assert.ok(headingMatchesQuote("Frames (owner: `frame-tools.js`)", "Frames"));
  assert.ok(headingMatchesQuote("Finding one thing without reading everything: find", "find"));
  assert.ok(headingMatchesQuote("2. Native messaging: native host <-> extension background", "Native messaging"));
  assert.ok(!headingMatchesQuote("Framesets", "Frames"));
  assert.ok(!headingMatchesQuote("Action results", "Actions"));
  assert.equal(anchorOf("Downloads: list_downloads, get_download"), "downloads-list_downloads-get_download");
});
