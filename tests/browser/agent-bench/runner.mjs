// The agent benchmark (`npm run bench -- --agent`; docs/agent-benchmark.md): the scripted policy
// (policy.mjs) runs every task (tasks.mjs) through MCP against each server (servers.mjs) and
// reports per server the tasks finished, the characters its replies held per task, the median
// seconds per task and each failure's class. Results go to target/bench/agent.json and a table
// on stdout.

import { createServer } from 'node:http';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ADAPTERS } from './adapters.mjs';
import { runTask, TaskFailure, taskPassed } from './policy.mjs';
import { SERVERS, startServer } from './servers.mjs';
import { resultCharacters, textBlocks } from './snapshot-formats.mjs';
import { TASKS } from './tasks.mjs';
import { seededRandom } from '../seeded-random.mjs';

/**
 * Why a task failed: the target had no ref in any read (no_ref); the server answered an action
 * with an error (refused); every step ran but the page's state says the task was not done
 * (wrong_effect); a call threw (error) or outlived CALL_TIMEOUT_MS (timeout).
 */
export const FAILURE_CLASSES = ['no_ref', 'refused', 'wrong_effect', 'error', 'timeout'];
/** One tool call may take this long before the task fails as `timeout`. */
const CALL_TIMEOUT_MS = 30_000;
const DEFAULT_SERVERS = ['allwright-chromium', 'allwright-firefox', 'playwright', 'chrome-devtools'];

const CONTENT_TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
};

/**
 * Serves fixtures/ (the task pages under /pages/, the bundled apps under /built/ and /apps/) on
 * every loopback address, so that 127.0.0.1 and localhost are two origins of one server (the
 * cross-origin frame task).
 */
async function startFixtureServer(root) {
  const fixtures = path.join(root, 'fixtures');
  const sockets = new Set();
  const server = createServer((request, response) => {
    const pathname = decodeURIComponent(new URL(request.url ?? '/', 'http://x').pathname);
    if (pathname === '/favicon.ico') {
      // As a site with an icon: a 404 here would be a console error that some servers report
      // in every reply.
      response.writeHead(204);
      response.end();
      return;
    }
    const file = path.join(fixtures, path.normalize(pathname));
    let body = null;
    try {
      if (file.startsWith(fixtures + path.sep) && statSync(file).isFile()) body = readFileSync(file);
    } catch {
      body = null;
    }
    if (body === null) {
      response.writeHead(404, { 'content-type': 'text/plain' });
      response.end('not found');
      return;
    }
    response.writeHead(200, {
      'content-type': CONTENT_TYPES[path.extname(file)] ?? 'application/octet-stream',
      'cache-control': 'no-store',
    });
    response.end(body);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, resolve);
  });
  const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** The median of `values` (0 when empty). */
export function median(values) {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/**
 * One server's summary from its task records ({task, finished, failure?, characters,
 * charactersByKind, seconds}): tasks finished, characters per task (mean over every task run),
 * median seconds per task, failures by class, and characters per task by kind of call.
 */
export function summarize(records) {
  const finished = records.filter((record) => record.finished).length;
  const failuresByClass = Object.fromEntries(FAILURE_CLASSES.map((failureClass) => [failureClass, 0]));
  for (const record of records) if (!record.finished) failuresByClass[record.failure.class] += 1;
  const charactersByKind = {};
  for (const record of records) {
    for (const [kind, characters] of Object.entries(record.charactersByKind)) {
      charactersByKind[kind] = (charactersByKind[kind] ?? 0) + characters / records.length;
    }
  }
  const total = records.reduce((sum, record) => sum + record.characters, 0);
  return {
    tasks: records.length,
    finished,
    finishedShare: records.length === 0 ? 0 : finished / records.length,
    charactersPerTask: records.length === 0 ? 0 : total / records.length,
    medianSeconds: median(records.map((record) => record.seconds)),
    failuresByClass,
    charactersPerTaskByKind: Object.fromEntries(
      Object.entries(charactersByKind).map(([kind, characters]) => [kind, Math.round(characters)]),
    ),
  };
}

/** The kind of a tool call, for the characters-by-kind breakdown (issue 30, item 4). */
function callKind(tool) {
  if (/navigate/.test(tool)) return 'navigate';
  if (/snapshot|accessibility_tree|iframe_read/.test(tool)) return 'read';
  return 'action';
}

/** Runs `promise` for at most `ms`, else rejects with a `timeout` TaskFailure. */
function withCallTimeout(promise, ms, tool) {
  let timer;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new TaskFailure('timeout', `${tool} took over ${ms / 1000} s`)), ms);
    }),
  ]);
}

