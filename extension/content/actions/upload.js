// @ts-check
// attach_files and the "upload" kind of begin_external_input: the page half of upload_file
// (docs/agent-tools.md, "Attaching files: upload_file"). The agent's ref may be the file input,
// its label, the button whose click opens it, or a drop zone; this module finds what takes the
// files, checks them against the input's `accept` and `multiple` as the browser's file chooser
// would, and hands them over as a person's choice does:
// - a file input gets `File`s built from the bytes the MCP server read (a DataTransfer's
//   FileList assigned to `input.files`), then `input` (bubbling, composed) and `change`
//   (bubbling), as the HTML Standard's "update the file selection" fires them; in a browser
//   allwright launched with real input, the server sets the files with WebDriver BiDi
//   `input.setFiles` on the input marked here, and the browser fires the events itself;
// - a drop zone gets the sequence of a person dragging files from the desktop onto it:
//   `dragenter` and `dragover` (bubbling, cancelable, composed, one DataTransfer holding the
//   files), and `drop` only when the page cancelled `dragover` (a browser drops nothing on an
//   element that did not ask for it; it fires `dragleave` instead).
//
// The input a button opens is found without opening a dialog: the button gets a click, and the
// click event that the page's handler sends to a file input (`input.click()` dispatches one, and
// it is composed) is caught at the window and cancelled, which cancels the dialog. An input the
// page creates without putting it in the document, or opens with `showPicker()`, and a handler
// that ignores untrusted clicks, are not seen by that click: in a browser allwright launched with
// real input the server clicks instead (`dialogRoute`: this module only marks the agent's
// element, and the browser's file dialog event names the input); in the extension alone such a
// page answers not_a_file_target.
// A button is clicked at most once per upload: what the click found is remembered for the
// element a while, so that the server's second route does not click it again; `noClick` (the
// server's real click found no dialog) forbids the click.

import { anyShadowRoot, closestAcrossShadow, queryAllAcrossShadow } from "../dom/shadow.js";
import { isNativelyDisabled, viewportRect } from "./element.js";
import {
  classifyMutations,
  controlledBy,
  controlValues,
  popupEvidence,
  shownPopups,
  startMutationWindow,
  textChangeEvidence,
  valueChangeEvidence,
} from "./evidence.js";
import { scrollIntoViewIfNeeded } from "./interaction.js";
import { runPageHandlers } from "./page-handlers.js";
import { pointerClick } from "./pointer-input.js";
import { describeTargetAsRead, resolveTarget } from "./target.js";
import { nextTask, waitFor } from "./timing.js";
import { fileAcceptRefusal } from "./file-accept.js";

const messages = globalThis.allwrightMessages;

/** How long the page is watched for its reaction (a file name shown, a preview, a request). */
const UPLOAD_OBSERVATION_MS = 600;

/** How long what a button's click opened is remembered, so that nothing clicks it twice. */
const DISCOVERY_MEMORY_MS = 30_000;

/**
 * What a click on an element opened (the file input, or null for nothing), by element.
 * `lasting`: found by the browser's file dialog (the dialog route), kept while the input is in
 * the document.
 * @type {WeakMap<Element, {input: HTMLInputElement|null, at: number, lasting?: boolean}>}
 */
const discoveredByClick = new WeakMap();

/**
 * One file as the page half knows it: name, MIME type and size always; the bytes (base64) and
 * modification time on the extension's route.
 * @typedef {{name: string, type: string, size: number, lastModified?: number, data?: string}} FileFacts
 */

/** @param {Element|null|undefined} node */
const isFileInput = (node) => node instanceof HTMLInputElement && node.type === "file";

/**
 * What takes the files for the element the agent named: `{kind: "input", input}` or
 * `{kind: "drop"}` (try a drop on the element itself). The cheap ways first: the input itself,
 * a label's control, the one file input inside the element; then the click that shows which
 * input the page opens.
 * @param {Element} element
 * @param {{mayClick: boolean}} options
 * @returns {{kind: "input", input: HTMLInputElement, via: string} | {kind: "drop"|"none", via: string}}
 *   `none`: nothing found without the click that `mayClick` forbids.
 */
