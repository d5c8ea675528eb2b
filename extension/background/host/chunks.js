// @ts-check
// Reassembly of the chunk series the native host sends for messages over 512 KiB
// (docs/protocol/channels.md, section 2). Pure, so it is unit-tested in Node.
//
// An assembler belongs to one native port and dies with it. That is safe across a service
// worker restart: the port dies with the worker, and the host then fails every call in flight
// on the old connection, so a half-received series never has to be resumed.

import { thrownMessage } from "../../shared/thrown.js";

/** At most this many series may be open at once; a host that opens more is misbehaving. */
const MAX_OPEN_SERIES = 16;
/**
 * The most text the open series may hold together, in UTF-16 units: the largest message the host
 * relays is one socket line of at most 256 MiB (src/socket_lines.rs, MAX_LINE_BYTES), and a JSON
 * text has no more UTF-16 units than UTF-8 bytes. A series that never finishes cannot hold more.
 */
export const MAX_HELD_TEXT_UNITS = 256 * 1024 * 1024;
/**
 * The most chunks one series may announce: the host cuts 256 KiB slices
 * (src/native_messaging/framing.rs, CHUNK_DATA_BYTES), so 256 MiB is 1,024 of them; more is a
 * misbehaving host, and a count the size of the address space must not become an array.
 */
export const MAX_CHUNKS_PER_SERIES = 4096;

/**
 * How many ended series (returned or dropped) are remembered, so that a chunk of one arriving
 * again is refused instead of starting the series over: a repeated one-chunk series would
 * otherwise deliver its call twice. The host numbers its series and never reuses a number.
 */
const REMEMBERED_ENDED_SERIES = 256;

export class ChunkError extends Error {}

export class ChunkAssembler {
  /** @type {Map<string, {count: number, received: number, slices: (string|undefined)[], units: number}>} */
  #series = new Map();
  /** The text the open series hold, in UTF-16 units. */
  #heldUnits = 0;
  /**
   * The ids of the last series that ended, oldest first.
   * @type {Set<string>}
   */
  #ended = new Set();
  #maxHeldUnits;

  /** @param {{maxHeldUnits?: number}} [limits] a smaller limit than the host's, for tests */
  constructor({ maxHeldUnits = MAX_HELD_TEXT_UNITS } = {}) {
    this.#maxHeldUnits = maxHeldUnits;
  }

  /**
   * Ends a series, returned or refused: its text is released and its id remembered.
   * @param {string} id
   */
  #end(id) {
    const series = this.#series.get(id);
    if (series !== undefined) {
      this.#heldUnits -= series.units;
      this.#series.delete(id);
    }
    this.#ended.add(id);
    if (this.#ended.size > REMEMBERED_ENDED_SERIES) {
      const oldest = this.#ended.values().next().value;
      if (oldest !== undefined) this.#ended.delete(oldest);
    }
  }

  /**
   * Adds one chunk. Returns the parsed message once every chunk of its series has arrived (in
   * any order), or null while the series is incomplete. Throws a ChunkError for a chunk that
   * contradicts its series, announces more than MAX_CHUNKS_PER_SERIES chunks, would hold more
   * text than the limit, or belongs to a series that has already ended, or for JSON that does
   * not parse once joined; the series is then dropped, so one bad series cannot poison later
   * ones.
   * @param {{id: string, index: number, count: number, data: string}} chunk
   * @returns {unknown|null}
   */
  add({ id, index, count, data }) {
    if (this.#ended.has(id)) {
      throw new ChunkError(`series ${id} has already ended; ignoring its chunk ${index}`);
    }
    if (!Number.isInteger(count) || count < 1 || !Number.isInteger(index) || index < 0 || index >= count) {
      this.#end(id);
      throw new ChunkError(`chunk ${index} of ${count} in series ${id} is out of range`);
    }
    if (count > MAX_CHUNKS_PER_SERIES) {
      this.#end(id);
      throw new ChunkError(
        `series ${id} announces ${count} chunks, more than the ${MAX_CHUNKS_PER_SERIES} a message can take`,
      );
    }
    let series = this.#series.get(id);
    if (series === undefined) {
      if (this.#series.size >= MAX_OPEN_SERIES) {
        throw new ChunkError(`more than ${MAX_OPEN_SERIES} chunk series open at once; dropping series ${id}`);
      }
      series = { count, received: 0, slices: new Array(count), units: 0 };
      this.#series.set(id, series);
    }
    if (series.count !== count) {
      this.#end(id);
      throw new ChunkError(`series ${id} announced ${series.count} chunks, then ${count}`);
    }
    if (series.slices[index] !== undefined) {
      this.#end(id);
      throw new ChunkError(`chunk ${index} of series ${id} arrived twice`);
    }
    if (this.#heldUnits + data.length > this.#maxHeldUnits) {
      this.#end(id);
      throw new ChunkError(`series ${id} would hold more than ${this.#maxHeldUnits} characters of chunks; dropping it`);
    }
    series.slices[index] = data;
    series.units += data.length;
    this.#heldUnits += data.length;
    series.received += 1;
    if (series.received < series.count) return null;
    this.#end(id);
    const text = series.slices.join("");
    try {
      return JSON.parse(text);
    } catch (error) {
      throw new ChunkError(`series ${id} does not join into valid JSON: ${thrownMessage(error)}`);
    }
  }

  /** How many series are waiting for more chunks (for tests and diagnostics). */
  get openSeries() {
    return this.#series.size;
  }

  /** How much text (UTF-16 units) the open series hold (for tests and diagnostics). */
  get heldTextUnits() {
    return this.#heldUnits;
  }
}