/** A reply as the model reads it (every text block, then the structured content's JSON). */
const resultText = (result) =>
  `${textBlocks(result)}${result?.structuredContent === undefined ? '' : JSON.stringify(result.structuredContent)}`;

/** Runs every task on one server; returns its task records. */
async function runServer({ name, root, origin, tasks, log, transcript }) {
  const session = await startServer(name, root);
  const records = [];
  try {
    const { format } = SERVERS[name];
    // Playwright MCP and chrome-devtools-mcp start their browser on the first call: open a
    // blank page first, uncounted, so that no task's time holds a browser's start.
    const uncounted = (tool, args) =>
      withCallTimeout(session.client.callTool({ name: tool, arguments: args }), 4 * CALL_TIMEOUT_MS, tool);
    await ADAPTERS[format](uncounted).navigate('about:blank');
    for (const task of tasks) {
      const record = { task: task.id, class: task.class, finished: false, characters: 0, charactersByKind: {}, calls: 0 };
      const call = async (tool, args) => {
        if (!session.tools.has(tool)) throw new TaskFailure('error', `${name} has no tool ${tool}`);
        let result;
        try {
          result = await withCallTimeout(
            session.client.callTool({ name: tool, arguments: args }, undefined, { timeout: CALL_TIMEOUT_MS + 5_000 }),
            CALL_TIMEOUT_MS,
            tool,
          );
        } catch (error) {
          if (error instanceof TaskFailure) throw error;
          throw new TaskFailure('error', `${tool}: ${error?.message ?? error}`);
        }
        const characters = resultCharacters(result);
        record.calls += 1;
        record.characters += characters;
        const kind = callKind(tool);
        record.charactersByKind[kind] = (record.charactersByKind[kind] ?? 0) + characters;
        if (transcript) (record.transcript ??= []).push({ tool, args, characters, reply: resultText(result) });
        if (result.isError) {
          const text = (result.content ?? []).map((block) => block.text ?? '').join(' ').replace(/\s+/g, ' ');
          throw new TaskFailure('refused', `${tool}: ${text.slice(0, 400)}`);
        }
        return result;
      };
      // The success check's own calls are neither counted nor timed.
      const evaluate = uncounted;
      const adapter = ADAPTERS[format](call);
      const started = performance.now();
      try {
        await runTask({ adapter, format, task, origin });
        record.seconds = (performance.now() - started) / 1000;
        record.finished = await taskPassed({ adapter, evaluate, task });
        if (!record.finished) record.failure = { class: 'wrong_effect', detail: 'the page state says not done' };
      } catch (error) {
        record.seconds ??= (performance.now() - started) / 1000;
        record.failure =
          error instanceof TaskFailure
            ? { class: error.failureClass, detail: error.detail }
            : { class: 'error', detail: String(error?.stack ?? error) };
      }
      log(`  ${name} ${task.id}: ${record.finished ? 'finished' : `${record.failure.class} (${record.failure.detail})`}, ${record.characters} chars, ${record.seconds.toFixed(2)} s`);
      records.push(record);
    }
  } finally {
    await session.close();
  }
  return records;
}

/** The table printed on stdout (and pasted into docs/agent-benchmark.md). */
export function formatTable(summaries) {
  const lines = [
    '| server | tasks finished | characters per task | median seconds per task | failures (class: count) |',
    '|---|---|---|---|---|',
  ];
  for (const { label, summary } of summaries) {
    const failures = Object.entries(summary.failuresByClass)
      .filter(([, count]) => count > 0)
      .map(([failureClass, count]) => `${failureClass}: ${count}`)
      .join(', ');
    lines.push(
      `| ${label} | ${summary.finished}/${summary.tasks} (${(summary.finishedShare * 100).toFixed(1)}%) | ${Math.round(summary.charactersPerTask).toLocaleString('en-US')} | ${summary.medianSeconds.toFixed(2)} | ${failures || 'none'} |`,
    );
  }
  return lines.join('\n');
}