function fileTargetOf(element, { mayClick }) {
  if (isFileInput(element)) return { kind: "input", input: /** @type {HTMLInputElement} */ (element), via: "input" };
  const label =
    element.localName === "label" ? element : closestAcrossShadow(element, (node) => node.localName === "label");
  const control = /** @type {HTMLLabelElement|null} */ (label)?.control;
  if (isFileInput(control)) return { kind: "input", input: /** @type {HTMLInputElement} */ (control), via: "label" };
  // A closed shadow root too: the content script may open it, and the page's own chooser would
  // be its input's (the agent's tree shows only the host).
  const inside = [element, anyShadowRoot(element)]
    .filter((scope) => scope !== null)
    .flatMap((scope) => queryAllAcrossShadow(/** @type {Element|ShadowRoot} */ (scope), 'input[type="file" i]'));
  if (inside.length === 1) return { kind: "input", input: /** @type {HTMLInputElement} */ (inside[0]), via: "inside" };
  const remembered = discoveredByClick.get(element);
  // An input the page has since replaced (a re-render) is looked for again.
  const stillThere = remembered !== undefined && (remembered.input === null || remembered.input.isConnected);
  if (stillThere && (remembered.lasting === true || Date.now() - remembered.at < DISCOVERY_MEMORY_MS)) {
    return remembered.input === null
      ? { kind: "drop", via: "drop" }
      : { kind: "input", input: remembered.input, via: "button" };
  }
  if (!mayClick) return { kind: "none", via: "none" };
  const opened = inputOpenedByClick(element);
  discoveredByClick.set(element, { input: opened, at: Date.now() });
  return opened === null ? { kind: "drop", via: "drop" } : { kind: "input", input: opened, via: "button" };
}

/**
 * Clicks the element as a person would and returns the file input whose dialog the page's
 * handler opened, which is cancelled: the click event a file input receives from `input.click()`
 * is caught at the window, in the capture phase, and its default action (the dialog) prevented.
 * @param {Element} element
 * @returns {HTMLInputElement|null}
 */
function inputOpenedByClick(element) {
  /** @type {HTMLInputElement|null} */
  let opened = null;
  /** @param {Event} event */
  const catchFileInputClick = (event) => {
    const target = event.composedPath()[0];
    if (!isFileInput(/** @type {Element} */ (target))) return;
    // Cancelling the click cancels the file dialog (HTML, "input activation behavior").
    event.preventDefault();
    opened ??= /** @type {HTMLInputElement} */ (target);
  };
  window.addEventListener("click", catchFileInputClick, true);
  try {
    pointerClick(element);
  } finally {
    window.removeEventListener("click", catchFileInputClick, true);
  }
  return opened;
}

/**
 * The refusal of files the input would not take (file-accept.js), as a tool error.
 * @param {HTMLInputElement} input
 * @param {FileFacts[]} files
 * @returns {ToolError|null}
 */
function refusalOfFiles(input, files) {
  const refusal = fileAcceptRefusal(
    { accept: input.accept, multiple: input.multiple, directory: input.hasAttribute("webkitdirectory") },
    files,
  );
  return refusal === null ? null : messages.toolError("file_not_accepted", refusal.message, { hint: refusal.hint });
}

/**
 * The refusal of an input that cannot take files now, or null.
 * @param {HTMLInputElement} input
 */
function refusalOfInput(input) {
  if (isNativelyDisabled(input)) {
    return messages.toolError("not_actionable", "the file input is disabled", {
      hint: "Do what enables it first (a required step above it), then read the tree again.",
    });
  }
  return null;
}

/**
 * The observation around the files' arrival, begun before they are set: the page's reaction is
 * the evidence (text changed anywhere, a preview or list added, a control's value, a popup).
 * @param {Element} element the element the agent named
 */
function beginObservation(element) {
  const popupsBefore = shownPopups();
  const valuesBefore = controlValues();
  const mutationWindow = startMutationWindow(element);
  return {
    /** @returns {Promise<{evidence: string[], hints: string[]}>} */
    async finish() {
      const observe = () => {
        const records = mutationWindow.collect();
        const found = [...textChangeEvidence(records), ...popupEvidence(popupsBefore)];
        const { local } = classifyMutations(records, element, controlledBy(element));
        if (local) found.push("local_mutation");
        return found.length > 0 ? [...new Set(found)] : null;
      };
      await nextTask();
      const evidence = (await waitFor(observe, UPLOAD_OBSERVATION_MS)) ?? [];
      const hints = [];
      // The input's own value ("C:\fakepath\name") changes with any upload: a hint, not proof
      // that the page noticed.
      if (valueChangeEvidence(valuesBefore).length > 0) hints.push("the file input holds the files");
      const { elsewhere } = classifyMutations(mutationWindow.finish(), element, controlledBy(element));
      if (elsewhere > 0 && !evidence.includes("text_changed"))
        hints.push(`global_mutation: ${elsewhere} mutations elsewhere`);
      return { evidence, hints };
    },
    abort: () => mutationWindow.finish(),
  };
}

