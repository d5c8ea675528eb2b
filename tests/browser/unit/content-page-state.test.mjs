// What a frame tells the background about its page, on a small hand-made tree (fake-dom.mjs):
// the work promote_iframe would discard (extension/content/actions/frame-state.js, draftState, and
// actions/agent-edits.js; docs/protocol/frames.md, "Frames"), the console entries relayed in
// batches (content/console-relay.js), and the generated content of `::before` and `::after` with
// its quote marks (tree/generated-content.js; CSS Generated Content, "quotes").
import { test, mock } from "node:test";
import assert from "node:assert/strict";
import { FakeElement, FakeInput, FakeText, installFakeDom } from "./fake-dom.mjs";

// The modules read `window` and test `instanceof Element` as in a content script's world; the
// console relay listens on the window.
const events = new EventTarget();
globalThis.window = globalThis;
globalThis.addEventListener = events.addEventListener.bind(events);
globalThis.Element = FakeElement;
/** A style rule as CSSOM gives it: its selector, its declarations, its nested rules. */
class FakeStyleRule {
  constructor(selectorText, declarations, nested = []) {
    this.selectorText = selectorText;
    this.style = { getPropertyValue: (name) => declarations[name] ?? "" };
    this.cssRules = nested;
  }
}
globalThis.CSSStyleRule = FakeStyleRule;

const { draftState } = await import("../../../extension/content/actions/frame-state.js");
const { rememberAgentEdit, agentEditStandsUnconfirmed, unconfirmedAgentEdits } = await import(
  "../../../extension/content/actions/agent-edits.js"
);
const { relayConsoleEntries } = await import("../../../extension/content/console-relay.js");
const { generatedContentCandidates, pseudoContentReader } = await import(
  "../../../extension/content/tree/generated-content.js"
);

const element = (name, attributes) => new FakeElement(name, attributes);

test("draft state names each changed control by label, name, id, placeholder or tag, never by its value", () => {
  const document = installFakeDom();
  const body = element("body");
  document.append(body);
  const labelled = new FakeInput({ name: "ignored" });
  const label = element("label").append("  Your\n email ", labelled, element("textarea").append("default text"));
  labelled.labels = [label];
  labelled.value = "secret@example.com";
  const byName = new FakeInput({ name: "city" });
  byName.value = "Oslo";
  const byId = new FakeInput({ id: "zip" });
  byId.value = "0150";
  const byPlaceholder = new FakeInput({ placeholder: "Search" });
  byPlaceholder.value = "x";
  const bare = new FakeInput();
  bare.value = "y";
  const unchanged = new FakeInput({ name: "same", value: "kept" });
  const area = element("textarea", { "aria-label": "Message" });
  area.value = "Hello";
  area.defaultValue = "";
  const agree = new FakeInput({ type: "checkbox", "aria-label": "Agree" });
  agree.checked = true;
  const optIn = new FakeInput({ type: "radio", name: "plan" });
  optIn.defaultChecked = true;
  const upload = new FakeInput({ type: "file", name: "cv" });
  upload.files = [{ name: "cv.pdf" }];
  const emptyUpload = new FakeInput({ type: "file", name: "photo" });
  emptyUpload.files = [];
  const button = new FakeInput({ type: "submit", name: "go" });
  button.value = "changed";
  body.append(label, byName, byId, byPlaceholder, bare, unchanged, area, agree, optIn, upload, emptyUpload, button);
  const { reasons } = draftState();
  assert.deepEqual(reasons, [
    'the field "Your email" was edited',
    'the field "city" was edited',
    'the field "zip" was edited',
    'the field "Search" was edited',
    "the field <input> was edited",
    'the text area "Message" was edited',
    'the checkbox "Agree" was checked',
    'the radio "plan" was unchecked',
    'a file is attached to "cv"',
  ]);
  assert.ok(!reasons.join(" ").includes("secret"), "a value never shows");
});

test("draft state looks into open shadow roots and lists at most ten reasons, then how many more", () => {
  const document = installFakeDom();
  const host = element("x-form");
  document.append(element("body").append(host));
  const inputs = Array.from({ length: 13 }, (_, index) => {
    const input = new FakeInput({ name: `f${index}` });
    input.value = "typed";
    return input;
  });
  host.attachShadow(...inputs);
  const { reasons } = draftState();
  assert.equal(reasons.length, 11);
  assert.equal(reasons[0], 'the field "f0" was edited');
  assert.equal(reasons[10], "and 3 more");
  installFakeDom();
  assert.deepEqual(draftState(), { reasons: [] });
});

