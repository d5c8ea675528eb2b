// Helpers of the benchmark (tests/browser/bench.mjs): the generated pages, the bare DOM walk,
// medians, a bounded wait, script injection into a page, a tiny HTTP server, and a hand-written
// MCP (JSON-RPC 2.0 over stdio) client for `allwright mcp`. Nothing here is a test;
// tests/browser/wasm-smoke.mjs borrows the generated page, the medians and the injection.

import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { chromium } from 'playwright-core';

// ---- Pages -------------------------------------------------------------------------------------

/**
 * A page of at least `target` elements with a realistic mix: a nav, sections with headings,
 * paragraphs with inline markup and links, labelled controls (text, email, number, checkbox,
 * select, buttons) in a form or a group, a list, a table with header cells, nested layout divs, an image, an
 * icon button, aria-hidden content and a disclosure. Same shape as the page of
 * tests/browser/wasm-smoke.mjs (which keeps its own copy: it is a script without exports),
 * except for the forms (see FORM_EVERY).
 * @param {number} target
 */
export function generatedPage(target) {
  // One section in FORM_EVERY wraps its controls in a <form>, the others in a labelled group:
  // Chromium's page load grows faster than linearly with the number of <form> elements (a
  // page of 100k elements with a form in every section took 18-30 s to load here, 3-4 s
  // like this), and real pages hold a handful of forms, not thousands.
  const FORM_EVERY = 10;
  const sections = [];
  // The page's frame (html, head, nav, ...) and each section's elements are counted from the
  // markup itself, so the page has at least `target` elements whatever the section holds.
  const elementsIn = (markup) => (markup.match(/<[a-z]/g) ?? []).length;
  let count = 20;
  let index = 0;
  while (count < target) {
    sections.push(`<section id="s${index}" aria-labelledby="h${index}"><h2 id="h${index}">Section ${index}: quarterly results</h2>
${[0, 1, 2].map((p) => `<p>Revenue grew in every region this quarter, <strong>led by the north</strong>, while costs stayed <em>flat</em>. <a href="/report/${index}/${p}">Read the full report</a></p>`).join('')}
${index % FORM_EVERY === 0 ? '<form aria-label="Filter">' : '<div role="group" aria-label="Filter">'}${['name', 'email', 'age'].map((f, i) => `<label for="${f}-${index}">${f}</label><input id="${f}-${index}" type="${['text', 'email', 'number'][i]}" placeholder="${f}">`).join('')}
<label><input type="checkbox" checked>Subscribe</label><select aria-label="Region"><option>North</option><option>South</option><option>East</option><option>West</option></select>
<button type="submit">Apply</button><button type="reset">Reset</button>${index % FORM_EVERY === 0 ? '</form>' : '</div>'}
<ul>${[0, 1, 2, 3, 4].map((i) => `<li>Highlight ${i} of section ${index}</li>`).join('')}</ul>
<table><caption>Sales by region</caption><thead><tr><th scope="col">Region</th><th scope="col">Q1</th><th scope="col">Q2</th></tr></thead>
<tbody>${['North', 'South', 'East', 'West'].map((r) => `<tr><th scope="row">${r}</th><td>12</td><td>15</td></tr>`).join('')}</tbody></table>
<div class="layout-0"><div class="layout-1"><div class="layout-2"><div class="layout-3"><div class="layout-4">
<img src="data:," alt="Quarterly chart"><button aria-label="Close card"><svg aria-hidden="true"></svg></button><span>Updated today</span>
</div></div></div></div></div>
<div aria-hidden="true"><p>Decorative duplicate</p></div><details><summary>More details</summary><p>Shown when the disclosure is open.</p></details>
</section>`);
    count += elementsIn(sections[sections.length - 1]);
    index += 1;
  }
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Synthetic benchmark page (${target} elements)</title></head><body>
<header><nav aria-label="Main"><ul>${['Home', 'Products', 'Pricing', 'Docs', 'Blog', 'Contact'].map((i) => `<li><a href="/${i.toLowerCase()}">${i}</a></li>`).join('')}</ul></nav></header>
<main>${sections.join('\n')}</main></body></html>`;
}

/**
 * The floor, run inside the page (hand it to page.evaluate): every element once, reading tag,
 * id, role, aria-label, class and `getComputedStyle(el).display` (the bare walk of docs/performance.md).
 * Returns the element count and the time the walk took in the page (ms). The values
 * read are folded into a checksum so no engine can skip the reads.
 */
export function bareWalk() {
  const start = performance.now();
  let count = 0;
  let checksum = 0;
  const walker = document.createTreeWalker(document.documentElement, NodeFilter.SHOW_ELEMENT);
  for (let node = walker.currentNode; node; node = walker.nextNode()) {
    const element = /** @type {Element} */ (node);
    const facts = [
      element.tagName,
      element.id,
      element.getAttribute('role') ?? '',
      element.getAttribute('aria-label') ?? '',
      element.getAttribute('class') ?? '',
      getComputedStyle(element).display,
    ];
    for (const fact of facts) checksum = (checksum + fact.length) | 0;
    count += 1;
  }
  return { count, checksum, ms: performance.now() - start };
}

// ---- Playwright's browser ----------------------------------------------------------------------

/**
 * Headless Chromium under Playwright, as the bench measures it: the same flags in every section
 * that reads with Playwright, temporary files in `scratch`. The bench's own signal handlers close
 * it, before its scratch folder is removed.
 * @param {string} executablePath
 * @param {string} scratch
 */
export function launchPlaywrightChromium(executablePath, scratch) {
  return withTimeout(
    chromium.launch({
      executablePath,
      headless: true,
      timeout: 60_000,
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
      args: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
        '--disable-background-networking', '--disable-component-update', '--disable-sync'],
      env: { ...process.env, TMPDIR: scratch, XDG_CONFIG_HOME: scratch },
    }),
    90_000,
    'Chromium to start under Playwright',
  );
}

// ---- Numbers -----------------------------------------------------------------------------------

/** The median (the lower middle one for an even count); NaN for no values. */
export function median(values) {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)];
}

/**
 * Rejects after `ms` unless `promise` settles first.
 * @template T
 * @param {Promise<T>} promise
 * @param {number} ms
 * @param {string} what
 * @returns {Promise<T>}
 */
export function withTimeout(promise, ms, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${what}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Runs a script in the page's world and removes its <script> tag: content scripts are not in the
 * DOM, and left there the core's source (hundreds of KB of text) would be gathered as page text
 * on every call and inflate the in-page times.
 * @param {import('playwright-core').Page} page
 * @param {string} content
 */
export async function runScript(page, content) {
  const tag = await page.addScriptTag({ content });
  await tag.evaluate((script) => script.remove());
  await tag.dispose();
}

// ---- HTTP server -------------------------------------------------------------------------------

/**
 * Serves `routes` (pathname -> {body, headers}) on 127.0.0.1 and a free port.
 * @param {Map<string, {body: string, headers?: Record<string, string>}>} routes
 * @returns {Promise<{origin: string, close: () => Promise<void>}>}
 */
export async function startServer(routes) {
  const sockets = new Set();
  const server = createServer((request, response) => {
    const route = routes.get(new URL(request.url ?? '/', 'http://x').pathname);
    if (!route) {
      response.writeHead(404, { 'content-type': 'text/plain' });
      response.end('not found');
      return;
    }
    response.writeHead(200, {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      ...route.headers,
    });
    response.end(route.body);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await withTimeout(new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  }), 10_000, 'the HTTP server to listen');
  const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
  return {
    origin: `http://127.0.0.1:${port}`,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await withTimeout(new Promise((resolve) => server.close(() => resolve())), 5_000, 'the HTTP server to close')
        .catch(() => {});
    },
  };
}