/**
 * The bytes of one file, decoded from the base64 the server sent.
 * @param {{data?: string}} file
 */
function bytesOf(file) {
  const text = atob(file.data ?? "");
  const bytes = new Uint8Array(text.length);
  for (let index = 0; index < text.length; index += 1) bytes[index] = text.charCodeAt(index);
  return bytes;
}

/**
 * A DataTransfer holding the files, as the browser's own for a chooser or a drag from the
 * desktop: `File`s with their bytes, name, type and modification time.
 * @param {FileFacts[]} files
 */
function dataTransferOf(files) {
  const transfer = new DataTransfer();
  for (const file of files) {
    transfer.items.add(
      new File([bytesOf(file)], file.name, { type: file.type, lastModified: file.lastModified ?? Date.now() }),
    );
  }
  return transfer;
}

/**
 * A person's choice in the file chooser, as the HTML Standard's "update the file selection"
 * gives it: the files, then `input` (bubbles, composed), then `change` (bubbles).
 * @param {HTMLInputElement} input
 * @param {FileFacts[]} files
 */
function chooseFiles(input, files) {
  input.files = dataTransferOf(files).files;
  runPageHandlers(() => {
    input.dispatchEvent(new Event("input", { bubbles: true, composed: true }));
    input.dispatchEvent(new Event("change", { bubbles: true }));
  });
}

/**
 * Files dragged from the desktop onto the element: dragenter and dragover with one DataTransfer
 * (HTML, "drag-and-drop processing model": `dropEffect` "copy" for files), and drop if the page
 * cancelled dragover, else dragleave. Returns whether the files were dropped.
 * @param {Element} zone
 * @param {FileFacts[]} files
 */
function dropFiles(zone, files) {
  const transfer = dataTransferOf(files);
  transfer.dropEffect = "copy";
  transfer.effectAllowed = "all";
  const rect = viewportRect(zone);
  const point = { clientX: Math.round(rect.x + rect.width / 2), clientY: Math.round(rect.y + rect.height / 2) };
  const init = { bubbles: true, cancelable: true, composed: true, dataTransfer: transfer, ...point };
  return runPageHandlers(() => {
    zone.dispatchEvent(new DragEvent("dragenter", init));
    const accepted = !zone.dispatchEvent(new DragEvent("dragover", init));
    if (!accepted) {
      zone.dispatchEvent(new DragEvent("dragleave", { ...init, cancelable: false }));
      return false;
    }
    zone.dispatchEvent(new DragEvent("drop", init));
    return true;
  });
}

/** The hint of not_a_file_target (background/actions/actions.js repeats it for Firefox's drop). */
const NOT_A_FILE_TARGET_HINT =
  "Pass the file input, its label, the button that opens the file dialog, or the drop zone itself (read the tree: they are often named Upload, Browse, Choose file or Drop files here). A page that opens its file dialog only for a real click (it ignores untrusted clicks), with showPicker(), or from an input it never put in the document cannot be reached by the extension alone: ask the person to choose the file, or use a browser allwright launched with --input trusted, where upload_file clicks for real and takes the browser's file dialog.";

const notAFileTarget = (/** @type {string} */ ref) =>
  messages.toolError(
    "not_a_file_target",
    `${ref} takes no files: it is no file input, no label of one, its click opens no file input, and it does not accept a drop of files`,
    {
      hint: NOT_A_FILE_TARGET_HINT,
    },
  );

/**
 * attach_files({ref_id, files: [{name, type, size, lastModified, data}], noClick?}): the
 * extension's route of upload_file; `noClick` when the server's real click was the page's one
 * click (it opened no file dialog), so only the cheap ways and a drop are tried.
 * @param {{ref_id: string, files: FileFacts[], noClick?: boolean}} args
 * @param {import("./target.js").TreeHelpers} ax
 */
