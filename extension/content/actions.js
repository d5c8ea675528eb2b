// @ts-check
// The action side of the content script: the page halves of the action tools (docs/protocol/tools.md,
// "Content-side action tools"), imported by the router (content/content.js), which
// scripts/build-extension.mjs bundles.
//
// It runs in the content script's isolated world (Chrome) or behind Xray wrappers (Firefox) and
// never injects code into the page's world. The DOM is shared, so the events dispatched here reach
// the page's listeners; the page's own JavaScript overrides of DOM properties are not shared, so
// the native value setters used here are the browser's and not a framework's wrapper.
//
// These modules act and report; the background decides. Every result separates `evidence` (an
// observed effect that counts as progress) from `hints` (diagnostics that never count), and the
// background turns them into `progress`, `retryAllowed` and the trusted fallback of click_ax. The
// arguments passed the background's validation against the tool contract and are trusted here.

import { clickElement, observeClick } from "./actions/click.js";
import { domQuiet } from "./actions/evidence.js";
import {
  abortExternalInput,
  beginExternalInput,
  continueExternalDrag,
  finishExternalInput,
} from "./actions/external-input.js";
import { elementRect, frameOffset, viewportSize } from "./actions/geometry.js";
import { paintSecretMasks, removeSecretMasks } from "./dom/secret-masks.js";
import { dragElement } from "./actions/drag.js";
import { hoverElement } from "./actions/hover.js";
import { ping } from "./actions/page-handlers.js";
import { pressKey } from "./actions/keyboard.js";
import { scrollAction } from "./actions/scroll.js";
import { selectOption } from "./actions/select-option.js";
import { fillField, typeText } from "./actions/text-entry.js";
import { fillFormField } from "./actions/form-fill.js";
import { childFrames, draftState } from "./actions/frame-state.js";
import { markTrustedTarget, unmarkTrustedTarget } from "./actions/trusted-target.js";
import { elementState, textShown } from "./actions/wait-conditions.js";
import { attachFiles } from "./actions/upload.js";

/** The page half of each content action tool, by the name the background sends (content/content.js). */
export const actionHandlers = Object.freeze({
  click_element: clickElement,
  observe_click: observeClick,
  type_text: typeText,
  fill_field: fillField,
  select_option: selectOption,
  fill_form_field: fillFormField,
  attach_files: attachFiles,
  hover_element: hoverElement,
  drag_element: dragElement,
  press_key: pressKey,
  scroll: scrollAction,
  dom_quiet: domQuiet,
  begin_external_input: beginExternalInput,
  finish_external_input: finishExternalInput,
  abort_external_input: abortExternalInput,
  continue_external_drag: continueExternalDrag,
  element_rect: elementRect,
  frame_offset: frameOffset,
  viewport_size: viewportSize,
  paint_secret_masks: paintSecretMasks,
  remove_secret_masks: removeSecretMasks,
  ping,
  child_frames: childFrames,
  draft_state: draftState,
  mark_trusted_target: markTrustedTarget,
  unmark_trusted_target: unmarkTrustedTarget,
  text_shown: textShown,
  element_state: elementState,
});
