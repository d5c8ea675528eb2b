// The scripted policy of the agent benchmark (docs/agent-benchmark.md): no model, the same moves
// for every server. Per step it looks for the target (by role and name) in the replies that
// showed part of the page since the task's page was opened, the newest first, as a model finds
// it in its context (Playwright MCP's actions answer with a snapshot, allwright's with the lines
// they changed, chrome-devtools-mcp's with none); else it reads the page, again after a short
// pause when the target is not there yet (content that arrives late), and reads the frames the
// tree points to when the server reads them apart; then it acts on the target's ref. A ref
// remembered from an earlier reply that the server refuses (stale, gone) costs that refusal and
// one read, after which the policy acts on what the read shows, as a model would. Whether the
// task was done is the page's own state, read after the last step.

import { findTarget, PARSERS } from './snapshot-formats.mjs';

/** Reads of the page per step before the target counts as missing (no_ref). */
const READS_PER_STEP = 3;
/** The pause between two reads of a step that did not find its target. */
const PAUSE_BETWEEN_READS_MS = 300;
/** How long the page may take to show a finished task's state after the last step. */
const STATE_WAIT_MS = 1_500;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** A failure of one task, with its class (runner.mjs FAILURE_CLASSES). */
export class TaskFailure extends Error {
  constructor(failureClass, detail) {
    super(`${failureClass}: ${detail}`);
    this.failureClass = failureClass;
    this.detail = detail;
  }
}

const describeTarget = (target) => `${target.roles ? `${target.roles.join('|')} ` : ''}${String(target.name)}`;

/**
 * Runs one task through `adapter` (adapters.mjs). Returns when the task finished; throws a
 * TaskFailure otherwise (the runner catches it and times out calls).
 */
export async function runTask({ adapter, format, task, origin }) {
  const parse = PARSERS[format];
  // Every reply that showed part of the page since the task's page was opened, the newest last.
  const shown = [parse(adapter.replyText(await adapter.navigate(`${origin}${task.page}`)))];
  const remembered = (target) => {
    for (let index = shown.length - 1; index >= 0; index -= 1) {
      const entry = findTarget(shown[index], target);
      if (entry !== null) return entry;
    }
    return null;
  };
  /** Reads the page (and its frames) until the target shows, up to READS_PER_STEP times. */
  const readUntilFound = async (target, reads) => {
    for (let read = 0; read < reads; read += 1) {
      if (read > 0) await sleep(PAUSE_BETWEEN_READS_MS);
      const entries = parse(await adapter.read());
      shown.push(entries);
      const entry = findTarget(entries, target);
      if (entry !== null) return entry;
      if (adapter.readFrames) {
        for (const frame of await adapter.readFrames(entries)) {
          const found = findTarget(parse(frame.text), target);
          if (found !== null) return { ...found, frameId: frame.frameId };
        }
      }
    }
    return null;
  };
  const act = (step, entry) => {
    if (step.action === 'click') return adapter.click(entry);
    if (step.action === 'hover') return adapter.hover(entry);
    if (step.action === 'type') return adapter.type(entry, step.text, step.submit === true);
    if (step.action === 'select') return adapter.select(entry, step.label);
    throw new Error(`task ${task.id}: unknown action ${step.action}`);
  };
  for (const [index, step] of task.steps.entries()) {
    if (step.action === 'press') {
      shown.push(parse(adapter.replyText(await adapter.press(step.key))));
      continue;
    }
    const missing = () => new TaskFailure('no_ref', `step ${index + 1}: no ref for ${describeTarget(step.target)}`);
    let reply;
    const fromMemory = remembered(step.target);
    if (fromMemory !== null) {
      try {
        reply = await act(step, fromMemory);
      } catch (error) {
        if (!(error instanceof TaskFailure) || error.failureClass !== 'refused') throw error;
        // The remembered ref no longer holds: read, and act on what the page shows now.
        const entry = await readUntilFound(step.target, 1);
        if (entry === null) throw missing();
        reply = await act(step, entry);
      }
    } else {
      const entry = await readUntilFound(step.target, READS_PER_STEP);
      if (entry === null) throw missing();
      reply = await act(step, entry);
    }
    shown.push(parse(adapter.replyText(reply)));
  }
}

/** Polls the task's success predicate through the server's evaluate tool, for STATE_WAIT_MS. */
export async function taskPassed({ adapter, evaluate, task }) {
  const deadline = performance.now() + STATE_WAIT_MS;
  for (;;) {
    if (await adapter.passes(evaluate, task.success)) return true;
    if (performance.now() > deadline) return false;
    await sleep(250);
  }
}
