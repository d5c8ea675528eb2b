// Proves that the action fixtures (fixtures/pages/actions/) work with REAL user input, before the
// extension is tested on them: when an action tool fails there, the fixture is not to blame.
//
//   node tests/browser/fixtures-check.mjs [--only NAME] [--synthetic]
//
// Builds the component-library apps first (scripts/build-fixtures.mjs; nothing to do when they
// are up to date), serves fixtures/ from two loopback origins with a minimal copy of the
// endpoints of tests/support/fixture_server.rs, and for each fixture does its task with
// Playwright's trusted input (clicks, fill, the keyboard) in Debian's Chromium, then asserts the
// JSON state the page publishes (<output id="state">, equal to window.fixtureState). One line
// per fixture; exits 1 when one fails.
//
// --synthetic then reports, without failing, which UNTRUSTED inputs each fixture reacts to:
// el.click(), dispatched pointer, mouse and keyboard events, value setters with input/change
// events. This is what an extension can do from a content script, so it tells the action tools
// what each library needs.

import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import assert from "node:assert/strict";
import { chromium } from "playwright-core";
import { CHROMIUM_EXECUTABLE } from "./chromium-executable.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const fixturesDir = path.join(root, "fixtures");
const argv = process.argv.slice(2);
const only = argv.includes("--only") ? argv[argv.indexOf("--only") + 1] : null;
const synthetic = argv.includes("--synthetic");
/** The event order of a real click on fixtures/pages/actions/click-order.html (--write-click-order rewrites it). */
const CLICK_ORDER_EXPECTED = path.join(root, "fixtures/pages/actions/click-order.expected.json");

execFileSync(process.execPath, [path.join(root, "scripts/build-fixtures.mjs")], { stdio: "inherit" });

// ---- Fixture server ----------------------------------------------------------------------------

/** Requests to the action endpoints, as {method, path}. */
const requests = [];

/** Counts recorded requests like the Rust server's GET /api/log. */
function requestLog() {
  const count = (prefix, method) => requests.filter((r) => r.path.startsWith(prefix) && r.method === method).length;
  return { mutate: count("/api/mutate", "POST"), telemetry: count("/telemetry/", "POST"), download: count("/download/", "GET") };
}

const CONTENT_TYPES = { ".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8" };

/** One origin of the fixture server; `origins` gives this origin and the other one. */
function handler(origins) {
  return async (request, response) => {
    const url = new URL(request.url, "http://fixture");
    const reply = (status, type, body, headers = {}) => {
      response.writeHead(status, { "content-type": type, "cache-control": "no-store", ...headers });
      response.end(body);
    };
    if (/^\/(api|telemetry|download)\//.test(url.pathname)) {
      requests.push({ method: request.method, path: url.pathname });
    }
    if (request.method === "POST" && url.pathname === "/api/mutate") {
      request.resume();
      await new Promise((resolve) => setTimeout(resolve, Math.min(Number(url.searchParams.get("delay") ?? 0), 10_000)));
      return reply(200, "application/json", JSON.stringify({ ok: true, mutations: requestLog().mutate }));
    }
    if (request.method === "POST" && url.pathname.startsWith("/telemetry/")) {
      request.resume();
      return reply(204, "text/plain", "");
    }
    if (request.method === "GET" && url.pathname === "/download/report.csv") {
      return reply(200, "text/csv; charset=utf-8", "month,visits\nJanuary,120\nFebruary,98\n", {
        "content-disposition": 'attachment; filename="report.csv"',
      });
    }
    if (request.method === "GET" && url.pathname === "/api/log") {
      return reply(200, "application/json", JSON.stringify(requestLog()));
    }
    const file = path.join(fixturesDir, path.normalize(decodeURIComponent(url.pathname)));
    if (!file.startsWith(fixturesDir + path.sep) || !statSync(file, { throwIfNoEntry: false })?.isFile()) {
      return reply(404, "text/plain", "not found");
    }
    const type = CONTENT_TYPES[path.extname(file)] ?? "application/octet-stream";
    let body = readFileSync(file);
    if (type.startsWith("text/html")) {
      body = body.toString("utf8").replaceAll("{{OTHER_ORIGIN}}", origins.other).replaceAll("{{SELF_ORIGIN}}", origins.self);
    }
    return reply(200, type, body);
  };
}

