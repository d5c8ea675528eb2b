// The MCP servers the agent benchmark drives (docs/agent-benchmark.md): how each is started, all
// in the same Debian Chromium (or, for allwright, Firefox), headless, with a fresh temporary
// profile, and spoken to through the MCP client of @modelcontextprotocol/sdk over stdio.

import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

/** The browser every Chromium-based server starts (Debian's wrapper, as a user would). */
export const CHROMIUM = '/usr/bin/chromium';

/** The allwright binary: the release build when there is one (as measured), else the debug one. */
export function allwrightBinary(root) {
  const release = path.join(root, 'target/release/allwright');
  return existsSync(release) ? release : path.join(root, 'target/debug/allwright');
}

/**
 * The servers by name. `command(root, scratch)` gives the program and its arguments; `format` names the
 * snapshot format the policies parse (snapshot-formats.mjs).
 */
export const SERVERS = {
  'allwright-chromium': {
    label: 'allwright, Chromium',
    format: 'allwright',
    // --dev adds execute_js, which only the success check uses (never the policy).
    command: (root) => [allwrightBinary(root), ['mcp', '--launch', 'chromium', '--headless', '--dev']],
  },
  'allwright-firefox': {
    label: 'allwright, Firefox',
    format: 'allwright',
    command: (root) => [allwrightBinary(root), ['mcp', '--launch', 'firefox', '--headless', '--dev']],
  },
  playwright: {
    label: 'Playwright MCP 0.0.83',
    format: 'playwright',
    command: (root, scratch) => [
      process.execPath,
      [
        path.join(root, 'node_modules/@playwright/mcp/cli.js'),
        // Snapshots that it saves to files instead of replying with them land here, not in the checkout.
        '--output-dir', path.join(scratch, 'output'),
        '--browser', 'chrome',
        '--executable-path', CHROMIUM,
        '--headless',
        '--isolated',
        '--no-sandbox',
        '--image-responses', 'omit',
      ],
    ],
  },
  'chrome-devtools': {
    label: 'chrome-devtools-mcp 1.11.0',
    format: 'chrome-devtools',
    command: (root) => [
      process.execPath,
      [
        path.join(root, 'node_modules/chrome-devtools-mcp/build/src/bin/chrome-devtools-mcp.js'),
        '--executablePath', CHROMIUM,
        '--headless',
        '--isolated',
        '--chromeArg=--no-sandbox',
        '--usageStatistics=false',
        '--performanceCrux=false',
        // One agent drives one page here: without this every page tool wants a pageId from
        // list_pages first (routing meant for concurrent agent sessions).
        '--no-page-id-routing',
      ],
    ],
  },
};

/**
 * Starts one server and connects an MCP client to it. The server runs with HOME, TMPDIR and
 * XDG_CONFIG_HOME in a fresh temporary folder, so that no profile or cache outlives the run.
 * Returns {client, tools: Map(name -> tool), close}.
 */
export async function startServer(name, root) {
  const server = SERVERS[name];
  if (!server) throw new Error(`unknown server ${name}; known: ${Object.keys(SERVERS).join(', ')}`);
  // A short folder name: Chromium's singleton socket under it must fit a Unix socket path
  // (107 bytes), and allwright nests its session folder inside.
  const scratch = mkdtempSync(path.join(tmpdir(), 'ab-'));
  const [command, args] = server.command(root, scratch);
  const transport = new StdioClientTransport({
    command,
    args,
    cwd: root,
    // AGENT_BENCH_STDERR=1 shows the servers' own logs, to find out why one does not start.
    stderr: process.env.AGENT_BENCH_STDERR === '1' ? 'inherit' : 'ignore',
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: scratch,
      TMPDIR: scratch,
      XDG_CONFIG_HOME: path.join(scratch, 'config'),
      XDG_CACHE_HOME: path.join(scratch, 'cache'),
    },
  });
  const client = new Client({ name: 'allwright-agent-bench', version: '1.0.0' });
  await client.connect(transport, { timeout: 120_000 });
  const { tools } = await client.listTools(undefined, { timeout: 60_000 });
  return {
    client,
    tools: new Map(tools.map((tool) => [tool.name, tool])),
    close: async () => {
      await client.close().catch(() => {});
      rmSync(scratch, { recursive: true, force: true, maxRetries: 3 });
    },
  };
}