test("an agent's contenteditable edit stands until the page changes, clears or removes it", () => {
  const document = installFakeDom();
  const editor = element("div", { "aria-label": "Chat" }).append("hello");
  const other = element("div").append("draft");
  document.append(element("body").append(editor, other));
  assert.equal(agentEditStandsUnconfirmed(editor), false, "not typed into by the agent");
  rememberAgentEdit(editor);
  rememberAgentEdit(other);
  rememberAgentEdit(other);
  assert.equal(agentEditStandsUnconfirmed(editor), true);
  assert.deepEqual(unconfirmedAgentEdits(), [editor, other], "each host once");
  assert.deepEqual(draftState().reasons, [
    'text typed by an agent into "Chat" was not taken by the page',
    "text typed by an agent into <div> was not taken by the page",
  ]);
  // The page took the message: the box is emptied.
  editor.childNodes = [];
  assert.equal(agentEditStandsUnconfirmed(editor), false);
  // Typing again records the new text.
  editor.append("second");
  rememberAgentEdit(editor);
  assert.equal(agentEditStandsUnconfirmed(editor), true);
  // A removed element holds nothing to lose.
  other.parentNode.childNodes.splice(other.parentNode.childNodes.indexOf(other), 1);
  other.parentNode = null;
  assert.deepEqual(unconfirmedAgentEdits(), [editor]);
  editor.childNodes[0] = new FakeText("second, edited by the page");
  assert.deepEqual(unconfirmedAgentEdits(), []);
});

test("console entries are batched every 200 ms, at most 200 a batch; malformed ones are dropped", async () => {
  mock.timers.enable({ apis: ["setTimeout"] });
  try {
    const sent = [];
    let failNext = false;
    const runtime = {
      sendMessage(message) {
        sent.push(message);
        return failNext ? Promise.reject(new Error("background restarting")) : Promise.resolve();
      },
    };
    relayConsoleEntries(runtime, { consoleEntriesNotice: (entries) => ({ type: "consoleEntries", entries }) });
    const hook = (detail) => events.dispatchEvent(new CustomEvent("allwright:console-entry", { detail }));
    hook(JSON.stringify({ level: "log", text: "one" }));
    for (const malformed of [
      "not json",
      "[1,2]",
      "null",
      "3",
      { level: "log" },
      JSON.stringify({ text: "x".repeat(100_001) }),
    ]) {
      hook(malformed);
    }
    hook(JSON.stringify({ level: "warn", text: "two" }));
    mock.timers.tick(199);
    assert.equal(sent.length, 0);
    mock.timers.tick(1);
    assert.deepEqual(sent, [
      {
        type: "consoleEntries",
        entries: [
          { level: "log", text: "one" },
          { level: "warn", text: "two" },
        ],
      },
    ]);
    for (let index = 0; index < 250; index += 1) hook(JSON.stringify({ index }));
    failNext = true;
    mock.timers.tick(200);
    assert.equal(sent.length, 2);
    assert.equal(sent[1].entries.length, 200);
    assert.deepEqual(sent[1].entries.at(-1), { index: 199 });
    // A lost batch is no error, and relaying goes on.
    await Promise.resolve();
    failNext = false;
    hook(JSON.stringify({ after: true }));
    mock.timers.tick(200);
    assert.deepEqual(sent[2].entries, [{ after: true }]);
    mock.timers.tick(1000);
    assert.equal(sent.length, 3, "no entries, no message");
  } finally {
    mock.timers.reset();
  }
});

/** Installs a getComputedStyle answering a pseudo-element's `content` and `quotes`. */
function pseudoStyles(byElement) {
  globalThis.getComputedStyle = (target, pseudo) => {
    const style = byElement.get(target)?.[pseudo];
    return style ?? { display: "inline", content: "none", quotes: "auto" };
  };
}

test("generated content: none, normal and display none give nothing; strings and other content pass as they are", () => {
  installFakeDom();
  const [plain, hidden, counter, text] = [element("p"), element("p"), element("li"), new FakeText("t")];
  pseudoStyles(
    new Map([
      [plain, { "::before": { display: "inline", content: '"→ "', quotes: "auto" }, "::after": { display: "inline", content: "normal" } }],
      [hidden, { "::before": { display: "none", content: '"x"' } }],
      [counter, { "::after": { display: "inline", content: 'counter(item) ". "', quotes: "auto" } }],
    ]),
  );
  const reader = pseudoContentReader([plain, hidden, counter, text]);
  assert.equal(reader.read(0, false), '"→ "');
  assert.equal(reader.read(0, true), null);
  assert.equal(reader.read(1, false), null);
  assert.equal(reader.read(2, true), 'counter(item) ". "');
  assert.equal(reader.read(3, false), null, "a text node has no pseudo-elements");
  assert.equal(reader.read(9, false), null, "an index past the list");
});