const origins = { first: "", second: "" };
const servers = [
  createServer(handler({ get self() { return origins.first; }, get other() { return origins.second; } })),
  createServer(handler({ get self() { return origins.second; }, get other() { return origins.first; } })),
];
for (const server of servers) await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
// Like the Rust server: the second origin differs by host name as well as port.
origins.first = `http://127.0.0.1:${servers[0].address().port}`;
origins.second = `http://localhost:${servers[1].address().port}`;

// ---- Browser -----------------------------------------------------------------------------------

const scratch = mkdtempSync(path.join(tmpdir(), "allwright-fixtures-"));
process.env.TMPDIR = scratch;
process.env.XDG_CONFIG_HOME = scratch;
const browser = await chromium.launch({
  executablePath: CHROMIUM_EXECUTABLE,
  args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});

/** The state a fixture publishes, after checking that the page and window agree on it. */
async function state(page) {
  const { text, object, quiet } = await page.evaluate(() => ({
    text: document.getElementById("state").textContent,
    object: window.fixtureState,
    quiet: window.fixtureStateQuiet === true,
  }));
  // A fixture that records quietly (fixtures/apps/state.js, recordStateQuietly) leaves #state.
  if (quiet) return object;
  const parsed = JSON.parse(text);
  assert.deepEqual(parsed, object, "#state and window.fixtureState differ");
  return parsed;
}