// ---- MCP client --------------------------------------------------------------------------------

/**
 * A minimal MCP client over a child's stdio: newline-delimited JSON-RPC 2.0 messages. Requests
 * the server sends us (none expected) are answered "method not found".
 */
export class McpClient {
  /**
   * @param {string} command
   * @param {string[]} args
   * @param {{cwd?: string, env?: NodeJS.ProcessEnv, onStderr?: (text: string) => void}} [options]
   */
  constructor(command, args, options = {}) {
    this.child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.nextId = 1;
    /** @type {Map<number, {resolve: (message: any) => void, reject: (error: Error) => void}>} */
    this.pending = new Map();
    this.exited = new Promise((resolve) => {
      this.child.once('exit', (code, signal) => {
        this.exitStatus = { code, signal };
        const error = new Error(`allwright mcp exited (code ${code}, signal ${signal})${this.stderrTail()}`);
        for (const { reject } of this.pending.values()) reject(error);
        this.pending.clear();
        resolve(this.exitStatus);
      });
    });
    this.child.once('error', (error) => {
      for (const { reject } of this.pending.values()) reject(error);
      this.pending.clear();
    });
    this.stderr = '';
    this.child.stderr.setEncoding('utf8');
    this.child.stderr.on('data', (text) => {
      this.stderr = (this.stderr + text).slice(-20_000);
      options.onStderr?.(text);
    });
    // Lines can be megabytes long: keep the chunks and join them only at a newline.
    /** @type {Buffer[]} */
    let chunks = [];
    this.child.stdout.on('data', (chunk) => {
      let from = 0;
      for (let newline = chunk.indexOf(10); newline >= 0; newline = chunk.indexOf(10, from)) {
        chunks.push(chunk.subarray(from, newline));
        const line = Buffer.concat(chunks).toString('utf8');
        chunks = [];
        from = newline + 1;
        if (line.trim() !== '') this.receive(line);
      }
      if (from < chunk.length) chunks.push(chunk.subarray(from));
    });
    this.child.stdin.on('error', () => {});
  }

