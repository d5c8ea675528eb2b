// network_requests' records in a person's browser (background/records/network-records.js) and what the
// side panel's log keeps of them (background/side-panel/call-redaction.js).
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  forgetNetworkRecords,
  networkRecordsOf,
  recordFailure,
  recordRequestHeaders,
  recordRequestStarted,
  recordResponse,
  REQUESTS_KEPT_PER_TAB,
} from "../../../extension/background/records/network-records.js";
import { createRedactor, REDACTED } from "../../../extension/background/side-panel/call-redaction.js";

test("a request's events fill in one record, and a redirect is a record of its own", () => {
  const tab = 101;
  recordRequestStarted({
    requestId: "1",
    tabId: tab,
    frameId: 0,
    url: "https://a.test/old",
    method: "GET",
    type: "main_frame",
    timeStamp: 10,
  });
  recordRequestHeaders({ requestId: "1", tabId: tab, requestHeaders: [{ name: "Authorization", value: "Bearer x" }] });
  recordResponse({
    requestId: "1",
    tabId: tab,
    statusCode: 301,
    statusLine: "HTTP/1.1 301 Moved Permanently",
    responseHeaders: [],
  });
  recordRequestStarted({
    requestId: "1",
    tabId: tab,
    frameId: 0,
    url: "https://a.test/new",
    method: "GET",
    type: "main_frame",
    timeStamp: 12,
  });
  recordResponse({
    requestId: "1",
    tabId: tab,
    statusCode: 200,
    statusLine: "HTTP/1.1 200 OK",
    responseHeaders: [{ name: "Content-Type", value: "text/html; charset=utf-8" }],
    timeStamp: 20,
  });
  recordRequestStarted({
    requestId: "2",
    tabId: tab,
    frameId: 3,
    url: "https://b.test/x",
    method: "POST",
    type: "xmlhttprequest",
  });
  recordFailure({ requestId: "2", tabId: tab, error: "net::ERR_FAILED" });
  const { requests, dropped, lastSequence } = networkRecordsOf(tab);
  assert.equal(requests.length, 3);
  assert.equal(dropped, 0);
  assert.equal(requests[0].response?.status, 301);
  assert.equal(requests[0].response?.statusText, "Moved Permanently");
  assert.deepEqual(requests[0].requestHeaders, [["Authorization", "Bearer x"]]);
  assert.equal(requests[1].url, "https://a.test/new");
  assert.equal(requests[1].response?.mimeType, "text/html");
  assert.equal(requests[2].failure, "net::ERR_FAILED");
  assert.equal(requests[2].frameId, 3);
  assert.ok(requests[0].sequence < requests[1].sequence && requests[2].sequence === lastSequence);
  forgetNetworkRecords(tab);
  assert.deepEqual(networkRecordsOf(tab).requests, []);
});

test("a full ring drops the oldest requests and counts them", () => {
  const tab = 102;
  for (let index = 0; index < REQUESTS_KEPT_PER_TAB + 3; index += 1) {
    recordRequestStarted({
      requestId: String(index),
      tabId: tab,
      url: `https://a.test/${index}`,
      method: "GET",
      type: "image",
    });
  }
  const { requests, dropped } = networkRecordsOf(tab);
  assert.equal(requests.length, REQUESTS_KEPT_PER_TAB);
  assert.equal(dropped, 3);
  assert.equal(requests[0].url, "https://a.test/3");
  // An event for a dropped request changes nothing.
  recordFailure({ requestId: "0", tabId: tab, error: "net::ERR_ABORTED" });
  assert.ok(networkRecordsOf(tab).requests.every((request) => request.failure === null));
  forgetNetworkRecords(tab);
});

test("the panel's log keeps header names without values and URLs without their query", () => {
  const redactor = createRedactor();
  const kept = redactor.result("network_requests", {
    requests: [
      {
        sequence: 1,
        url: "https://a.test/api?access_token=abc123#x",
        requestHeaders: [["Authorization", "Bearer abc123"]],
        response: { status: 200, headers: [["Set-Cookie", "sid=abc123"]] },
      },
    ],
  });
  const text = JSON.stringify(kept);
  assert.ok(!text.includes("abc123"), text);
  const [request] = /** @type {any} */ (kept).requests;
  assert.equal(request.url, `https://a.test/api?${REDACTED}`);
  assert.deepEqual(request.requestHeaders, [["Authorization", REDACTED]]);
  assert.deepEqual(request.response.headers, [["Set-Cookie", REDACTED]]);
});