/** Waits until the state satisfies `check` (which asserts), for at most 3 s. */
async function eventually(page, check) {
  const deadline = Date.now() + 3000;
  for (;;) {
    try {
      return check(await state(page));
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }
}

/** Waits until the element `locator` names has the focus. */
async function focused(locator) {
  await locator.waitFor();
  await locator.evaluate((element) => new Promise((resolve) => {
    const poll = () => (document.activeElement === element ? resolve() : setTimeout(poll, 10));
    poll();
  }));
}

/** The server's GET /api/log, as a test of the Rust server would read it. */
async function apiLog() {
  return (await fetch(`${origins.first}/api/log`)).json();
}

// ---- Fixtures, each with its task done by real input -------------------------------------------

const FIXTURES = {
  async "react-form"(page) {
    await page.getByRole("textbox", { name: "Full name" }).fill("Ada Lovelace");
    await page.getByRole("textbox", { name: "Email" }).fill("ada@example.com");
    await page.getByRole("textbox", { name: "Message" }).fill("Hello\nthere");
    await page.getByRole("checkbox", { name: "Subscribe" }).click();
    await page.getByRole("combobox", { name: "Country" }).selectOption({ label: "Japan" });
    await page.getByRole("textbox", { name: "Promo code" }).pressSequentially("spring");
    const values = { fullName: "Ada Lovelace", email: "ada@example.com", message: "Hello\nthere", subscribe: true, country: "jp", promoCode: "SPRING" };
    await eventually(page, (s) => assert.deepEqual(s, { values, submitted: false, submitCount: 0, submittedValues: null }));
    assert.equal(await page.getByRole("textbox", { name: "Promo code" }).inputValue(), "SPRING");
    await page.getByRole("button", { name: "Send" }).click();
    await eventually(page, (s) => assert.deepEqual(s, { values, submitted: true, submitCount: 1, submittedValues: values }));
    // Enter in a text field submits too (implicit submission).
    await page.getByRole("textbox", { name: "Full name" }).press("Enter");
    await eventually(page, (s) => assert.equal(s.submitCount, 2));
  },

  async "vue-form"(page) {
    await page.getByRole("textbox", { name: "City" }).fill("Lyon");
    await page.getByRole("textbox", { name: "Zip code" }).fill("69001");
    // v-model.lazy: nothing until the field commits its value (change on blur).
    await eventually(page, (s) => assert.deepEqual(s.values, { city: "Lyon", zipCode: "" }));
    await page.keyboard.press("Tab");
    await eventually(page, (s) => assert.deepEqual(s.values, { city: "Lyon", zipCode: "69001" }));
    await page.getByRole("button", { name: "Save" }).click();
    await eventually(page, (s) =>
      assert.deepEqual(s, { values: { city: "Lyon", zipCode: "69001" }, saved: true, saveCount: 1, savedValues: { city: "Lyon", zipCode: "69001" } }));
  },

  async radix(page) {
    await page.getByRole("combobox", { name: "Fruit" }).click();
    await eventually(page, (s) => assert.equal(s.fruitOpen, true));
    await page.getByRole("option", { name: "Banana" }).click();
    await eventually(page, (s) => assert.deepEqual(s, { fruit: "banana", fruitOpen: false, settingsOpen: false, displayName: null }));
    // The keyboard: focus the trigger, open with Enter, move down, pick with Enter.
    // (Radix focuses the selected option once the list is placed; keys before that are lost.)
    await page.getByRole("combobox", { name: "Fruit" }).press("Enter");
    await focused(page.getByRole("option", { name: "Banana" }));
    await page.keyboard.press("ArrowDown");
    await focused(page.getByRole("option", { name: "Cherry" }));
    await page.keyboard.press("Enter");
    await eventually(page, (s) => assert.equal(s.fruit, "cherry"));

    await page.getByRole("button", { name: "Open settings" }).click();
    const dialog = page.getByRole("dialog", { name: "Settings" });
    await dialog.waitFor();
    await eventually(page, (s) => assert.equal(s.settingsOpen, true));
    await dialog.getByRole("textbox", { name: "Display name" }).fill("Grace");
    await dialog.getByRole("button", { name: "Save settings" }).click();
    await dialog.waitFor({ state: "detached" });
    await eventually(page, (s) => assert.deepEqual(s, { fruit: "cherry", fruitOpen: false, settingsOpen: false, displayName: "Grace" }));
  },

  async "react-select"(page) {
    const input = page.getByRole("combobox", { name: "Flavour" });
    await input.click();
    await eventually(page, (s) => assert.equal(s.menuOpen, true));
    await page.getByRole("option", { name: "Strawberry" }).click();
    await eventually(page, (s) => assert.deepEqual(s, { flavour: "strawberry", menuOpen: false, inputValue: "" }));
    // Typing opens the menu filtered; Enter picks the first (focused) match.
    await input.pressSequentially("van");
    await eventually(page, (s) => assert.deepEqual(s, { flavour: "strawberry", menuOpen: true, inputValue: "van" }));
    await page.keyboard.press("Enter");
    await eventually(page, (s) => assert.deepEqual(s, { flavour: "vanilla", menuOpen: false, inputValue: "" }));
  },

  async "mui-autocomplete"(page) {
    const input = page.getByRole("combobox", { name: "Movie" });
    await input.click();
    await eventually(page, (s) => assert.equal(s.open, true));
    await input.pressSequentially("casa");
    await page.getByRole("option", { name: "Casablanca" }).click();
    await eventually(page, (s) => assert.deepEqual(s, { movie: "Casablanca", open: false, inputValue: "Casablanca" }));
    // The keyboard: clear, type, ArrowDown highlights the first match, Enter picks it.
    await input.fill("");
    await input.pressSequentially("pulp");
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("Enter");
    await eventually(page, (s) => assert.deepEqual(s, { movie: "Pulp Fiction", open: false, inputValue: "Pulp Fiction" }));
  },

  async contenteditable(page) {
    await page.getByRole("textbox", { name: "Editor" }).click();
    await page.keyboard.type("Hello world");
    await eventually(page, (s) =>
      assert.deepEqual(s, { text: "Hello world", inputEvents: 11, beforeInputEvents: 11, lastInputType: "insertText" }));
    await page.keyboard.press("Backspace");
    await eventually(page, (s) =>
      assert.deepEqual(s, { text: "Hello worl", inputEvents: 12, beforeInputEvents: 12, lastInputType: "deleteContentBackward" }));
  },

  async spa(page) {
    const start = page.url();
    await page.getByRole("link", { name: "About" }).click();
    await page.getByRole("heading", { name: "About us" }).waitFor();
    assert.equal(await page.getByRole("link", { name: "About" }).getAttribute("aria-current"), "page");
    assert.equal(await page.getByRole("link", { name: "Home" }).getAttribute("aria-current"), null);
    await page.getByRole("link", { name: "Contact" }).click();
    await eventually(page, (s) => assert.deepEqual(s, { route: "contact", url: new URL("spa.html?route=contact", start).href, pushes: 2, pops: 0 }));
    await page.goBack();
    await page.getByRole("heading", { name: "About us" }).waitFor();
    await eventually(page, (s) => assert.deepEqual(s, { route: "about", url: new URL("spa.html?route=about", start).href, pushes: 2, pops: 1 }));
    // No load happened: the same document all along.
    assert.equal(await page.evaluate(() => performance.getEntriesByType("navigation").length), 1);
  },

  async reload(page) {
    // A fresh context: the counter in sessionStorage starts at one.
    await eventually(page, (s) => assert.deepEqual(s, { loads: 1, note: "" }));
    await page.getByLabel("Note").fill("Draft");
    await eventually(page, (s) => assert.deepEqual(s, { loads: 1, note: "Draft" }));
    await page.reload();
    // The script ran again: the count went up, in the heading and the title too.
    await eventually(page, (s) => assert.equal(s.loads, 2));
    await page.getByRole("heading", { name: "Loaded 2 times" }).waitFor();
    assert.equal(await page.title(), "Reload (loaded 2 times)");
  },

  async "new-tab"(page) {
    const [help] = await Promise.all([
      page.context().waitForEvent("page"),
      page.getByRole("link", { name: "Open help in a new tab" }).click(),
    ]);
    await help.waitForLoadState();
    assert.equal(help.url(), `${origins.second}/pages/actions/help.html`);
    await help.getByRole("heading", { name: "Help" }).waitFor();
    assert.match(page.url(), /\/pages\/actions\/new-tab\.html$/);
    await eventually(page, (s) => assert.deepEqual(s, { linkClicks: 1 }));
  },

  async download(page) {
    const before = requestLog().download;
    const [report] = await Promise.all([page.waitForEvent("download"), page.getByRole("link", { name: "Download report" }).click()]);
    assert.equal(report.suggestedFilename(), "report.csv");
    const [exported] = await Promise.all([page.waitForEvent("download"), page.getByRole("link", { name: "Export CSV" }).click()]);
    assert.equal(exported.suggestedFilename(), "report.csv");
    assert.match(page.url(), /\/pages\/actions\/download\.html$/);
    await eventually(page, (s) => assert.deepEqual(s, { linkClicks: { report: 1, export: 1 } }));
    assert.equal(requestLog().download - before, 2);
  },

  async network(page) {
    const before = await apiLog();
    await page.goto(`${origins.first}/pages/actions/network.html?delay=400`);
    await page.getByRole("button", { name: "Delete item" }).click();
    // Nothing in the page until the response (400 ms later).
    assert.deepEqual(await state(page), { deleted: 0, lastResponse: null });
    await eventually(page, (s) => assert.deepEqual(s, { deleted: 1, lastResponse: { ok: true, mutations: before.mutate + 1 } }));
    const stateText = await page.locator("#state").textContent();
    await page.getByRole("button", { name: "Refresh stats" }).click();
    const deadline = Date.now() + 3000;
    while ((await apiLog()).telemetry === before.telemetry && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25));
    assert.deepEqual(await apiLog(), { ...before, mutate: before.mutate + 1, telemetry: before.telemetry + 1 });
    assert.equal(await page.locator("#state").textContent(), stateText, "the beacon changed the page");
  },

  async overlay(page) {
    const hit = await page.evaluate(() => {
      const button = document.getElementById("buy");
      const rect = button.getBoundingClientRect();
      return document.elementFromPoint(rect.x + rect.width / 2, rect.y + rect.height / 2) === button;
    });
    assert.ok(hit, "the button's centre does not hit the button");
    await page.getByRole("button", { name: "Buy tickets" }).click();
    await eventually(page, (s) => assert.deepEqual(s, { clicked: 1 }));
  },

  async "click-order"(page) {
    // The events of one real click, compared with the recorded order that click_ax's synthetic
    // click must match (tests/extension/actions.rs reads the same file).
    await page.getByRole("button", { name: "Open" }).click();
    const recorded = await page.evaluate(() => window.fixtureState);
    assert.equal(recorded.clicks, 1);
    if (argv.includes("--write-click-order")) {
      writeFileSync(CLICK_ORDER_EXPECTED, `${JSON.stringify(recorded.events, null, 1)}\n`);
    }
    assert.deepEqual(recorded.events, JSON.parse(readFileSync(CLICK_ORDER_EXPECTED, "utf8")));
  },

  async "status-list"(page) {
    await page.getByRole("button", { name: "Open", exact: true }).click();
    await page.getByRole("status").getByText("Opened Report A (1)").waitFor();
    await page.getByRole("button", { name: "Open later" }).click();
    await page.getByRole("status").getByText("Opened Report B (1)").waitFor();
    await page.getByRole("button", { name: "Pin" }).click();
    await page.waitForFunction(() => document.getElementById("pins").classList.contains("has-pins"));
    assert.deepEqual(await page.evaluate(() => window.fixtureState), { opened: { a: 1, b: 1 }, pinned: 1 });
  },

  async "shoelace-select"(page) {
    await page.getByRole("combobox", { name: "Fruit" }).click();
    await page.getByRole("option", { name: "Banana" }).click();
    await eventually(page, (s) => assert.deepEqual(s, { value: "banana", changes: 1, mouseups: 1 }));
  },

  async "trusted-only"(page) {
    const button = page.getByRole("button", { name: "Trusted only" });
    await button.click();
    await eventually(page, (s) => assert.deepEqual(s, { trustedClicks: 1, ignoredClicks: 0 }));
    // An ignored click changes nothing in the page: only window.fixtureState records it.
    const textBefore = await page.locator("#state").textContent();
    await button.evaluate((element) => element.click());
    await eventually(page, (s) => assert.deepEqual(s, { trustedClicks: 1, ignoredClicks: 1 }));
    assert.equal(await page.locator("#state").textContent(), textBefore, "an ignored click changed the page");
  },
};

