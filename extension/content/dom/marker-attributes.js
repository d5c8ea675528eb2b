// @ts-check
// The attributes allwright itself sets on page elements for a moment: `data-allwright-tab` on
// the document element (the browser bridge's tab mapping), `data-allwright-input` and
// `data-allwright-trusted` on an action's target, `data-allwright-shadow-host` on a shadow host
// (docs/protocol/browser-bridge.md, "The browser bridge"). Their coming and going is allwright's own: never
// evidence of the page's reaction to an action, never a change a read since a snapshot must
// re-read (no line prints them). Their names come from src/marker_attributes.rs, through the
// module the binary generates from it.

import { MARKER_ATTRIBUTE_PREFIX } from "../../shared/generated/marker-attributes.js";

/**
 * Whether a mutation record is a marker attribute coming, changing or going.
 * @param {MutationRecord} record
 */
export function isMarkerRecord(record) {
  return record.type === "attributes" && record.attributeName?.startsWith(MARKER_ATTRIBUTE_PREFIX) === true;
}
