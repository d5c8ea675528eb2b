// The agent benchmark's reading of replies (tests/browser/agent-bench/snapshot-formats.mjs) and
// its accounting (runner.mjs): the three servers' snapshot formats, allwright's two reply
// formats, the characters a client shows a model, and the per-server summary. No browser.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  findTarget,
  PARSERS,
  replyText,
  replyValue,
  resultCharacters,
} from '../agent-bench/snapshot-formats.mjs';
import { formatCharactersByKind, formatTable, formatTaskMatrix, median, summarize } from '../agent-bench/runner.mjs';

const ALLWRIGHT_TREE = [
  'main "Shop" [ref_3]',
  ' text "Doroteya"',
  ' button "Say \\"hi\\"" [ref_9] type="button"',
  ' iframe "Contact form" [ref_7] frameId=3',
].join('\n');

test('allwright lines give role, unescaped name, ref and frameId', () => {
  const entries = PARSERS.allwright(ALLWRIGHT_TREE);
  assert.deepEqual(
    entries.map(({ role, name, ref, frameId }) => ({ role, name, ref, frameId })),
    [
      { role: 'main', name: 'Shop', ref: 'ref_3', frameId: undefined },
      { role: 'text', name: 'Doroteya', ref: null, frameId: undefined },
      { role: 'button', name: 'Say "hi"', ref: 'ref_9', frameId: undefined },
      { role: 'iframe', name: 'Contact form', ref: 'ref_7', frameId: 3 },
    ],
  );
  // A text line without a ref is no target: the policy fails the step as no_ref.
  assert.equal(findTarget(entries, { name: 'Doroteya' }), null);
  assert.equal(findTarget(entries, { name: 'say "HI"', roles: ['button'] })?.ref, 'ref_9');
});

test('a nameless allwright node over one text line reads as that text', () => {
  const entries = PARSERS.allwright(['generic [ref_34]', ' text "14"', 'generic [ref_35]', ' text "15"', ' text "more"'].join('\n'));
  assert.equal(findTarget(entries, { name: '14' })?.ref, 'ref_34');
  // Two child lines: the node's words are not one text, so it keeps no name.
  assert.equal(findTarget(entries, { name: '15' }), null);
});

test('the lines under [removed] in a diff are not entries; context and changed lines are', () => {
  const diff = ['[unchanged]', 'main "Shop"', '[removed]', ' button "Pay" [ref_4]', '[changed]', ' button "Paid" [ref_5]'].join('\n');
  const entries = PARSERS.allwright(diff);
  assert.deepEqual(
    entries.map((entry) => entry.name),
    ['Shop', 'Paid'],
  );
});

test('text without a ref is clicked through its parent item, never through a container', () => {
  const entries = PARSERS.allwright(['table', ' row [ref_12]', '  cell "INV-1043"', '  cell "310.00"', 'main [ref_3]', ' text "Doroteya"', ' text "Chas"'].join('\n'));
  assert.equal(findTarget(entries, { name: 'INV-1043' })?.ref, 'ref_12');
  assert.equal(findTarget(entries, { name: 'INV-1043', roles: ['button'] }), null);
  assert.equal(findTarget(entries, { name: 'Doroteya' }), null);
});

test('Playwright lines take the text after the colon as the name of a node without one', () => {
  const snapshot = [
    '### Snapshot',
    '```yaml',
    '- generic [active] [ref=e1]:',
    '  - heading "Contacts" [level=1] [ref=e2]',
    '  - generic [ref=e7] [cursor=pointer]: Doroteya',
    '  - link "Home" [ref=e9] [cursor=pointer]:',
    '    - /url: /home',
    '  - text: plain words',
    '```',
  ].join('\n');
  const entries = PARSERS.playwright(snapshot);
  assert.deepEqual(
    entries.map(({ role, name, ref }) => ({ role, name, ref })),
    [
      { role: 'generic', name: '', ref: 'e1' },
      { role: 'heading', name: 'Contacts', ref: 'e2' },
      { role: 'generic', name: 'Doroteya', ref: 'e7' },
      { role: 'link', name: 'Home', ref: 'e9' },
      { role: 'text', name: 'plain words', ref: null },
    ],
  );
  assert.equal(findTarget(entries, { name: 'doroteya' })?.ref, 'e7');
  assert.equal(findTarget(entries, { name: 'Home', roles: ['button'] }), null);
});