// ---- Untrusted input (--synthetic) -------------------------------------------------------------

// Helpers for the probes, which run in an ISOLATED world (CDP Page.createIsolatedWorld), as a
// content script does: the page's own properties on DOM objects (React's value tracker, for one)
// are invisible there, so `input.value = x` reaches the native setter directly.
const PROBE_HELPERS = `
  const $ = (selector) => document.querySelector(selector);
  const option = (text) => [...document.querySelectorAll('[role="option"]')].find((e) => e.textContent.trim() === text);
  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
  const init = { bubbles: true, cancelable: true, composed: true, view: window };
  const pointer = (element, type) => element.dispatchEvent(new PointerEvent(type, { ...init, pointerType: "mouse",
    pointerId: 1, isPrimary: true, button: 0, buttons: type === "pointerdown" ? 1 : 0 }));
  const mouse = (element, type) => element.dispatchEvent(new MouseEvent(type, { ...init, button: 0,
    buttons: type === "mousedown" ? 1 : 0 }));
  const press = (element, key) => {
    element.dispatchEvent(new KeyboardEvent("keydown", { ...init, key, code: key === " " ? "Space" : key }));
    element.dispatchEvent(new KeyboardEvent("keyup", { ...init, key, code: key === " " ? "Space" : key }));
  };
  const fire = (element, type) => element.dispatchEvent(new Event(type, { bubbles: true }));
  const typeValue = (element, value) => { element.value = value; fire(element, "input"); };
  const fullClick = (element) => {
    pointer(element, "pointerdown"); mouse(element, "mousedown");
    pointer(element, "pointerup"); mouse(element, "mouseup"); element.click();
  };
`;

