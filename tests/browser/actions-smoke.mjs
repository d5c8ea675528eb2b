// In-page test of the page-side half of the action tools: the content script content/actions.js
// as the build bundles it from extension/content/actions.js and its modules.
//
//   node tests/browser/actions-smoke.mjs
//
// Debian's Chromium, driven by playwright-core, loads small pages from a local HTTP server. Each
// page gets a stub of `globalThis.allwrightAx` (refs are `data-test-ref` attributes; the role and
// name are the role attribute or tag and the aria-label or text) and actions.js itself, both
// injected into the PAGE's world: acceptable for this unit-level test only. The extension runs
// actions.js in the content script's isolated world, where the page's own property overrides
// (the React-like value tracker below) are not even visible; here they are, which makes the
// native-setter path a stricter test.
//
// Every handler's main path and its errors are checked; a line is printed per case and the exit
// code is non-zero when any case fails.

import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { chromium } from 'playwright-core';
import { CHROMIUM_EXECUTABLE } from './chromium-executable.mjs';
import { bundleContentScript } from '../../scripts/build-extension.mjs';

// The action side on its own, its handlers set as `globalThis.allwrightActions` for the checks below
// (the extension's router imports them instead).
const ACTIONS_SCRIPT = `${await bundleContentScript('content/actions.js', undefined, { globalName: 'allwrightActionsModule' })}
globalThis.allwrightActions = allwrightActionsModule.actionHandlers;`;

// The registry stub: the helpers actions.js uses, with the real registry's error shape. No ref
// was read from a tree here, so printedRefOf knows none and the role rules read role attributes.
const AX_STUB = `
globalThis.allwrightAx = {
  resolveRef(ref) {
    const selector = '[data-test-ref="' + CSS.escape(ref) + '"]';
    const scopes = [document];
    while (scopes.length > 0) {
      const scope = scopes.pop();
      const found = scope.querySelector(selector);
      if (found) return found;
      for (const element of scope.querySelectorAll('*')) if (element.shadowRoot) scopes.push(element.shadowRoot);
    }
    throw { code: 'ref_not_found', message: ref + ' was not found', suggestions: ['ref_1', 'ref_2'] };
  },
  async describeElement(element) {
    return { role: element.getAttribute('role') ?? element.localName, name: element.getAttribute('aria-label') ?? element.textContent.trim() };
  },
  // No tree was read here, so no target can have changed since a read (ref_changed is tested
  // through the extension, tests/extension/safety.rs).
  async describeUnchangedElement(element) {
    return this.describeElement(element);
  },
  printedRefOf() {
    return null;
  },
};`;

// ---- Pages -------------------------------------------------------------------------------------

const CLICK_PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>click</title>
<style>body { margin: 0; } .cover { position: absolute; inset: 0; background: rgba(0, 0, 0, .1); }</style></head>
<body>
  <div role="button" tabindex="0" data-test-ref="plain">Open details</div>
  <div role="button" data-test-ref="self-mutating" onclick="this.setAttribute('data-clicked', 'yes')">Mark</div>
  <button data-test-ref="expander" aria-expanded="false" onclick="this.setAttribute('aria-expanded', 'true')">More</button>
  <button data-test-ref="focus-mover" onclick="document.getElementById('other').focus()">Next field</button>
  <input id="other" aria-label="Other">
  <button data-test-ref="hash" onclick="location.hash = 'moved'">Jump</button>
  <button data-test-ref="elsewhere" onclick="document.getElementById('log').textContent += 'x'">Log</button>
  <button data-test-ref="elsewhere-attribute" onclick="document.getElementById('log').classList.toggle('flash')">Flash</button>
  <p id="log"></p>
  <button data-test-ref="controls" aria-controls="panel" onclick="document.getElementById('panel').hidden = false">Show panel</button>
  <div id="panel" hidden>Panel</div>
  <button data-test-ref="microtask" onclick="queueMicrotask(() => this.setAttribute('data-rendered', '1'))">Render later</button>
  <button data-test-ref="deferred" onclick="setTimeout(() => { this.setAttribute('aria-current', 'page'); this.className = 'active'; }, 30)">Later</button>
  <button data-test-ref="vanishing" onclick="this.remove()">Dismiss</button>
  <button data-test-ref="gone-on-press" onmousedown="this.remove()" onclick="window.goneClicked = true">Press away</button>
  <button data-test-ref="disabled" disabled>Off</button>
  <fieldset disabled><button data-test-ref="in-disabled-fieldset">Inside</button></fieldset>
  <div role="button" data-test-ref="aria-disabled" aria-disabled="true">Soft off</div>
  <div role="button" data-test-ref="no-pointer" style="pointer-events: none">Ghost</div>
  <form onsubmit="event.preventDefault(); window.submitted = true">
    <div role="button" data-test-ref="in-form">Form thing</div>
    <button data-test-ref="submit">Go</button>
  </form>
  <div role="button" data-test-ref="toggle" aria-pressed="false">Bold</div>
  <div role="button" data-test-ref="mutating">Delete item</div>
  <div style="position: relative"><div role="button" data-test-ref="covered">Behind glass</div><div class="cover"></div></div>
  <a href="/other" data-test-ref="link" onclick="event.preventDefault()">Other page</a>
  <a href="#section" data-test-ref="fragment" onclick="event.preventDefault()">Section</a>
  <x-host></x-host>
  <svg width="40" height="40"><g role="button" data-test-ref="svg-button" onclick="this.setAttribute('data-hit', '1')"><rect width="40" height="40"></rect></g></svg>
  <script>
    const shadow = document.querySelector('x-host').attachShadow({ mode: 'open' });
    shadow.innerHTML = '<button data-test-ref="shadow-button" aria-controls="state">Inner</button><span id="state">idle</span>';
    shadow.querySelector('button').addEventListener('click', () => { shadow.getElementById('state').textContent = 'busy'; });
  </script>
</body></html>`;

const TYPE_PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>type</title></head>
<body>
  <input data-test-ref="plain" id="plain" value="old">
  <input data-test-ref="react" id="react">
  <input data-test-ref="locked" id="locked">
  <input type="password" data-test-ref="password" id="password">
  <textarea data-test-ref="notes" id="notes"></textarea>
  <div contenteditable="true" data-test-ref="editor" id="editor">start</div>
  <div contenteditable="true" data-test-ref="managed-editor" id="managed-editor"></div>
  <input type="checkbox" data-test-ref="checkbox">
  <select data-test-ref="select"><option>One</option></select>
  <div data-test-ref="text">Just text</div>
  <label data-test-ref="label" for="labelled">Email</label><input id="labelled">
  <div data-test-ref="wrapper"><span>City</span><input id="wrapped"></div>
  <input type="number" data-test-ref="number">
  <input data-test-ref="readonly" readonly>
  <input data-test-ref="disabled" disabled>
  <script>
    window.events = [];
    const plain = document.getElementById('plain');
    plain.addEventListener('input', (event) => events.push('input:' + event.inputType));
    plain.addEventListener('change', () => events.push('change'));

    // A React-like controlled input. React redefines 'value' on the instance to remember the last
    // value it wrote (inputValueTracking) and calls onChange only when the DOM value differs from
    // it; after the event its re-render writes the state back. A plain el.value = x goes through
    // the tracker, looks like no change, and is reverted; the prototype's setter is not.
    window.reactChanges = 0;
    function controlledInput(input, acceptsChanges) {
      const native = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value');
      let tracked = '';
      let state = '';
      Object.defineProperty(input, 'value', {
        configurable: true,
        get() { return native.get.call(this); },
        set(value) { tracked = String(value); native.set.call(this, value); },
      });
      input.addEventListener('input', () => {
        const actual = native.get.call(input);
        if (actual !== tracked) {
          window.reactChanges += 1;
          if (acceptsChanges) state = actual;
        }
        queueMicrotask(() => { if (input.value !== state) input.value = state; });
      });
    }
    controlledInput(document.getElementById('react'), true);
    controlledInput(document.getElementById('locked'), false);

    // An editor that handles beforeinput itself, replacing the selection as ProseMirror would.
    const managed = document.getElementById('managed-editor');
    managed.addEventListener('beforeinput', (event) => {
      event.preventDefault();
      const everything = getSelection().toString() === managed.textContent;
      managed.textContent = (everything ? '' : managed.textContent) + (event.data ?? '');
    });
  </script>
</body></html>`;