/** Characters per task by kind of call (navigate, read, action), one row per server. */
export function formatCharactersByKind(summaries) {
  const kinds = ['navigate', 'read', 'action'];
  const lines = [`| server | ${kinds.join(' | ')} |`, `|---|${kinds.map(() => '---|').join('')}`];
  for (const { label, summary } of summaries) {
    const cells = kinds.map((kind) => (summary.charactersPerTaskByKind[kind] ?? 0).toLocaleString('en-US'));
    lines.push(`| ${label} | ${cells.join(' | ')} |`);
  }
  return lines.join('\n');
}

/** One row per task, one column per server: "ok" or the failure's class. */
export function formatTaskMatrix(servers) {
  const names = Object.keys(servers);
  const lines = [`| task | ${names.join(' | ')} |`, `|---|${names.map(() => '---|').join('')}`];
  const taskIds = [...new Set(names.flatMap((name) => servers[name].records.map((record) => record.task)))];
  for (const taskId of taskIds) {
    const cells = names.map((name) => {
      const records = servers[name].records.filter((record) => record.task === taskId);
      const outcomes = records.map((record) => (record.finished ? 'ok' : record.failure.class));
      return [...new Set(outcomes)].join(', ') || '-';
    });
    lines.push(`| ${taskId} | ${cells.join(' | ')} |`);
  }
  return lines.join('\n');
}

/** Fisher-Yates with the repository's seeded generator, so that a seed names one order. */
function shuffled(items, seed) {
  const random = seededRandom(seed);
  const copy = [...items];
  for (let index = copy.length - 1; index > 0; index -= 1) {
    const other = random.int(0, index);
    [copy[index], copy[other]] = [copy[other], copy[index]];
  }
  return copy;
}

/**
 * `npm run bench -- --agent [--servers a,b] [--tasks x,y] [--seed N] [--repeat N]`. Returns the
 * results object it also writes to target/bench/agent.json.
 */
export async function runAgentBench({ root, optionValue, log = console.log }) {
  const serverNames = (optionValue('--servers') ?? DEFAULT_SERVERS.join(',')).split(',').filter(Boolean);
  for (const name of serverNames) {
    if (!SERVERS[name]) throw new Error(`unknown server ${name}; known: ${Object.keys(SERVERS).join(', ')}`);
  }
  const taskIds = optionValue('--tasks')?.split(',').filter(Boolean);
  let tasks = taskIds ? TASKS.filter((task) => taskIds.includes(task.id)) : TASKS;
  if (taskIds && tasks.length !== taskIds.length) {
    throw new Error(`unknown task in --tasks; known: ${TASKS.map((task) => task.id).join(', ')}`);
  }
  const seed = optionValue('--seed') === undefined ? null : Number(optionValue('--seed'));
  if (seed !== null && !Number.isInteger(seed)) throw new Error('--seed takes an integer');
  if (seed !== null) tasks = shuffled(tasks, seed);
  const repeat = Number(optionValue('--repeat') ?? 1);
  if (!Number.isInteger(repeat) || repeat < 1) throw new Error('--repeat takes a whole number from 1');
  // `--transcript` keeps every call's arguments and reply text in agent.json (to see where the
  // characters go); off by default, as it makes the file a hundred times larger.
  const transcript = process.argv.includes('--transcript');
  const fixtureServer = await startFixtureServer(root);
  const results = { startedAt: new Date().toISOString(), seed, repeat, tasks: tasks.map((task) => task.id), servers: {} };
  try {
    for (const name of serverNames) {
      log(`agent bench: ${SERVERS[name].label}`);
      const records = [];
      for (let round = 0; round < repeat; round += 1) {
        records.push(...(await runServer({ name, root, origin: fixtureServer.origin, tasks, log, transcript })));
      }
      results.servers[name] = { label: SERVERS[name].label, summary: summarize(records), records };
    }
  } finally {
    await fixtureServer.close();
  }
  const table = formatTable(Object.values(results.servers));
  log(`\n${table}`);
  log(`\ncharacters per task by kind of call:\n${formatCharactersByKind(Object.values(results.servers))}`);
  log(`\noutcome per task:\n${formatTaskMatrix(results.servers)}`);
  const file = path.join(root, 'target/bench/agent.json');
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify({ ...results, table }, null, 2)}\n`);
  log(`\nwrote ${path.relative(root, file)}`);
  return results;
}