/**
 * Each probe: [fixture, what is tried, its source (an async function body, run in the isolated
 * world after an optional `setup` with trusted input), `worked(state)`: whether the page reacted
 * as a user's input would have, setup?].
 */
const PROBES = [
  // Radix Select: the trigger, then an option of the open list.
  ["radix", "Select trigger: el.click()", `$("#fruit").click()`, (s) => s.fruitOpen],
  ["radix", "Select trigger: pointerdown (mouse, button 0)", `pointer($("#fruit"), "pointerdown")`, (s) => s.fruitOpen],
  ["radix", "Select trigger: full pointer+mouse+click sequence", `fullClick($("#fruit"))`, (s) => s.fruitOpen],
  ["radix", "Select trigger: mousedown only", `mouse($("#fruit"), "mousedown")`, (s) => s.fruitOpen],
  ["radix", "Select trigger: focus + keydown Enter", `$("#fruit").focus(); press($("#fruit"), "Enter")`, (s) => s.fruitOpen],
  ["radix", "Select trigger: focus + keydown ArrowDown", `$("#fruit").focus(); press($("#fruit"), "ArrowDown")`, (s) => s.fruitOpen],
  ["radix", "Select trigger: focus + keydown Space", `$("#fruit").focus(); press($("#fruit"), " ")`, (s) => s.fruitOpen],
  ["radix", "Select option: el.click()", `option("Banana").click()`, (s) => s.fruit === "banana" && !s.fruitOpen, openFruit],
  ["radix", "Select option: pointerup (mouse)", `pointer(option("Banana"), "pointerup")`, (s) => s.fruit === "banana", openFruit],
  ["radix", "Select option: full pointer+mouse+click sequence", `fullClick(option("Banana"))`, (s) => s.fruit === "banana", openFruit],
  ["radix", "Select option: keydown Enter on it", `option("Banana").focus(); press(option("Banana"), "Enter")`, (s) => s.fruit === "banana", openFruit],
  ["radix", "Select: open and pick, both by el.click()", `$("#fruit").click(); await sleep(100); option("Cherry").click()`, (s) => s.fruit === "cherry"],
  ["radix", "Select: open by keydown Enter, ArrowDown, Enter", `$("#fruit").focus(); press($("#fruit"), "Enter"); await sleep(100);
    press(document.activeElement, "ArrowDown"); await sleep(50); press(document.activeElement, "Enter")`, (s) => s.fruit !== null],
  ["radix", "Dialog trigger: el.click()", `[...document.querySelectorAll("button")].find((b) => b.textContent === "Open settings").click()`, (s) => s.settingsOpen],
  ["radix", "Dialog: input.value + input event, then Save settings el.click()", `typeValue($("#display-name"), "Grace");
    await sleep(50); [...document.querySelectorAll("button")].find((b) => b.textContent === "Save settings").click()`,
  (s) => s.displayName === "Grace" && !s.settingsOpen, openSettings],
  ["radix", "Dialog: keydown Escape on the focused input", `press(document.activeElement, "Escape")`, (s) => !s.settingsOpen, openSettings],

  // react-select.
  ["react-select", "focus only", `$("#flavour-input").focus()`, (s) => s.menuOpen],
  ["react-select", "input el.click()", `$("#flavour-input").click()`, (s) => s.menuOpen],
  ["react-select", "input: full pointer+mouse+click sequence", `fullClick($("#flavour-input"))`, (s) => s.menuOpen],
  ["react-select", "mousedown on the input", `mouse($("#flavour-input"), "mousedown")`, (s) => s.menuOpen],
  ["react-select", "focus + keydown ArrowDown", `$("#flavour-input").focus(); press($("#flavour-input"), "ArrowDown")`, (s) => s.menuOpen],
  ["react-select", "input.value + input event (typing)", `$("#flavour-input").focus(); typeValue($("#flavour-input"), "van")`, (s) => s.menuOpen && s.inputValue === "van"],
  ["react-select", "typing, then keydown Enter", `$("#flavour-input").focus(); typeValue($("#flavour-input"), "van"); await sleep(50);
    press($("#flavour-input"), "Enter")`, (s) => s.flavour === "vanilla"],
  ["react-select", "option el.click() (menu open)", `option("Strawberry").click()`, (s) => s.flavour === "strawberry", openFlavour],
  ["react-select", "option full pointer+mouse+click sequence", `fullClick(option("Strawberry"))`, (s) => s.flavour === "strawberry", openFlavour],

  // MUI Autocomplete.
  ["mui-autocomplete", "focus only", `$("input").focus()`, (s) => s.open],
  ["mui-autocomplete", "input el.click()", `$("input").click()`, (s) => s.open],
  ["mui-autocomplete", "its \"Open\" button (popup indicator): el.click()", `$("button[aria-label=Open]").click()`, (s) => s.open],
  ["mui-autocomplete", "input: full pointer+mouse+click sequence", `fullClick($("input"))`, (s) => s.open],
  ["mui-autocomplete", "mousedown on the input", `mouse($("input"), "mousedown")`, (s) => s.open],
  ["mui-autocomplete", "focus + keydown ArrowDown", `$("input").focus(); press($("input"), "ArrowDown")`, (s) => s.open],
  ["mui-autocomplete", "input.value + input event (typing)", `$("input").focus(); typeValue($("input"), "casa")`, (s) => s.open && s.inputValue === "casa"],
  ["mui-autocomplete", "typing, then keydown Enter", `$("input").focus(); typeValue($("input"), "casa"); await sleep(50); press($("input"), "Enter")`, (s) => s.movie === "Casablanca"],
  ["mui-autocomplete", "typing, then keydown ArrowDown, Enter", `$("input").focus(); typeValue($("input"), "casa"); await sleep(50);
    press($("input"), "ArrowDown"); await sleep(50); press($("input"), "Enter")`, (s) => s.movie === "Casablanca"],
  ["mui-autocomplete", "option el.click() (list open)", `option("Vertigo").click()`, (s) => s.movie === "Vertigo", openMovie],

  // React controlled form.
  ["react-form", "text: input.value + input event", `typeValue($("#full-name"), "Ada")`, (s) => s.values.fullName === "Ada"],
  ["react-form", "text: input.value + change event only", `$("#full-name").value = "Ada"; fire($("#full-name"), "change")`, (s) => s.values.fullName === "Ada"],
  ["react-form", "textarea: value + input event", `typeValue($("#message"), "Hi")`, (s) => s.values.message === "Hi"],
  ["react-form", "promo code: value + input event (upper-cased by React)", `typeValue($("#promo-code"), "spring")`,
    (s) => s.values.promoCode === "SPRING"],
  ["react-form", "checkbox: checked = true + change event", `const box = $("input[type=checkbox]"); box.checked = true;
    fire(box, "input"); fire(box, "change")`, (s) => s.values.subscribe === true],
  ["react-form", "checkbox: el.click()", `$("input[type=checkbox]").click()`, (s) => s.values.subscribe === true],
  ["react-form", "select: value + change event", `$("#country").value = "jp"; fire($("#country"), "change")`, (s) => s.values.country === "jp"],
  ["react-form", "select: value + input event only", `$("#country").value = "jp"; fire($("#country"), "input")`, (s) => s.values.country === "jp"],
  ["react-form", "submit: keydown Enter in a text field", `$("#full-name").focus(); press($("#full-name"), "Enter")`, (s) => s.submitted],
  ["react-form", "submit: form.requestSubmit()", `$("form").requestSubmit()`, (s) => s.submitted],
  ["react-form", "submit: Send el.click()", `$("button[type=submit]").click()`, (s) => s.submitted],

  // Vue v-model.
  ["vue-form", "City: value + input event", `typeValue($("#city"), "Lyon")`, (s) => s.values.city === "Lyon"],
  ["vue-form", "Zip code (lazy): value + input event", `typeValue($("#zip-code"), "69001")`, (s) => s.values.zipCode === "69001"],
  ["vue-form", "Zip code (lazy): value + input + change events", `typeValue($("#zip-code"), "69001"); fire($("#zip-code"), "change")`,
    (s) => s.values.zipCode === "69001"],
  ["vue-form", "Save: el.click()", `$("button").click()`, (s) => s.saved],

  // contenteditable.
  ["contenteditable", "textContent = x + input event", `$("#editor").textContent = "Hi"; $("#editor").dispatchEvent(new InputEvent("input",
    { bubbles: true, inputType: "insertText", data: "Hi" }))`, (s) => s.text === "Hi"],
  ["contenteditable", "beforeinput event only (inserts nothing)", `$("#editor").dispatchEvent(new InputEvent("beforeinput",
    { bubbles: true, cancelable: true, inputType: "insertText", data: "Hi" }))`, (s) => s.text === "Hi"],
  ["contenteditable", "focus + execCommand insertText", `$("#editor").focus(); document.execCommand("insertText", false, "Hi")`,
    (s) => s.text === "Hi" && s.inputEvents === 1],
  ["contenteditable", "execCommand insertText fires beforeinput", `$("#editor").focus(); document.execCommand("insertText", false, "Hi")`,
    (s) => s.beforeInputEvents > 0],

  // Plain pages.
  ["spa", "link el.click()", `[...document.querySelectorAll("a")].find((a) => a.textContent === "About").click()`, (s) => s.route === "about"],
  ["overlay", "button el.click()", `$("#buy").click()`, (s) => s.clicked === 1],
  ["trusted-only", "el.click()", `$("#trusted").click()`, (s) => s.trustedClicks === 1],
  ["trusted-only", "keydown Enter", `$("#trusted").focus(); press($("#trusted"), "Enter")`, (s) => s.trustedClicks === 1],
];