const FILL_PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>fill</title></head>
<body>
  <form id="search" onsubmit="event.preventDefault(); window.submitted = (window.submitted ?? 0) + 1; window.submitter = event.submitter?.id">
    <input data-test-ref="in-form" name="q"><button id="go">Search</button>
  </form>
  <input data-test-ref="no-form" id="no-form">
  <div><input data-test-ref="combo" id="combo" role="combobox" aria-controls="combo-list" aria-expanded="false" aria-autocomplete="list">
    <ul role="listbox" id="combo-list" hidden></ul></div>
  <div><input data-test-ref="combo-plain" id="combo-plain" role="combobox" aria-controls="plain-list" aria-expanded="false">
    <ul role="listbox" id="plain-list" hidden></ul></div>
  <script>
    window.keys = [];
    document.getElementById('no-form').addEventListener('keydown', (event) => keys.push(event.key + ':' + event.keyCode));
    const fruits = ['Apple', 'Apricot', 'Banana', 'Cherry'];
    // A suggestion list in the react-select style (autoHighlight: the first match is highlighted
    // while typing, named by aria-activedescendant), or one that needs ArrowDown first.
    function combobox(input, list, autoHighlight) {
      let items = [];
      let active = -1;
      const render = () => {
        list.replaceChildren(...items.map((label, index) => {
          const item = document.createElement('li');
          item.setAttribute('role', 'option');
          item.id = list.id + '-' + index;
          item.textContent = label;
          item.onclick = () => commit(index);
          return item;
        }));
        list.hidden = items.length === 0;
        input.setAttribute('aria-expanded', String(!list.hidden));
        if (active >= 0) input.setAttribute('aria-activedescendant', list.id + '-' + active);
        else input.removeAttribute('aria-activedescendant');
      };
      const commit = (index) => { input.value = items[index]; items = []; active = -1; render(); };
      input.addEventListener('input', () => {
        const query = input.value.toLowerCase();
        items = query ? fruits.filter((fruit) => fruit.toLowerCase().startsWith(query)) : [];
        active = autoHighlight && items.length > 0 ? 0 : -1;
        setTimeout(render, 20);
      });
      input.addEventListener('keydown', (event) => {
        if (event.key === 'ArrowDown' && items.length > 0) { active = Math.min(active + 1, items.length - 1); render(); event.preventDefault(); }
        if (event.key === 'Enter' && active >= 0) { commit(active); event.preventDefault(); }
      });
    }
    combobox(document.getElementById('combo'), document.getElementById('combo-list'), true);
    combobox(document.getElementById('combo-plain'), document.getElementById('plain-list'), false);
  </script>
</body></html>`;

const SELECT_PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>select</title></head>
<body>
  <label for="size" data-test-ref="size-label">Size</label>
  <select id="size" data-test-ref="size">
    <option value="s">Small</option><option value="m">Medium</option><option value="l">Large</option>
    <option value="xl" disabled>Extra large</option>
  </select>
  <button data-test-ref="flavour" id="flavour" role="combobox" aria-haspopup="listbox" aria-expanded="false" aria-controls="flavours">Choose</button>
  <ul role="listbox" id="flavours" hidden>
    <li role="option" data-value="van">Vanilla</li><li role="option" data-value="cho">Chocolate</li><li role="option" data-value="str">Strawberry</li>
  </ul>
  <div data-test-ref="keyboard-only" id="keyboard-only" role="combobox" tabindex="0" aria-expanded="false" aria-controls="colours">Colour</div>
  <ul role="listbox" id="colours" hidden>
    <li role="option" id="c-red">Red</li><li role="option" id="c-green">Green</li><li role="option" id="c-blue">Blue</li>
  </ul>
  <p data-test-ref="paragraph">Not a list</p>
  <script>
    window.sizeChanges = 0;
    document.getElementById('size').addEventListener('change', () => { window.sizeChanges += 1; });

    // Opens on click, chooses on an option's click, closes on Escape.
    const flavour = document.getElementById('flavour');
    const flavours = document.getElementById('flavours');
    const setOpen = (open) => { flavours.hidden = !open; flavour.setAttribute('aria-expanded', String(open)); };
    flavour.addEventListener('click', () => setOpen(flavours.hidden));
    flavour.addEventListener('keydown', (event) => { if (event.key === 'Escape') setOpen(false); });
    for (const option of flavours.children) {
      option.addEventListener('click', () => {
        for (const other of flavours.children) other.setAttribute('aria-selected', String(other === option));
        flavour.textContent = option.textContent;
        setOpen(false);
      });
    }

    // Radix-like: opens only on ArrowDown, ignores clicks on options, Enter chooses the option
    // that aria-activedescendant names.
    const colour = document.getElementById('keyboard-only');
    const colours = document.getElementById('colours');
    let active = -1;
    const highlight = () => colour.setAttribute('aria-activedescendant', colours.children[active].id);
    colour.addEventListener('keydown', (event) => {
      if (event.key === 'ArrowDown') {
        if (colours.hidden) { colours.hidden = false; colour.setAttribute('aria-expanded', 'true'); active = 0; }
        else active = Math.min(active + 1, colours.children.length - 1);
        highlight();
      } else if (event.key === 'Enter' && !colours.hidden) {
        colour.textContent = colours.children[active].textContent;
        colours.hidden = true;
        colour.setAttribute('aria-expanded', 'false');
      }
    });
  </script>
  <label for="city">City</label>
  <input data-test-ref="city" id="city" role="combobox" readonly aria-expanded="false" aria-controls="city-list">
  <div id="city-shown"></div>
  <div role="listbox" id="city-list" style="height: 0; width: 0; overflow: hidden"></div>
  <script>
    // rc-select-like (Ant Design's Select): opens on mousedown, keeps a zero-size ARIA listbox of
    // the highlighted option and the next one only, moves the highlight with ArrowDown
    // (aria-activedescendant) and chooses with Enter; the visible list has no roles.
    const CITIES = ['Amsterdam', 'Berlin', 'Lisbon', 'Madrid', 'Paris', 'Rome', 'Vienna', 'Zurich'];
    const city = document.getElementById('city');
    const cityList = document.getElementById('city-list');
    let cityActive = 0;
    window.cityChanges = 0;
    const renderCities = () => {
      cityList.replaceChildren(...[cityActive, cityActive + 1].filter((index) => index < CITIES.length).map((index) => {
        const option = document.createElement('div');
        option.setAttribute('role', 'option');
        option.id = 'city-list-' + index;
        option.textContent = CITIES[index];
        return option;
      }));
      city.setAttribute('aria-activedescendant', 'city-list-' + cityActive);
    };
    city.addEventListener('mousedown', () => { city.setAttribute('aria-expanded', 'true'); cityActive = 0; renderCities(); });
    city.addEventListener('keydown', (event) => {
      if (city.getAttribute('aria-expanded') !== 'true') return;
      if (event.key === 'ArrowDown') { cityActive = Math.min(cityActive + 1, CITIES.length - 1); renderCities(); }
      else if (event.key === 'Enter') {
        document.getElementById('city-shown').textContent = CITIES[cityActive];
        window.cityChanges += 1;
        city.setAttribute('aria-expanded', 'false');
        cityList.replaceChildren();
      } else if (event.key === 'Escape') { city.setAttribute('aria-expanded', 'false'); cityList.replaceChildren(); }
    });
  </script>
  <x-swatches><div role="option" data-value="r">Red</div><div role="option" data-value="g">Green</div></x-swatches>
  <script>
    // A web-component list whose options are light-DOM children slotted into a shadow listbox,
    // choosing on mouseup as Shoelace does; a click event alone changes nothing.
    customElements.define('x-swatches', class extends HTMLElement {
      connectedCallback() {
        const shadow = this.attachShadow({ mode: 'open' });
        shadow.innerHTML = '<div role="listbox" data-test-ref="swatches" aria-label="Swatch"><slot></slot></div>';
        shadow.firstChild.addEventListener('mouseup', (event) => {
          const option = event.target.closest('[role=option]');
          for (const other of this.children) other.setAttribute('aria-selected', String(other === option));
          window.swatchMouseups = (window.swatchMouseups ?? 0) + 1;
        });
      }
    });
  </script>
</body></html>`;

