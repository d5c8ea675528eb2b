// The last check before Chrome's trusted fallback click (extension/background/actions/trusted-click-check.js):
// the marked element must still be the top hit at the point, in the top document, with the URL,
// scroll position and viewport the frame reported when it marked it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { trustedClickRefusal } from "../../../extension/background/actions/trusted-click-check.js";

const marked = {
  marker: "ab".repeat(16),
  attribute: "data-allwright-trusted",
  url: "http://127.0.0.1:8000/page.html",
  viewport: { scrollX: 0, scrollY: 120, width: 1000, height: 700 },
};

/** A top document: html > body > [target div > span "label", cover button, iframe > #document > p]. */
function answers({ hitId = 3, hitFrame = "top", url = marked.url, layout = {}, markerOn = [2] } = {}) {
  const attributes = (id) => (markerOn.includes(id) ? [marked.attribute, marked.marker] : []);
  const root = {
    backendNodeId: 1,
    nodeName: "#document",
    children: [
      {
        backendNodeId: 10,
        nodeName: "BODY",
        children: [
          { backendNodeId: 2, nodeName: "DIV", attributes: attributes(2), children: [{ backendNodeId: 3, nodeName: "SPAN" }] },
          { backendNodeId: 4, nodeName: "BUTTON", attributes: ["id", "cover", "class", "a b", ...attributes(4)] },
          {
            backendNodeId: 5,
            nodeName: "IFRAME",
            attributes: attributes(5),
            contentDocument: { backendNodeId: 6, nodeName: "#document", children: [{ backendNodeId: 7, nodeName: "P" }] },
          },
          {
            backendNodeId: 8,
            nodeName: "X-HOST",
            attributes: attributes(8),
            shadowRoots: [{ backendNodeId: 9, nodeName: "#document-fragment", children: [{ backendNodeId: 11, nodeName: "B", attributes: attributes(11) }] }],
          },
        ],
      },
    ],
  };
  return {
    root,
    hit: { backendNodeId: hitId, frameId: hitFrame },
    frame: { id: "top", url },
    layout: { pageX: 0, pageY: 120, clientWidth: 1000, clientHeight: 700, ...layout },
  };
}

test("the marked element or one inside it at the point: the click may go", () => {
  assert.equal(trustedClickRefusal(marked, answers({ hitId: 3 })), null);
  assert.equal(trustedClickRefusal(marked, answers({ hitId: 2 })), null);
  // Through a shadow root.
  assert.equal(trustedClickRefusal(marked, answers({ hitId: 11, markerOn: [8] })), null);
  // Rounding of fractional scroll positions is not a scroll.
  assert.equal(trustedClickRefusal(marked, answers({ layout: { pageY: 120.5 } })), null);
});

test("another element on top is refused, and named", () => {
  assert.equal(trustedClickRefusal(marked, answers({ hitId: 4 })), "another element is on top at the point (button#cover.a.b)");
  assert.equal(trustedClickRefusal(marked, answers({ hitId: 10 })), "another element is on top at the point (body)");
});

test("a frame at the point is refused, in or out of process", () => {
  assert.equal(trustedClickRefusal(marked, answers({ hitId: 5 })), "the point is inside a frame");
  assert.equal(trustedClickRefusal(marked, answers({ hitId: 7, hitFrame: "child" })), "the point is inside a frame");
  assert.equal(trustedClickRefusal(marked, answers({ hitId: 7, markerOn: [5] })), "the point is inside a frame");
});

test("a changed URL, scroll position or viewport is refused", () => {
  assert.match(trustedClickRefusal(marked, answers({ url: "http://127.0.0.1:8000/other.html" })), /URL changed/);
  assert.match(trustedClickRefusal(marked, answers({ layout: { pageY: 300 } })), /scrolled/);
  assert.match(trustedClickRefusal(marked, answers({ layout: { pageX: 40 } })), /scrolled/);
  assert.match(trustedClickRefusal(marked, answers({ layout: { clientWidth: 800 } })), /viewport changed size/);
});

test("a missing or copied marker is refused", () => {
  assert.equal(trustedClickRefusal(marked, answers({ markerOn: [] })), "the element is no longer in the page");
  assert.match(trustedClickRefusal(marked, answers({ markerOn: [2, 4] })), /copied the element's marker to 2 elements/);
  assert.equal(trustedClickRefusal(marked, answers({ hitId: 999 })), "the browser found no element at the point");
});