/** The same helpers in the PAGE's world, where React's value tracker sees `input.value = x`. */
const PAGE_WORLD_PROBES = [
  ["react-form", "text: input.value + input event, from the page's world", `typeValue($("#full-name"), "Ada")`,
    (s) => s.values.fullName === "Ada"],
  ["react-form", "text: native value setter + input event, from the page's world", `const input = $("#full-name");
    Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, "value").set.call(input, "Ada"); fire(input, "input")`,
  (s) => s.values.fullName === "Ada"],
];

async function openFruit(page) {
  await page.getByRole("combobox", { name: "Fruit" }).click();
  await page.getByRole("option", { name: "Banana" }).waitFor();
}

async function openSettings(page) {
  await page.getByRole("button", { name: "Open settings" }).click();
  await page.getByRole("textbox", { name: "Display name" }).waitFor();
}

async function openFlavour(page) {
  await page.getByRole("combobox", { name: "Flavour" }).click();
  await page.getByRole("option", { name: "Strawberry" }).waitFor();
}

async function openMovie(page) {
  await page.getByRole("combobox", { name: "Movie" }).click();
  await page.getByRole("option", { name: "Vertigo" }).waitFor();
}

/** Runs `source` (an async function body) in a fresh isolated world of the page's main frame. */
async function inIsolatedWorld(page, source) {
  const cdp = await page.context().newCDPSession(page);
  const { frameTree } = await cdp.send("Page.getFrameTree");
  const { executionContextId } = await cdp.send("Page.createIsolatedWorld", { frameId: frameTree.frame.id, worldName: "probe" });
  const { exceptionDetails } = await cdp.send("Runtime.evaluate", {
    expression: `(async () => { ${PROBE_HELPERS}\n${source}\n})()`,
    contextId: executionContextId,
    awaitPromise: true,
  });
  await cdp.detach();
  if (exceptionDetails) throw new Error(exceptionDetails.exception?.description ?? exceptionDetails.text);
}