const HOVER_PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>hover</title></head>
<body>
  <button data-test-ref="tip" id="tip">Info</button>
  <div role="tooltip" id="tooltip" hidden>Helpful</div>
  <button data-test-ref="menu" aria-expanded="false" onmouseenter="setTimeout(() => this.setAttribute('aria-expanded', 'true'), 100)">Menu</button>
  <span data-test-ref="still">Plain</span>
  <script>
    window.hoverEvents = [];
    const tip = document.getElementById('tip');
    for (const type of ['pointerover', 'pointerenter', 'mouseover', 'mouseenter', 'pointermove', 'mousemove']) {
      tip.addEventListener(type, (event) => hoverEvents.push({ type, bubbles: event.bubbles, x: event.clientX, y: event.clientY }));
    }
    tip.addEventListener('mouseover', () => { document.getElementById('tooltip').hidden = false; });
  </script>
</body></html>`;

const DRAG_PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>drag</title>
<style>div { position: absolute; width: 100px; height: 40px; } #card { left: 10px; top: 10px; }
#accepts { left: 200px; top: 10px; } #refuses { left: 200px; top: 100px; } #thumb { left: 10px; top: 200px; }</style></head>
<body>
  <div draggable="true" data-test-ref="card" id="card">Card</div>
  <div data-test-ref="accepts" id="accepts">Accepts</div>
  <div data-test-ref="refuses" id="refuses">Refuses</div>
  <div data-test-ref="thumb" id="thumb" role="slider">Thumb</div>
  <script>
    window.dragEvents = [];
    const log = (event) => dragEvents.push({ type: event.type, target: event.target.id, data: event.dataTransfer?.getData('text/plain') ?? null,
      buttons: event.buttons, pointerId: event.pointerId, pressure: event.pressure, isPrimary: event.isPrimary });
    for (const type of ['pointerdown', 'mousedown', 'dragstart', 'pointercancel', 'dragenter', 'dragleave', 'drop', 'dragend',
      'pointerup', 'mouseup', 'click']) document.addEventListener(type, log, true);
    document.getElementById('card').addEventListener('dragstart', (event) => event.dataTransfer.setData('text/plain', 'card-1'));
    document.getElementById('accepts').addEventListener('dragover', (event) => event.preventDefault());
    window.moves = [];
    document.addEventListener('pointermove', (event) => { if (event.buttons === 1) moves.push(event.clientX); }, true);
  </script>
</body></html>`;

const KEY_PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>keys</title></head>
<body>
  <form onsubmit="event.preventDefault(); window.submitted = (window.submitted ?? 0) + 1">
    <input data-test-ref="field" id="field" value="ab">
    <input data-test-ref="guarded" onkeydown="if (event.key === 'Enter') event.preventDefault()">
    <button>Send</button>
  </form>
  <div role="button" tabindex="0" data-test-ref="div-button" onclick="this.dataset.clicks = Number(this.dataset.clicks ?? 0) + 1">Act</div>
  <input data-test-ref="first" id="first"><input data-test-ref="second" id="second">
  <input type="checkbox" data-test-ref="check" id="check">
  <div tabindex="0" data-test-ref="listener" id="listener" onkeydown="window.lastKey = event.key + ':' + event.keyCode + ':' + event.code">Keys</div>
</body></html>`;

const SCROLL_PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>scroll</title>
<style>body { margin: 0; } #box { height: 100px; overflow: auto; } #box .inner { height: 1000px; } p { margin: 0; } .tall { height: 3000px; }</style></head>
<body>
  <div id="box" data-test-ref="box"><div class="inner"><p data-test-ref="inside">Inside</p></div></div>
  <div class="tall"></div>
  <p data-test-ref="far">Far away</p>
</body></html>`;

// draft_state (promote_iframe's question, docs/protocol/frames.md "Frames"): controls against their
// defaults, a chosen file, and an agent's contenteditable text until the page takes it.
const DRAFT_PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>draft</title></head>
<body>
  <label>City <input id="city" value="Lyon"></label>
  <label>Secret <input id="secret" type="password"></label>
  <select id="seats" aria-label="Seats"><option>1</option><option>2</option></select>
  <label><input id="window" type="checkbox" checked> Window seat</label>
  <label>Notes <textarea id="notes">hi</textarea></label>
  <label>Ticket <input id="ticket" type="file"></label>
  <input type="hidden" id="token" value="a">
  <div contenteditable="true" data-test-ref="editor" aria-label="Message"></div>
</body></html>`;

const QUIET_PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>quiet</title></head>
<body><p id="ticker">0</p><script>
  window.startTicking = () => setInterval(() => { const ticker = document.getElementById('ticker'); ticker.textContent = Number(ticker.textContent) + 1; }, 20);
</script></body></html>`;

// ---- Harness -----------------------------------------------------------------------------------

