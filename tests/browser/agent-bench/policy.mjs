// The scripted policy of the agent benchmark (docs/agent-benchmark.md): no model, the same moves
// for every server. Per step it looks for the target (by role and name) in the last reply that
// showed part of the page (Playwright MCP's actions answer with a snapshot, for example), else
// reads the page, again after a short pause when the target is not there yet (content that
// arrives late), and reads the frames the tree points to when the server reads them apart; then
// it acts on the target's ref. Whether the task was done is the page's own state, read after
// the last step.

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
  const navigated = await adapter.navigate(`${origin}${task.page}`);
  let lastEntries = parse(adapter.replyText(navigated));
  for (const [index, step] of task.steps.entries()) {
    if (step.action === 'press') {
      lastEntries = parse(adapter.replyText(await adapter.press(step.key)));
      continue;
    }
    let entry = findTarget(lastEntries, step.target);
    for (let read = 0; entry === null && read < READS_PER_STEP; read += 1) {
      if (read > 0) await sleep(PAUSE_BETWEEN_READS_MS);
      const entries = parse(await adapter.read());
      entry = findTarget(entries, step.target);
      if (entry === null && adapter.readFrames) {
        for (const frame of await adapter.readFrames(entries)) {
          const found = findTarget(parse(frame.text), step.target);
          if (found !== null) {
            entry = { ...found, frameId: frame.frameId };
            break;
          }
        }
      }
    }
    if (entry === null) throw new TaskFailure('no_ref', `step ${index + 1}: no ref for ${describeTarget(step.target)}`);
    let reply;
    if (step.action === 'click') reply = await adapter.click(entry);
    else if (step.action === 'hover') reply = await adapter.hover(entry);
    else if (step.action === 'type') reply = await adapter.type(entry, step.text, step.submit === true);
    else if (step.action === 'select') reply = await adapter.select(entry, step.label);
    else throw new Error(`task ${task.id}: unknown action ${step.action}`);
    lastEntries = parse(adapter.replyText(reply));
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