/** Runs `source` (an async function body) in the page's own world. */
async function inPageWorld(page, source) {
  await page.evaluate(`(async () => { ${PROBE_HELPERS}\n${source}\n})()`);
}

async function reportSyntheticInput() {
  console.log("\nUntrusted input (isolated world unless said otherwise: what a content script can do):");
  const context = await browser.newContext({ viewport: { width: 1000, height: 700 } });
  context.setDefaultTimeout(5000);
  const probes = [
    ...PROBES.map(([fixture, what, source, worked, setup]) => ({ fixture, what, source, worked, setup, run: inIsolatedWorld })),
    ...PAGE_WORLD_PROBES.map(([fixture, what, source, worked]) => ({ fixture, what, source, worked, run: inPageWorld })),
  ];
  for (const { fixture, what, source, worked, setup, run } of probes) {
    if (only && fixture !== only) continue;
    const page = await context.newPage();
    let outcome;
    try {
      await page.goto(`${origins.first}/pages/actions/${fixture}.html`);
      if (setup) await setup(page);
      await run(page, source);
      await new Promise((resolve) => setTimeout(resolve, 300));
      outcome = worked(await state(page)) ? "works" : "no effect";
    } catch (error) {
      outcome = `error: ${error.message.split("\n")[0]}`;
    }
    console.log(`  ${fixture.padEnd(17)} ${what.padEnd(66)} ${outcome}`);
    await page.close();
  }
  await context.close();
}

// ---- Run ---------------------------------------------------------------------------------------

let failures = 0;
for (const [name, task] of Object.entries(FIXTURES)) {
  if (only && name !== only) continue;
  const context = await browser.newContext({ viewport: { width: 1000, height: 700 } });
  context.setDefaultTimeout(5000);
  const page = await context.newPage();
  const errors = [];
  page.on("pageerror", (error) => errors.push(error.message));
  const started = Date.now();
  try {
    await page.goto(`${origins.first}/pages/actions/${name}.html`);
    await task(page);
    assert.deepEqual(errors, [], "errors in the page");
    console.log(`ok   ${name} (${Date.now() - started} ms)`);
  } catch (error) {
    failures += 1;
    console.log(`FAIL ${name}: ${error.message.split("\n").slice(0, 6).join("\n     ")}`);
  }
  await context.close();
}

if (synthetic) await reportSyntheticInput();

await browser.close();
for (const server of servers) server.close();
rmSync(scratch, { recursive: true, force: true });
if (failures > 0) {
  console.log(`\n${failures} fixture(s) failed`);
  process.exit(1);
}