let currentPage = '';
const server = createServer((request, response) => {
  response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  response.end(currentPage);
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const origin = `http://127.0.0.1:${server.address().port}`;

const browser = await chromium.launch({
  executablePath: CHROMIUM_EXECUTABLE,
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
const page = await browser.newPage({ viewport: { width: 800, height: 600 } });
let pageNumber = 0;

async function open(html) {
  currentPage = html;
  pageNumber += 1;
  await page.goto(`${origin}/page-${pageNumber}`);
  await page.addScriptTag({ content: AX_STUB });
  await page.addScriptTag({ content: ACTIONS_SCRIPT });
}

/** Runs a content tool in the page: `{ok, result}` or `{ok: false, error}`. */
function call(tool, args) {
  return page.evaluate(async ([tool, args]) => {
    try {
      return { ok: true, result: await globalThis.allwrightActions[tool](args, globalThis.allwrightAx) };
    } catch (error) {
      if (error !== null && typeof error === 'object' && typeof error.code === 'string') return { ok: false, error: { ...error } };
      return { ok: false, error: { code: 'script_failed', message: String(error?.stack ?? error) } };
    }
  }, [tool, args]);
}

async function succeed(tool, args) {
  const answer = await call(tool, args);
  assert.ok(answer.ok, `${tool} ${JSON.stringify(args)} failed: ${JSON.stringify(answer.error)}`);
  return answer.result;
}

async function fail(tool, args, code) {
  const answer = await call(tool, args);
  assert.equal(answer.ok, false, `${tool} ${JSON.stringify(args)} should fail with ${code}, got ${JSON.stringify(answer.result)}`);
  assert.equal(answer.error.code, code, JSON.stringify(answer.error));
  return answer.error;
}

const inPage = (expression) => page.evaluate(expression);

let failures = 0;
async function check(name, body) {
  try {
    await body();
    console.log(`ok   ${name}`);
  } catch (error) {
    failures += 1;
    console.log(`FAIL ${name}\n     ${String(error?.message ?? error).split('\n').join('\n     ')}`);
  }
}

const started = performance.now();

// ---- click_element / observe_click -------------------------------------------------------------

await open(CLICK_PAGE);

await check('click: plain div role=button is a safe fallback target, nothing observed', async () => {
  const result = await succeed('click_element', { ref_id: 'plain' });
  assert.equal(result.tag, 'div');
  assert.equal(result.role, 'button');
  assert.equal(result.name, 'Open details');
  assert.deepEqual(result.evidence, []);
  assert.equal(result.navigates, false);
  assert.equal(result.href, undefined);
  assert.match(result.token, /^click_[0-9a-f]{24}$/);
  assert.deepEqual(result.fallback.eligible, true, JSON.stringify(result.fallback));
  const { x, y, width, height } = result.rect;
  assert.deepEqual(result.fallback.point, { x: Math.round(x + width / 2), y: Math.round(y + height / 2) });
});

await check('click: handler changes the target -> local_mutation', async () => {
  const result = await succeed('click_element', { ref_id: 'self-mutating' });
  assert.deepEqual(result.evidence, ['local_mutation']);
});

await check('click: aria-expanded flips -> semantic_state, fallback refused (toggle)', async () => {
  const result = await succeed('click_element', { ref_id: 'expander' });
  assert.ok(result.evidence.includes('semantic_state:aria-expanded'), JSON.stringify(result.evidence));
  assert.equal(result.fallback.eligible, false);
  assert.match(result.fallback.reason, /toggle|native/);
});

await check('click: handler moves focus -> focus_moved', async () => {
  const result = await succeed('click_element', { ref_id: 'focus-mover' });
  assert.ok(result.evidence.includes('focus_moved'), JSON.stringify(result.evidence));
});

await check('click: handler changes the URL -> url_changed', async () => {
  const result = await succeed('click_element', { ref_id: 'hash' });
  assert.ok(result.evidence.includes('url_changed'), JSON.stringify(result.evidence));
});

await check('click: text changed elsewhere is evidence (text_changed), its count a hint', async () => {
  const result = await succeed('click_element', { ref_id: 'elsewhere' });
  assert.deepEqual(result.evidence, ['text_changed']);
  assert.ok(result.hints.some((hint) => /^global_mutation: 1 mutations elsewhere/.test(hint)), JSON.stringify(result.hints));
});

await check('click: an attribute changed elsewhere is a hint only', async () => {
  const result = await succeed('click_element', { ref_id: 'elsewhere-attribute' });
  assert.deepEqual(result.evidence, []);
  assert.ok(result.hints.some((hint) => /^global_mutation: 1 mutations elsewhere/.test(hint)), JSON.stringify(result.hints));
});

await check('click: what aria-controls names changes -> local_mutation', async () => {
  const result = await succeed('click_element', { ref_id: 'controls' });
  assert.deepEqual(result.evidence, ['local_mutation']);
});

await check('click: a microtask render (React 18) still counts as synchronous', async () => {
  const result = await succeed('click_element', { ref_id: 'microtask' });
  assert.deepEqual(result.evidence, ['local_mutation']);
});

await check('click: inside an open shadow root, aria-controls resolved there -> local_mutation', async () => {
  const result = await succeed('click_element', { ref_id: 'shadow-button' });
  // The controlled span's text changed too, which is evidence wherever it is.
  assert.deepEqual(result.evidence, ['local_mutation', 'text_changed']);
});

await check('click: an SVG element (no click()) gets a click event', async () => {
  const result = await succeed('click_element', { ref_id: 'svg-button' });
  assert.equal(result.tag, 'g');
  assert.deepEqual(result.evidence, ['local_mutation']);
});

await check('click: the target removes itself -> local_mutation, fallback refused', async () => {
  const result = await succeed('click_element', { ref_id: 'vanishing' });
  // The button's own text left the page with it.
  assert.deepEqual(result.evidence, ['local_mutation', 'text_changed']);
  assert.equal(result.fallback.eligible, false);
  assert.match(result.fallback.reason, /left the page/);
});

await check('click: a target removed on mousedown gets no release and no click', async () => {
  const result = await succeed('click_element', { ref_id: 'gone-on-press' });
  assert.ok(result.evidence.includes('local_mutation'), JSON.stringify(result.evidence));
  assert.equal(await inPage(() => window.goneClicked ?? false), false);
});

await check('click: disabled button and button in a disabled fieldset -> not_actionable', async () => {
  await fail('click_element', { ref_id: 'disabled' }, 'not_actionable');
  await fail('click_element', { ref_id: 'in-disabled-fieldset' }, 'not_actionable');
});

await check('click: aria-disabled only adds a hint', async () => {
  const result = await succeed('click_element', { ref_id: 'aria-disabled' });
  assert.ok(result.hints.some((hint) => hint.includes('aria-disabled')), JSON.stringify(result.hints));
});

await check('click: unknown ref -> ref_not_found from resolveRef, with suggestions', async () => {
  const error = await fail('click_element', { ref_id: 'missing' }, 'ref_not_found');
  assert.deepEqual(error.suggestions, ['ref_1', 'ref_2']);
});

await check('click: fallback reasons (pointer-events, form, toggle, mutating name, covered)', async () => {
  const reasons = {};
  for (const ref of ['no-pointer', 'in-form', 'toggle', 'mutating', 'covered']) {
    const result = await succeed('click_element', { ref_id: ref });
    assert.equal(result.fallback.eligible, false, `${ref}: ${JSON.stringify(result.fallback)}`);
    reasons[ref] = result.fallback.reason;
  }
  assert.match(reasons['no-pointer'], /pointer-events/);
  assert.match(reasons['in-form'], /form/);
  assert.match(reasons.toggle, /toggle/);
  assert.match(reasons.mutating, /mutating.*delete/);
  assert.match(reasons.covered, /covered/);
});

await check('click: links and submit buttons say whether they navigate', async () => {
  const link = await succeed('click_element', { ref_id: 'link' });
  assert.equal(link.navigates, true);
  assert.equal(link.href, `${origin}/other`);
  const fragment = await succeed('click_element', { ref_id: 'fragment' });
  assert.equal(fragment.navigates, false);
  assert.match(fragment.href, /#section$/);
  const submit = await succeed('click_element', { ref_id: 'submit' });
  assert.equal(submit.navigates, true);
  assert.equal(await inPage(() => window.submitted), true);
});

await check('observe_click: deferred aria-current is evidence, class change a hint, then stable', async () => {
  const click = await succeed('click_element', { ref_id: 'deferred' });
  assert.deepEqual(click.evidence, []);
  await new Promise((resolve) => setTimeout(resolve, 120));
  const first = await succeed('observe_click', { token: click.token });
  assert.deepEqual(first.evidence, ['semantic_state:aria-current']);
  assert.ok(first.hints.some((hint) => /class/.test(hint)), JSON.stringify(first.hints));
  assert.equal(first.connected, true);
  assert.equal(first.stable, false, 'the target mutated since the click');
  assert.equal(first.quietSinceClick, false, 'the page reacted to the click');
  const second = await succeed('observe_click', { token: click.token });
  assert.equal(second.stable, true);
  assert.deepEqual(second.rect, first.rect);
});

await check('observe_click: a click nothing reacted to stays quiet; a later change anywhere ends that', async () => {
  const click = await succeed('click_element', { ref_id: 'plain' });
  const quiet = await succeed('observe_click', { token: click.token });
  assert.equal(quiet.quietSinceClick, true, JSON.stringify(quiet));
  await inPage(() => document.getElementById('log').classList.toggle('late'));
  const late = await succeed('observe_click', { token: click.token });
  assert.equal(late.quietSinceClick, false, JSON.stringify(late));
  assert.deepEqual(late.evidence, [], 'an attribute elsewhere is not evidence');
});

await check('click: a whole mouse click at the centre, pressed on the text inside the target', async () => {
  const events = await inPage(() => {
    window.recordedClickEvents = [];
    document.activeElement?.blur();
    const target = document.querySelector('[data-test-ref="plain"]');
    for (const type of ['pointerdown', 'mousedown', 'focus', 'pointerup', 'mouseup', 'click']) {
      target.addEventListener(type, (event) => window.recordedClickEvents.push(`${type}:${event.detail}:${event.buttons ?? '-'}`), { once: true });
    }
    return null;
  }).then(() => succeed('click_element', { ref_id: 'plain' })).then(() => inPage(() => window.recordedClickEvents));
  assert.deepEqual(events, ['pointerdown:0:1', 'mousedown:1:1', 'focus:0:-', 'pointerup:0:0', 'mouseup:1:0', 'click:1:0']);
});

await check('observe_click: unknown token -> invalid_arguments', async () => {
  await fail('observe_click', { token: 'click_000' }, 'invalid_arguments');
});

// ---- type_text ---------------------------------------------------------------------------------

await open(TYPE_PAGE);

await check('type: plain input, clear, then key by key (one input per key), change', async () => {
  const result = await succeed('type_text', { ref_id: 'plain', text: 'new', clear: true });
  assert.equal(result.kind, 'input');
  assert.equal(result.value, 'new');
  assert.deepEqual(result.evidence, ['value_set']);
  assert.deepEqual(await inPage(() => window.events), [
    'input:deleteContentBackward',
    'input:insertText',
    'input:insertText',
    'input:insertText',
    'change',
  ]);
  assert.equal(await inPage(() => document.activeElement.id), 'plain');
});

await check('type: each key is keydown, keypress, beforeinput, input, keyup', async () => {
  const order = await inPage(() => {
    const field = document.getElementById('plain');
    const seen = [];
    for (const type of ['keydown', 'keypress', 'beforeinput', 'input', 'keyup']) {
      field.addEventListener(type, (event) => seen.push(`${type}:${event.key ?? event.data}`));
    }
    window.keyOrder = seen;
    return null;
  }).then(() => succeed('type_text', { ref_id: 'plain', text: 'ab', clear: false })).then(() => inPage(() => {
    document.getElementById('plain').value = 'new';
    return window.keyOrder;
  }));
  assert.deepEqual(order, [
    'keydown:a', 'keypress:a', 'beforeinput:a', 'input:a', 'keyup:a',
    'keydown:b', 'keypress:b', 'beforeinput:b', 'input:b', 'keyup:b',
  ]);
});

await check('type: clear false appends; "" with clear empties', async () => {
  assert.equal((await succeed('type_text', { ref_id: 'plain', text: ' more', clear: false })).value, 'new more');
  const cleared = await succeed('type_text', { ref_id: 'plain', text: '', clear: true });
  assert.equal(cleared.value, '');
  assert.deepEqual(cleared.evidence, ['value_set']);
});

await check('type: React-like controlled input keeps the value (native setter)', async () => {
  const result = await succeed('type_text', { ref_id: 'react', text: 'hello', clear: true });
  assert.deepEqual(result.evidence, ['value_set']);
  // One change per key, as React's onChange fires for a person's typing.
  assert.equal(await inPage(() => window.reactChanges), 5);
  assert.equal(await inPage(() => document.getElementById('react').value), 'hello');
});

await check('type: a page that reverts the value -> hint, no value_set', async () => {
  const result = await succeed('type_text', { ref_id: 'locked', text: 'nope', clear: true });
  assert.deepEqual(result.evidence, []);
  assert.ok(result.hints.some((hint) => hint.startsWith('the page changed the value back to ""')), JSON.stringify(result.hints));
});

await check('type: the browser sanitizes a number input -> hint, not a page revert', async () => {
  const result = await succeed('type_text', { ref_id: 'number', text: 'abc', clear: true });
  assert.deepEqual(result.evidence, []);
  assert.ok(result.hints.some((hint) => /number input does not accept "abc"/.test(hint)), JSON.stringify(result.hints));
});

await check('type: password value is masked', async () => {
  const result = await succeed('type_text', { ref_id: 'password', text: 'hunter2', clear: true });
  assert.equal(result.value, '••••');
  assert.equal(await inPage(() => document.getElementById('password').value), 'hunter2');
});

await check('type: textarea', async () => {
  const result = await succeed('type_text', { ref_id: 'notes', text: 'line', clear: true });
  assert.equal(result.kind, 'textarea');
  assert.equal(result.value, 'line');
});

await check('type: contenteditable appends through beforeinput + input', async () => {
  const result = await succeed('type_text', { ref_id: 'editor', text: ' more', clear: false });
  assert.equal(result.kind, 'contenteditable');
  assert.equal(result.value, 'start more');
  assert.deepEqual(result.evidence, ['value_set']);
});

await check('type: an editor that cancels beforeinput and inserts itself', async () => {
  const result = await succeed('type_text', { ref_id: 'managed-editor', text: 'typed', clear: true });
  assert.equal(result.value, 'typed');
  assert.deepEqual(result.evidence, ['value_set']);
  assert.ok(result.hints.some((hint) => /cancelled beforeinput and inserted/.test(hint)), JSON.stringify(result.hints));
});

await check('type: checkbox / select / plain text -> not_typable with the right tool', async () => {
  const checkbox = await fail('type_text', { ref_id: 'checkbox', text: 'x', clear: true }, 'not_typable');
  assert.match(checkbox.hint, /click_ax/);
  const select = await fail('type_text', { ref_id: 'select', text: 'x', clear: true }, 'not_typable');
  assert.match(select.hint, /select_option/);
  await fail('type_text', { ref_id: 'text', text: 'x', clear: true }, 'not_typable');
});

await check('type: a label types into its control, a wrapper into its only field', async () => {
  const label = await succeed('type_text', { ref_id: 'label', text: 'me@example.com', clear: true });
  assert.equal(await inPage(() => document.getElementById('labelled').value), 'me@example.com');
  assert.ok(label.hints.some((hint) => /labelled by this label/.test(hint)), JSON.stringify(label.hints));
  const wrapper = await succeed('type_text', { ref_id: 'wrapper', text: 'Lyon', clear: true });
  assert.equal(await inPage(() => document.getElementById('wrapped').value), 'Lyon');
  assert.ok(wrapper.hints.some((hint) => /inside this div/.test(hint)), JSON.stringify(wrapper.hints));
});

await check('type: read-only and disabled fields -> not_actionable', async () => {
  await fail('type_text', { ref_id: 'readonly', text: 'x', clear: true }, 'not_actionable');
  await fail('type_text', { ref_id: 'disabled', text: 'x', clear: true }, 'not_actionable');
});

// ---- fill_field --------------------------------------------------------------------------------

await open(FILL_PAGE);

await check('fill: field in a form -> requestSubmit with the default button', async () => {
  const result = await succeed('fill_field', { ref_id: 'in-form', text: 'cats', clear: true, submit: true });
  assert.deepEqual(result.submit, { method: 'requestSubmit' });
  assert.equal(result.value, 'cats');
  assert.equal(await inPage(() => window.submitted), 1);
  assert.equal(await inPage(() => window.submitter), 'go');
});

await check('fill: no form -> Enter keys with keyCode', async () => {
  const result = await succeed('fill_field', { ref_id: 'no-form', text: 'dogs', clear: true, submit: true });
  assert.deepEqual(result.submit, { method: 'enter' });
  // The typed keys, then the Enter that submits.
  assert.deepEqual(await inPage(() => window.keys), ['d:68', 'o:79', 'g:71', 's:83', 'Enter:13']);
});

await check('fill: submit false -> method none', async () => {
  const result = await succeed('fill_field', { ref_id: 'no-form', text: 'x', clear: true, submit: false });
  assert.deepEqual(result.submit, { method: 'none' });
});

await check('fill: combobox with a highlighted first match -> Enter only (no ArrowDown)', async () => {
  const result = await succeed('fill_field', { ref_id: 'combo', text: 'ap', clear: true, submit: true });
  assert.deepEqual(result.submit, { method: 'combobox', committed: 'Apple' });
  assert.equal(result.value, 'Apple');
});

await check('fill: combobox without highlight -> ArrowDown then Enter', async () => {
  const result = await succeed('fill_field', { ref_id: 'combo-plain', text: 'b', clear: true, submit: true });
  assert.deepEqual(result.submit, { method: 'combobox', committed: 'Banana' });
});

// ---- select_option -----------------------------------------------------------------------------

await open(SELECT_PAGE);

await check('select: native by exact label, change event', async () => {
  const result = await succeed('select_option', { ref_id: 'size', label: 'Medium' });
  assert.equal(result.method, 'native');
  assert.deepEqual(result.selected, { label: 'Medium', value: 'm' });
  assert.deepEqual(result.evidence, ['value_changed']);
  assert.equal(await inPage(() => window.sizeChanges), 1);
});

await check('select: native case-insensitive, unique substring, value, via label', async () => {
  assert.equal((await succeed('select_option', { ref_id: 'size', label: 'large' })).selected.value, 'l');
  assert.equal((await succeed('select_option', { ref_id: 'size', label: 'MALL' })).selected.value, 's');
  assert.equal((await succeed('select_option', { ref_id: 'size', value: 'l' })).selected.label, 'Large');
  const viaLabel = await succeed('select_option', { ref_id: 'size-label', label: 'Medium' });
  assert.equal(viaLabel.selected.value, 'm');
  assert.ok(viaLabel.hints.some((hint) => /labelled by this label/.test(hint)), JSON.stringify(viaLabel.hints));
  const again = await succeed('select_option', { ref_id: 'size', label: 'Medium' });
  assert.deepEqual(again.evidence, []);
  assert.ok(again.hints.includes('the option was already selected'));
});

await check('select: native not found / ambiguous -> option_not_found with suggestions', async () => {
  const missing = await fail('select_option', { ref_id: 'size', label: 'Huge' }, 'option_not_found');
  assert.deepEqual(missing.suggestions, ['Small', 'Medium', 'Large', 'Extra large']);
  const ambiguous = await fail('select_option', { ref_id: 'size', label: 'a' }, 'option_not_found');
  assert.deepEqual(ambiguous.suggestions, ['Small', 'Large', 'Extra large']);
});

await check('select: native disabled option -> not_actionable', async () => {
  await fail('select_option', { ref_id: 'size', label: 'Extra large' }, 'not_actionable');
});

await check('select: ARIA combobox opened by click, option chosen by click', async () => {
  const result = await succeed('select_option', { ref_id: 'flavour', label: 'chocolate' });
  assert.equal(result.method, 'listbox');
  assert.deepEqual(result.selected, { label: 'Chocolate', value: 'cho' });
  assert.ok(result.evidence.includes('value_changed'), JSON.stringify(result.evidence));
  assert.equal(await inPage(() => document.getElementById('flavour').textContent), 'Chocolate');
});

await check('select: ARIA no match -> option_not_found, the list is closed again', async () => {
  const error = await fail('select_option', { ref_id: 'flavour', label: 'Mint' }, 'option_not_found');
  assert.deepEqual(error.suggestions, ['Vanilla', 'Chocolate', 'Strawberry']);
  assert.equal(await inPage(() => document.getElementById('flavours').hidden), true);
  assert.equal(await inPage(() => document.getElementById('flavour').getAttribute('aria-expanded')), 'false');
});

await check('select: opens on ArrowDown only, options ignore clicks -> keyboard commit', async () => {
  const result = await succeed('select_option', { ref_id: 'keyboard-only', label: 'Blue' });
  assert.deepEqual(result.selected, { label: 'Blue', value: 'c-blue' });
  assert.ok(result.hints.some((hint) => /chosen with the keyboard/.test(hint)), JSON.stringify(result.hints));
  assert.equal(await inPage(() => document.getElementById('keyboard-only').textContent), 'Blue');
});

await check('select: options slotted into a shadow listbox, chosen on mouseup; not found lists them', async () => {
  const error = await fail('select_option', { ref_id: 'swatches', label: 'Blue' }, 'option_not_found');
  assert.deepEqual(error.suggestions, ['Red', 'Green']);
  assert.match(error.message, /the list showed 2 options/);
  const result = await succeed('select_option', { ref_id: 'swatches', label: 'Green' });
  assert.deepEqual(result.selected, { label: 'Green', value: 'g' });
  assert.ok(result.evidence.includes('semantic_state:aria-selected'), JSON.stringify(result.evidence));
  assert.equal(await inPage(() => window.swatchMouseups), 1);
});

await check('select: a windowed zero-size listbox (rc-select) -> ArrowDown to the option, then Enter', async () => {
  const result = await succeed('select_option', { ref_id: 'city', label: 'Paris' });
  assert.equal(result.method, 'listbox_keyboard');
  assert.deepEqual(result.selected, { label: 'Paris' });
  assert.ok(result.hints.some((hint) => /after 4 steps/.test(hint)), JSON.stringify(result.hints));
  assert.equal(await inPage(() => document.getElementById('city-shown').textContent), 'Paris');
  assert.equal(await inPage(() => window.cityChanges), 1);
  // An option the list does not have: the highlight sticks at the end, nothing is chosen.
  const error = await fail('select_option', { ref_id: 'city', label: 'Oslo' }, 'option_not_found');
  assert.match(error.message, /no option is labelled/);
  assert.equal(await inPage(() => window.cityChanges), 1);
  assert.equal(await inPage(() => document.getElementById('city').getAttribute('aria-expanded')), 'false');
});

// Label and value both, like every argument check, is the background's (tests/browser/unit/validate.test.mjs).
await check('select: not a list -> invalid_arguments', async () => {
  await fail('select_option', { ref_id: 'paragraph', label: 'x' }, 'invalid_arguments');
});

// ---- hover_element -----------------------------------------------------------------------------

await open(HOVER_PAGE);

await check('hover: event sequence at the centre, tooltip shown', async () => {
  const result = await succeed('hover_element', { ref_id: 'tip' });
  assert.ok(result.evidence.includes('popup_shown:tooltip'), JSON.stringify(result.evidence));
  const events = await inPage(() => window.hoverEvents);
  assert.deepEqual(events.map((event) => event.type), ['pointerover', 'pointerenter', 'mouseover', 'mouseenter', 'pointermove', 'mousemove']);
  assert.deepEqual(events.map((event) => event.bubbles), [true, false, true, false, true, true]);
  // WebDriver's in-view centre point: floor((left + right) / 2), and the same for y.
  const { x, y, width, height } = result.rect;
  assert.equal(events[0].x, Math.floor(x + width / 2));
  assert.equal(events[0].y, Math.floor(y + height / 2));
});

await check('hover: delayed aria-expanded -> semantic_state', async () => {
  const result = await succeed('hover_element', { ref_id: 'menu' });
  assert.ok(result.evidence.includes('semantic_state:aria-expanded'), JSON.stringify(result.evidence));
});

await check('hover: nothing reacts -> empty evidence', async () => {
  const result = await succeed('hover_element', { ref_id: 'still' });
  assert.deepEqual(result.evidence, []);
});

await open(DRAG_PAGE);

await check('drag: an HTML5 drag carries one DataTransfer and drops only where dragover was cancelled', async () => {
  const result = await succeed('drag_element', { from_ref: 'card', to_ref: 'accepts' });
  assert.equal(result.method, 'synthetic-html5');
  const events = await inPage(() => window.dragEvents.map((event) => [event.type, event.target, event.data]));
  assert.deepEqual(events.slice(0, 4), [
    ['pointerdown', 'card', null], ['mousedown', 'card', null], ['dragstart', 'card', ''], ['pointercancel', 'card', null],
  ]);
  // On the way: enter and leave for what the pointer crosses (the body between the two boxes).
  assert.deepEqual(events.slice(-2), [['drop', 'accepts', 'card-1'], ['dragend', 'card', 'card-1']]);
  assert.ok(events.some(([type, target]) => type === 'dragenter' && target === 'accepts'), JSON.stringify(events));
  assert.ok(!events.some(([type]) => ['pointerup', 'mouseup', 'click'].includes(type)), JSON.stringify(events));
  await inPage(() => { window.dragEvents = []; });
  const refused = await succeed('drag_element', { from_ref: 'card', to_ref: 'refuses' });
  assert.equal(refused.dropEffect, 'none');
  const types = await inPage(() => window.dragEvents.map((event) => event.type));
  assert.ok(!types.includes('drop') && types.at(-1) === 'dragend', types.join());
});

await check('drag: a pointer drag presses, moves in steps with the button held, and releases', async () => {
  await inPage(() => { window.dragEvents = []; window.moves = []; });
  const result = await succeed('drag_element', { from_ref: 'thumb', by: { x: 120, y: 0 } });
  assert.equal(result.method, 'synthetic-pointer');
  const events = await inPage(() => window.dragEvents);
  assert.deepEqual(events.map((event) => event.type), ['pointerdown', 'mousedown', 'pointerup', 'mouseup', 'click']);
  const down = events[0];
  assert.deepEqual([down.buttons, down.pointerId, down.pressure, down.isPrimary], [1, 1, 0.5, true]);
  const moves = await inPage(() => window.moves);
  assert.ok(moves.length >= 12, `${moves.length} moves`);
  assert.equal(moves.at(-1) - moves[0], 118);
  await fail('drag_element', { from_ref: 'thumb', by: { x: 5000, y: 0 } }, 'not_actionable');
  await fail('drag_element', { from_ref: 'card', to_ref: 'card' }, 'invalid_arguments');
});

// ---- press_key ---------------------------------------------------------------------------------

await open(KEY_PAGE);

await check('press_key: Enter in a form field -> submit', async () => {
  const result = await succeed('press_key', { ref_id: 'field', key: 'Enter', modifiers: [] });
  assert.equal(result.defaultAction, 'submit');
  assert.equal(await inPage(() => window.submitted), 1);
});

await check('press_key: Enter cancelled by the page -> no default action', async () => {
  const result = await succeed('press_key', { ref_id: 'guarded', key: 'Enter', modifiers: [] });
  assert.equal(result.defaultAction, undefined);
  assert.ok(result.hints.some((hint) => /cancelled/.test(hint)));
  assert.equal(await inPage(() => window.submitted), 1);
});

await check('press_key: Enter on a div role=button -> click, local_mutation', async () => {
  const result = await succeed('press_key', { ref_id: 'div-button', key: 'Enter', modifiers: [] });
  assert.equal(result.defaultAction, 'click');
  assert.ok(result.evidence.includes('local_mutation'), JSON.stringify(result.evidence));
  assert.equal(await inPage(() => document.querySelector('[data-test-ref="div-button"]').dataset.clicks), '1');
});

await check('press_key: Tab and Shift+Tab move focus', async () => {
  const forward = await succeed('press_key', { ref_id: 'first', key: 'Tab', modifiers: [] });
  assert.equal(forward.defaultAction, 'focus_next');
  assert.ok(forward.evidence.includes('focus_moved'));
  assert.equal(await inPage(() => document.activeElement.id), 'second');
  const backward = await succeed('press_key', { key: 'Tab', modifiers: ['Shift'] });
  assert.equal(backward.defaultAction, 'focus_previous');
  assert.equal(await inPage(() => document.activeElement.id), 'first');
});

await check('press_key: printable key, Backspace, Control+a on a text field', async () => {
  await inPage(() => document.getElementById('field').setSelectionRange(2, 2));
  const typed = await succeed('press_key', { ref_id: 'field', key: 'c', modifiers: [] });
  assert.equal(typed.defaultAction, 'insert_text');
  assert.ok(typed.evidence.includes('value_changed'));
  assert.equal(await inPage(() => document.getElementById('field').value), 'abc');
  const deleted = await succeed('press_key', { ref_id: 'field', key: 'Backspace', modifiers: [] });
  assert.equal(deleted.defaultAction, 'delete_backward');
  assert.equal(await inPage(() => document.getElementById('field').value), 'ab');
  const selected = await succeed('press_key', { ref_id: 'field', key: 'a', modifiers: ['Control'] });
  assert.equal(selected.defaultAction, 'select_all');
  assert.deepEqual(await inPage(() => [document.getElementById('field').selectionStart, document.getElementById('field').selectionEnd]), [0, 2]);
});

await check('press_key: Space on a checkbox -> click, semantic_state:checked', async () => {
  const result = await succeed('press_key', { ref_id: 'check', key: ' ', modifiers: [] });
  assert.equal(result.defaultAction, 'click');
  assert.ok(result.evidence.includes('semantic_state:checked'), JSON.stringify(result.evidence));
});

await check('press_key: Escape -> events only, with key, code and keyCode', async () => {
  const result = await succeed('press_key', { ref_id: 'listener', key: 'Escape', modifiers: [] });
  assert.equal(result.defaultAction, undefined);
  assert.equal(result.key, 'Escape');
  assert.deepEqual(result.modifiers, []);
  assert.equal(await inPage(() => window.lastKey), 'Escape:27:Escape');
});

// ---- scroll ------------------------------------------------------------------------------------

await open(SCROLL_PAGE);

await check('scroll: the page down by 80% of the viewport, then to the top, then nothing', async () => {
  const down = await succeed('scroll', { direction: 'down' });
  assert.equal(down.target, 'page');
  assert.deepEqual(down.before, { x: 0, y: 0 });
  assert.deepEqual(down.after, { x: 0, y: 480 });
  assert.deepEqual(down.evidence, ['scrolled']);
  const top = await succeed('scroll', { to: 'top' });
  assert.deepEqual(top.after, { x: 0, y: 0 });
  const none = await succeed('scroll', { direction: 'up' });
  assert.deepEqual(none.evidence, []);
  assert.deepEqual(none.hints, ['already at the start']);
});

await check('scroll: an element by an amount, to its bottom, then at the end', async () => {
  const some = await succeed('scroll', { ref_id: 'box', direction: 'down', amount: 50 });
  assert.equal(some.target, 'element');
  assert.deepEqual(some.after, { x: 0, y: 50 });
  const bottom = await succeed('scroll', { ref_id: 'box', to: 'bottom' });
  assert.deepEqual(bottom.after, { x: 0, y: 900 });
  const end = await succeed('scroll', { ref_id: 'box', direction: 'down' });
  assert.deepEqual(end.hints, ['already at the end']);
});

await check('scroll: a non-scrollable element scrolls its nearest scrollable ancestor', async () => {
  const result = await succeed('scroll', { ref_id: 'inside', direction: 'up', amount: 100 });
  assert.equal(result.target, 'element');
  assert.deepEqual(result.after, { x: 0, y: 800 });
  assert.ok(result.hints.some((hint) => /nearest scrollable ancestor \(div\)/.test(hint)), JSON.stringify(result.hints));
});

// into_view without a ref is refused by the background (tests/browser/unit/validate.test.mjs).
await check('scroll: into_view', async () => {
  const result = await succeed('scroll', { ref_id: 'far', to: 'into_view' });
  assert.equal(result.target, 'page');
  assert.deepEqual(result.evidence, ['scrolled']);
  assert.ok(result.after.y > 2000);
});

// ---- dom_quiet ---------------------------------------------------------------------------------

await open(DRAFT_PAGE);

await check('draft_state: an untouched form holds nothing, hidden fields never count', async () => {
  await inPage(() => {
    document.getElementById('token').value = 'changed by the page';
  });
  assert.deepEqual(await succeed('draft_state', {}), { reasons: [] });
});

await check('draft_state: every kind of change is named, never its value', async () => {
  await inPage(() => {
    document.getElementById('city').value = 'Paris';
    document.getElementById('secret').value = 'hunter2';
    document.getElementById('seats').selectedIndex = 1;
    document.getElementById('window').checked = false;
    document.getElementById('notes').value = 'more';
    const files = new DataTransfer();
    files.items.add(new File(['x'], 'ticket.pdf'));
    document.getElementById('ticket').files = files.files;
  });
  const { reasons } = await succeed('draft_state', {});
  const text = reasons.join(' | ');
  for (const piece of ['"City" was edited', '"Secret" was edited', 'selection of "Seats"', 'checkbox', '"Notes"', 'file is attached to "Ticket"']) {
    assert.ok(text.includes(piece), `${piece} in ${text}`);
  }
  for (const secret of ['Paris', 'hunter2', 'ticket.pdf', 'more']) assert.ok(!text.includes(secret), `${secret} in ${text}`);
});

await check("draft_state: an agent's contenteditable text counts until the page takes it", async () => {
  await open(DRAFT_PAGE);
  await succeed('type_text', { ref_id: 'editor', text: 'Arriving late' });
  const { reasons } = await succeed('draft_state', {});
  assert.deepEqual(reasons, ['text typed by an agent into "Message" was not taken by the page']);
  await inPage(() => {
    document.querySelector('[data-test-ref="editor"]').textContent = '';
  });
  assert.deepEqual(await succeed('draft_state', {}), { reasons: [] });
});

await open(QUIET_PAGE);

await check('dom_quiet: a still page is quiet after quietMs', async () => {
  const result = await succeed('dom_quiet', { quietMs: 100, timeoutMs: 2000 });
  assert.equal(result.quiet, true);
  assert.equal(result.mutations, 0);
  assert.ok(result.waitedMs >= 100 && result.waitedMs < 1000, String(result.waitedMs));
});

await check('dom_quiet: a ticking page times out, mutations counted', async () => {
  await inPage(() => window.startTicking());
  const result = await succeed('dom_quiet', { quietMs: 100, timeoutMs: 300 });
  assert.equal(result.quiet, false);
  assert.ok(result.waitedMs >= 300, String(result.waitedMs));
  assert.ok(result.mutations >= 5, String(result.mutations));
});

// ---- wait_for's looks: text_shown / element_state --------------------------------------------

await open(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Wait</title></head><body><main>
  <p>Order <b>confirmed</b>, thank you</p>
  <p style="display: none">Hidden phrase</p>
  <p style="visibility: hidden">Invisible phrase</p>
  <input value="Typed value">
  <div id="host"></div>
  <button data-test-ref="enabled">Go</button>
  <button data-test-ref="disabled" disabled>Stop</button>
  <div role="group" aria-disabled="true"><button data-test-ref="under-aria-disabled">Inner</button></div>
  <input type="checkbox" data-test-ref="checkbox" checked aria-label="Agree">
  <div role="switch" tabindex="0" data-test-ref="switch" aria-checked="false">Dark mode</div>
  <button data-test-ref="transparent" style="opacity: 0">Ghost</button>
</main><script>document.getElementById('host').attachShadow({ mode: 'open' }).innerHTML = '<p>Shadow words</p>';</script></body></html>`);

await check('text_shown: rendered text across elements, in open shadow roots, in any case and spacing', async () => {
  for (const text of ['order confirmed', 'ORDER   Confirmed, thank', 'shadow words']) {
    const result = await succeed('text_shown', { text });
    assert.equal(result.shown, true, text);
    assert.ok(typeof result.excerpt === 'string' && result.excerpt.length > 0, JSON.stringify(result));
  }
});

await check('text_shown: text CSS hides, and form values, are not shown', async () => {
  for (const text of ['Hidden phrase', 'Invisible phrase', 'Typed value', 'not on the page']) {
    assert.deepEqual(await succeed('text_shown', { text }), { shown: false }, text);
  }
});

await check('element_state: visible, enabled and checked as a person would judge them', async () => {
  const state = async (ref) => succeed('element_state', { ref_id: ref });
  assert.deepEqual(await state('enabled'), { found: true, visible: true, enabled: true, checked: false });
  assert.equal((await state('disabled')).enabled, false);
  assert.equal((await state('under-aria-disabled')).enabled, false);
  assert.equal((await state('checkbox')).checked, true);
  assert.equal((await state('switch')).checked, false);
  assert.equal((await state('transparent')).visible, false);
  assert.deepEqual(await state('gone'), { found: false });
});

await check('the handlers object is frozen and complete', async () => {
  const keys = await inPage(() => [Object.isFrozen(globalThis.allwrightActions), Object.keys(globalThis.allwrightActions)]);
  assert.deepEqual(keys, [true, ['click_element', 'observe_click', 'type_text', 'fill_field', 'select_option',
    'fill_form_field', 'attach_files', 'hover_element', 'drag_element', 'press_key', 'scroll', 'dom_quiet', 'begin_external_input', 'finish_external_input',
    'abort_external_input', 'continue_external_drag', 'element_rect', 'frame_offset', 'viewport_size', 'paint_secret_masks', 'remove_secret_masks', 'ping',
    'child_frames', 'draft_state', 'mark_trusted_target', 'unmark_trusted_target', 'text_shown', 'element_state']]);
});

await browser.close();
server.close();
console.log(`${failures === 0 ? 'all passed' : `${failures} failed`} in ${Math.round(performance.now() - started)} ms`);
process.exit(failures === 0 ? 0 : 1);