  stderrTail() {
    const tail = this.stderr.trim().split('\n').slice(-15).join('\n');
    return tail ? `\n--- allwright stderr (tail) ---\n${tail}` : '';
  }

  /** @param {string} line */
  receive(line) {
    let message;
    try {
      message = JSON.parse(line);
    } catch {
      process.stderr.write(`bench: ignoring a non-JSON line from allwright mcp: ${line.slice(0, 200)}\n`);
      return;
    }
    if (message.method !== undefined) {
      if (message.id !== undefined) {
        this.send({ jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'method not found' } });
      }
      return;
    }
    const waiter = this.pending.get(message.id);
    if (!waiter) return;
    this.pending.delete(message.id);
    waiter.resolve({ message, bytes: Buffer.byteLength(line) });
  }

  send(message) {
    this.child.stdin.write(`${JSON.stringify(message)}\n`);
  }

  /**
   * Sends a request and resolves with its response message and the response line's size.
   * @returns {Promise<{message: any, bytes: number}>}
   */
  request(method, params, timeoutMs) {
    const id = this.nextId++;
    const answer = new Promise((resolve, reject) => {
      if (this.exitStatus) {
        reject(new Error(`allwright mcp has exited${this.stderrTail()}`));
        return;
      }
      this.pending.set(id, { resolve, reject });
      this.send({ jsonrpc: '2.0', id, method, params });
    });
    return withTimeout(answer, timeoutMs, `MCP ${method}`).finally(() => this.pending.delete(id));
  }

  notify(method, params) {
    this.send({ jsonrpc: '2.0', method, ...(params === undefined ? {} : { params }) });
  }

  /** initialize + notifications/initialized; returns the server's initialize result. */
  async initialize(timeoutMs) {
    const { message } = await this.request('initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'allwright-bench', version: '0.1.0' },
    }, timeoutMs);
    if (message.error) throw new Error(`initialize failed: ${JSON.stringify(message.error)}`);
    this.notify('notifications/initialized');
    return message.result;
  }

  /**
   * Calls a tool and times the round trip (from writing the request to parsing the response).
   * Throws on JSON-RPC errors and on `isError` results. The benches read whole results, so
   * `verbose: true` is added where the tool takes it unless `verbose: false` is asked for (an
   * agent's short reply, src/mcp_reply.rs). `text` is what the model would read, `chars` its
   * length.
   * @param {string} name
   * @param {Record<string, unknown>} args
   * @param {number} timeoutMs
   * @param {{verbose?: boolean}} [options]
   * @returns {Promise<{result: any, text: string, chars: number, ms: number, bytes: number}>}
   */
  async callTool(name, args, timeoutMs, { verbose = true } = {}) {
    const sent = toolTakesVerbose(name) && !('verbose' in (args ?? {})) ? { ...args, verbose } : args;
    const start = performance.now();
    const { message, bytes } = await this.request('tools/call', { name, arguments: sent }, timeoutMs);
    const ms = performance.now() - start;
    if (message.error) throw new Error(`${name}: JSON-RPC error ${JSON.stringify(message.error)}`);
    const result = message.result;
    if (result?.isError) {
      const detail = result.content?.find((block) => block.type === 'text')?.text;
      throw new Error(`${name} failed: ${detail}`);
    }
    const text = replyText(result);
    return { result: replyValue(result), text, chars: text.length, ms, bytes };
  }

  /**
   * Ends the session: closes stdin (the server then closes its browser), then SIGTERM, then
   * SIGKILL, each after a bounded wait.
   */
  async close() {
    if (this.exitStatus) return this.exitStatus;
    this.child.stdin.end();
    const steps = [['stdin closed', 20_000], ['SIGTERM', 15_000], ['SIGKILL', 5_000]];
    for (const [step, ms] of steps) {
      if (step !== 'stdin closed') this.child.kill(step);
      const status = await withTimeout(this.exited, ms, `allwright mcp to exit after ${step}`).catch(() => null);
      if (status) return status;
    }
    return null;
  }
}