test("open-quote and close-quote become the marks of the element's language and <q> depth", () => {
  const document = installFakeDom();
  const quoteAt = (language, depth, content, quotes = "auto") => {
    const root = element("div", language === null ? {} : { lang: language });
    document.append(root);
    let parent = root;
    for (let level = 0; level < depth; level += 1) {
      const q = element("q");
      parent.append(q);
      parent = q;
    }
    const target = element("span");
    parent.append(target);
    pseudoStyles(new Map([[target, { "::before": { display: "inline", content, quotes } }]]));
    return pseudoContentReader([target]).read(0, false);
  };
  assert.equal(quoteAt(null, 0, "open-quote"), '"“"');
  assert.equal(quoteAt("en-GB", 1, "close-quote"), '"’"', "English, one <q> in: the inner pair");
  assert.equal(quoteAt("DE", 0, "open-quote"), '"„"', "the language tag is read without case");
  assert.equal(quoteAt("de-AT", 0, "close-quote"), '"“"', "a regional tag falls back to its language");
  assert.equal(quoteAt("fr-CH", 1, "open-quote"), '"‹"', "a regional tag with its own marks keeps them");
  assert.equal(quoteAt("zh-Hant-TW", 0, "open-quote"), '"「"');
  assert.equal(quoteAt("ja", 5, "open-quote"), '"『"', "deeper than the pairs: the innermost pair");
  assert.equal(quoteAt("xx", 0, "open-quote"), '"“"', "an unknown language gets English marks");
  assert.equal(quoteAt("en", 0, 'open-quote "Hi" close-quote'), '"“" "Hi" "”"');
  assert.equal(quoteAt("en", 0, "no-open-quote \"a\" no-close-quote"), ' "a" ');
  // A string that holds the word is a string, not a keyword.
  assert.equal(quoteAt("en", 0, '"open-quote"'), '"open-quote"');
  assert.equal(quoteAt("en", 0, "open-quote", '"<<" ">>" "<" ">"'), '"<<"');
  assert.equal(quoteAt("en", 3, "close-quote", '"<<" ">>" "<" ">"'), '">"');
  assert.equal(quoteAt("en", 0, 'open-quote "x"', "none"), ' "x"', "quotes: none draws no marks");
  assert.equal(quoteAt("en", 0, "open-quote", "'\\'' 'b'"), "'\\''", "escapes inside a CSS string are kept");
});

test("generated content candidates: the elements rules give ::before or ::after content, or null when unknowable", () => {
  const document = installFakeDom();
  const [tip, note, plain] = [element("span", { class: "tip" }), element("p", { role: "note" }), element("p")];
  document.append(element("body").append(tip, note, plain));
  const rule = (selector, content = '"*"', nested) => new FakeStyleRule(selector, { content }, nested);
  assert.equal(generatedContentCandidates(null), null);
  assert.deepEqual(generatedContentCandidates([]), new Set());
  assert.deepEqual(generatedContentCandidates([rule("span::before"), rule("[role~=\"note\"]:after")]), new Set([tip, note]));
  // Rules that give no content, or no pseudo-element, add nothing.
  for (const content of ["", "none", "normal", '""', "''"]) {
    assert.deepEqual(generatedContentCandidates([rule("p::before", content)]), new Set(), content);
  }
  assert.deepEqual(generatedContentCandidates([rule("p", '"x"')]), new Set());
  // A bare pseudo-element selector reaches every element.
  assert.equal(generatedContentCandidates([rule("::after")]).size, 4);
  assert.deepEqual(generatedContentCandidates([rule("span::before, p::after")]), new Set([tip, note, plain]));
  // Functional selectors, nested rules and selectors the document cannot run: every element is asked.
  assert.equal(generatedContentCandidates([rule(":is(p, span)::before")]), null);
  assert.equal(generatedContentCandidates([rule("p", '"x"', [rule("&::before")])]), null);
  assert.equal(generatedContentCandidates([rule("p > span::before")]), null);
});

test("secret fields are found in the light tree, in open shadow roots and in closed ones the extension may read", async () => {
  const { secretFieldsOf } = await import("../../../extension/content/dom/secret-masks.js");
  const document = installFakeDom();
  const password = new FakeInput({ type: "password" });
  const email = new FakeInput({ type: "email" });
  const openHost = new FakeElement("x-login");
  const inOpen = new FakeInput({ type: "password" });
  openHost.attachShadow(new FakeElement("div").append(inOpen));
  const closedHost = new FakeElement("x-vault");
  const closedRoot = new FakeElement("x-vault").attachShadow(new FakeInput({ type: "password" }));
  const inClosed = closedRoot.childNodes[0];
  const masked = new FakeElement("div", { contenteditable: "true" });
  masked.isContentEditable = true;
  masked.computedStyle = { ...masked.computedStyle, "-webkit-text-security": "disc" };
  document.append(new FakeElement("body").append(password, email, openHost, closedHost, masked));
  globalThis.chrome = { dom: { openOrClosedShadowRoot: (element) => (element === closedHost ? closedRoot : null) } };
  try {
    assert.deepEqual(secretFieldsOf(document), [password, masked, inOpen, inClosed]);
    delete globalThis.chrome;
    assert.deepEqual(secretFieldsOf(document), [password, masked, inOpen], "a closed root it cannot read is not entered");
  } finally {
    delete globalThis.chrome;
  }
});