test('chrome-devtools lines, text runs included, each carry their uid', () => {
  const snapshot = [
    '## Latest page snapshot',
    'uid=1_0 RootWebArea "Contacts" url="http://127.0.0.1/"',
    '  uid=1_3 combobox "Size" expandable haspopup="listbox" value="Medium"',
    '  uid=1_4 "Doroteya"',
  ].join('\n');
  const entries = PARSERS['chrome-devtools'](snapshot);
  assert.deepEqual(
    entries.map(({ role, name, ref }) => ({ role, name, ref })),
    [
      { role: 'RootWebArea', name: 'Contacts', ref: '1_0' },
      { role: 'combobox', name: 'Size', ref: '1_3' },
      { role: 'text', name: 'Doroteya', ref: '1_4' },
    ],
  );
  assert.equal(findTarget(entries, { name: 'Doroteya' })?.ref, '1_4');
});

test('a RegExp target with inLine also matches hints printed beside the name', () => {
  const entries = PARSERS.allwright(' generic [ref_12] hint="icon retweet"');
  assert.equal(findTarget(entries, { name: /retweet/i }), null);
  assert.equal(findTarget(entries, { name: /retweet/i, inLine: true })?.ref, 'ref_12');
});

test("allwright's two reply formats give the same value and tree", () => {
  const value = { snapshotId: 's-0123abcd-1', url: 'http://x/', tree: ALLWRIGHT_TREE };
  const today = { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value };
  const header = { snapshotId: value.snapshotId, url: value.url };
  const next = { content: [{ type: 'text', text: `${JSON.stringify(header)}\n${ALLWRIGHT_TREE}` }] };
  assert.equal(replyText(today), ALLWRIGHT_TREE);
  assert.equal(replyText(next), ALLWRIGHT_TREE);
  assert.equal(replyValue(today).snapshotId, value.snapshotId);
  assert.equal(replyValue(next).snapshotId, value.snapshotId);
  const action = { content: [{ type: 'text', text: '{"progress":"observed"}' }] };
  assert.deepEqual(replyValue(action), { progress: 'observed' });
  assert.equal(replyText(action), '');
});

test('characters count every text block plus the structured content once', () => {
  const value = { tree: 'main' };
  const text = JSON.stringify(value);
  assert.equal(resultCharacters({ content: [{ type: 'text', text }] }), text.length);
  assert.equal(resultCharacters({ content: [{ type: 'text', text }], structuredContent: value }), 2 * text.length);
  assert.equal(resultCharacters({ content: [{ type: 'text', text: 'ab' }, { type: 'text', text: 'cde' }] }), 5);
  assert.equal(resultCharacters({ content: [] }), 0);
});

test('the summary counts finished tasks, characters per task, the median time and failure classes', () => {
  const records = [
    { finished: true, characters: 100, charactersByKind: { read: 60, action: 40 }, seconds: 1 },
    { finished: false, failure: { class: 'no_ref' }, characters: 300, charactersByKind: { read: 300 }, seconds: 3 },
    { finished: false, failure: { class: 'timeout' }, characters: 200, charactersByKind: { navigate: 200 }, seconds: 2 },
  ];
  const summary = summarize(records);
  assert.equal(summary.tasks, 3);
  assert.equal(summary.finished, 1);
  assert.equal(summary.charactersPerTask, 200);
  assert.equal(summary.medianSeconds, 2);
  assert.deepEqual(summary.failuresByClass, { no_ref: 1, refused: 0, wrong_effect: 0, error: 0, timeout: 1 });
  assert.deepEqual(summary.charactersPerTaskByKind, { read: 120, action: 13, navigate: 67 });
  assert.equal(median([4, 1, 3, 2]), 2.5);
  const table = formatTable([{ label: 'a server', summary }]);
  assert.match(table, /\| a server \| 1\/3 \(33\.3%\) \| 200 \| 2\.00 \| no_ref: 1, timeout: 1 \|/);
  assert.match(formatCharactersByKind([{ label: 'a server', summary }]), /\| a server \| 67 \| 120 \| 13 \|/);
  const servers = { one: { records: [{ task: 't', ...records[0] }, { task: 'u', ...records[1] }] } };
  assert.equal(formatTaskMatrix(servers).split('\n').slice(2).join('\n'), '| t | ok |\n| u | no_ref |');
});