export async function attachFiles(args, ax) {
  const element = resolveTarget(ax, args);
  const description = await describeTargetAsRead(ax, element);
  scrollIntoViewIfNeeded(element);
  const rect = viewportRect(element);
  const found = fileTargetOf(element, { mayClick: args.noClick !== true });
  if (found.kind === "input") {
    const refusal = refusalOfInput(found.input) ?? refusalOfFiles(found.input, args.files);
    if (refusal !== null) throw refusal;
  }
  const observation = beginObservation(element);
  let target = "input";
  if (found.kind === "input") {
    chooseFiles(found.input, args.files);
  } else if (dropFiles(element, args.files)) {
    target = "drop";
  } else {
    observation.abort();
    throw notAFileTarget(args.ref_id);
  }
  const { evidence, hints } = await observation.finish();
  return { ...description, rect, target, via: found.via, method: "synthetic", evidence, hints };
}

/**
 * The first half of upload_file's real route (begin_external_input with kind "upload"): the file
 * input found and checked (nothing is set here), the observation begun. An element that leads to
 * no file input answers `target: "drop"`, and the server hands the files to the extension's
 * route, which drops them. With `dialogRoute` (the server receives the browser's file dialog
 * event) no discovery click is made: an element the cheap ways do not lead from answers
 * `target: "click"`, and the server's real click is the page's one click.
 * @param {{ref_id: string, files: FileFacts[], dialogRoute?: boolean, noClick?: boolean}} args
 * @param {import("./target.js").TreeHelpers} ax
 */
export async function beginExternalUpload(args, ax) {
  const element = resolveTarget(ax, args);
  const description = await describeTargetAsRead(ax, element);
  scrollIntoViewIfNeeded(element);
  const rect = viewportRect(element);
  const found = fileTargetOf(element, { mayClick: args.dialogRoute !== true && args.noClick !== true });
  if (found.kind === "none" && args.dialogRoute === true) {
    // The server clicks the agent's element for real and sets the files on the input the
    // browser's file dialog event names: the element carries the marker, and the observation
    // covers the click and the files.
    // The input that takes the files is remembered for the element, as a discovery click's
    // is, for as long as it stays in the document: a later upload sets it without a click.
    // (Firefox 153 never opens a second chooser for an input whose first one WebDriver
    // dismissed, so a second click would find nothing there.)
    /** @type {HTMLInputElement|null} */
    let chosen = null;
    /** @param {Event} event */
    const noteChange = (event) => {
      const target = event.composedPath()[0];
      if (isFileInput(/** @type {Element} */ (target))) chosen ??= /** @type {HTMLInputElement} */ (target);
    };
    window.addEventListener("change", noteChange, true);
    const observation = beginObservation(element);
    const stop = () => window.removeEventListener("change", noteChange, true);
    return {
      element,
      description: { ...description, target: "click" },
      rect,
      finish: async () => {
        const { evidence, hints } = await observation.finish();
        stop();
        if (chosen?.isConnected) discoveredByClick.set(element, { input: chosen, at: Date.now(), lasting: true });
        return { ...description, rect, target: "input", via: "dialog", evidence, hints };
      },
      abort: () => {
        stop();
        observation.abort();
      },
    };
  }
  if (found.kind !== "input") {
    // The zone carries the marker: Firefox's background drops the files on it in the page's
    // world (background/actions/page-drop.js), then finishes; the server's real route aborts instead.
    const observation = beginObservation(element);
    return {
      element,
      description: { ...description, target: "drop" },
      rect,
      finish: async () => {
        const { evidence, hints } = await observation.finish();
        return { ...description, rect, target: "drop", via: "drop", method: "synthetic", evidence, hints };
      },
      abort: () => observation.abort(),
    };
  }
  const refusal = refusalOfInput(found.input) ?? refusalOfFiles(found.input, args.files ?? []);
  if (refusal !== null) throw refusal;
  const observation = beginObservation(element);
  return {
    // The server sets the files on the input, so the input carries the marker.
    element: found.input,
    description: { ...description, target: "input" },
    rect,
    finish: async () => {
      const { evidence, hints } = await observation.finish();
      return { ...description, rect, target: "input", via: found.via, evidence, hints };
    },
    abort: () => observation.abort(),
  };
}