// ---- Compactness -------------------------------------------------------------------------------

/**
 * Where the characters of a text tree go: per line kind (the role word that starts each line),
 * its lines and characters (newline included), and per part of a line (indentation, role, name,
 * reference, each attribute key). Lines are parsed with the text tree's grammar
 * (docs/protocol.md): `INDENT ROLE ["NAME"] [[ref_N]] (KEY="VALUE")*`.
 * @param {string} tree
 */
export function charactersByLineKind(tree) {
  /** @type {Map<string, {lines: number, chars: number}>} */
  const kinds = new Map();
  /** @type {Map<string, number>} */
  const parts = new Map();
  const add = (map, key, value) => map.set(key, (map.get(key) ?? 0) + value);
  for (const line of tree.split('\n')) {
    if (line === '') continue;
    const indent = line.length - line.trimStart().length;
    const rest = line.slice(indent);
    const role = rest.split(' ', 1)[0];
    const kind = kinds.get(role) ?? { lines: 0, chars: 0 };
    kind.lines += 1;
    kind.chars += line.length + 1;
    kinds.set(role, kind);
    add(parts, 'indentation', indent);
    add(parts, 'newline', 1);
    add(parts, 'role', role.length);
    const name = /^\S+ ("(?:[^"\\]|\\.)*")/.exec(rest);
    if (name) add(parts, 'name', name[1].length + 1);
    const reference = / \[ref_\d+\]/.exec(rest);
    if (reference) add(parts, 'reference', reference[0].length);
    for (const attribute of rest.matchAll(/ (\w+)="((?:[^"\\]|\\.)*)"/g)) {
      add(parts, `${attribute[1]}=`, attribute[0].length);
    }
  }
  return { kinds, parts };
}

/**
 * The table of charactersByLineKind, biggest first, with each row's share of `total`.
 * @param {ReturnType<typeof charactersByLineKind>} breakdown
 * @param {number} total
 */
export function formatCharactersByLineKind({ kinds, parts }, total) {
  const share = (chars) => `${((100 * chars) / total).toFixed(1).padStart(5)}%`;
  const rows = ['  line kind            lines      chars  share'];
  for (const [role, { lines, chars }] of [...kinds].sort((a, b) => b[1].chars - a[1].chars)) {
    rows.push(`  ${role.padEnd(18)}${String(lines).padStart(8)}${String(chars).padStart(11)} ${share(chars)}`);
  }
  rows.push('  part of a line                 chars  share');
  for (const [part, chars] of [...parts].sort((a, b) => b[1] - a[1])) {
    rows.push(`  ${part.padEnd(26)}${String(chars).padStart(11)} ${share(chars)}`);
  }
  return rows.join('\n');
}

// ---- Replies -------------------------------------------------------------------------------------

/**
 * The text a model reads of an MCP tool result: its text blocks (allwright sends one, and no
 * structuredContent: src/mcp_reply.rs; a screenshot's image block is not text).
 * @param {{content?: Array<{type: string, text?: string}>}} result
 */
export function replyText(result) {
  return (result?.content ?? [])
    .filter((block) => block.type === 'text')
    .map((block) => block.text ?? '')
    .join('\n');
}

/**
 * The object an allwright reply carries (docs/protocol/tools.md, "Replies"): the text parsed as JSON,
 * or, when it holds a newline (compact JSON never does), a tree read's header line with the tree
 * text after it as `tree`. Null when the text is not JSON.
 * @param {{content?: Array<{type: string, text?: string}>, structuredContent?: unknown}} result
 */
export function replyValue(result) {
  const text = (result?.content ?? []).find((block) => block.type === 'text')?.text ?? '';
  const newline = text.indexOf('\n');
  try {
    if (newline === -1) return JSON.parse(text);
    return { ...JSON.parse(text.slice(0, newline)), tree: text.slice(newline + 1) };
  } catch {
    return null;
  }
}

/** @type {Set<string>|null} */
let toolsWithVerbose = null;

/**
 * Whether the tool takes `verbose`, as the generated tool contract says
 * (extension/shared/tool-contract.json, written from src/tools/table.rs).
 * @param {string} name
 */
export function toolTakesVerbose(name) {
  if (toolsWithVerbose === null) {
    const contract = JSON.parse(
      readFileSync(new URL('../../extension/shared/tool-contract.json', import.meta.url), 'utf8'),
    );
    toolsWithVerbose = new Set(
      Object.entries(contract.tools)
        .filter(([, tool]) => tool.arguments?.verbose !== undefined)
        .map(([tool]) => tool),
    );
  }
  return toolsWithVerbose.has(name);
}
