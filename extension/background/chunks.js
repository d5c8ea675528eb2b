// @ts-check
// Reassembly of the chunk series the native host sends for messages over 512 KiB
// (docs/protocol.md, section 2). Pure, so it is unit-tested in Node.
//
// An assembler belongs to one native port and dies with it. That is safe across a service
// worker restart: the port dies with the worker, and the host then fails every call in flight
// on the old connection, so a half-received series never has to be resumed.

/** At most this many series may be open at once; a host that opens more is misbehaving. */
const MAX_OPEN_SERIES = 16;

export class ChunkError extends Error {}

export class ChunkAssembler {
  /** @type {Map<string, {count: number, received: number, slices: (string|undefined)[]}>} */
  #series = new Map();

  /**
   * Adds one chunk. Returns the parsed message once every chunk of its series has arrived (in
   * any order), or null while the series is incomplete. Throws a ChunkError for a chunk that
   * contradicts its series, or for JSON that does not parse once joined; the series is then
   * dropped, so one bad series cannot poison later ones.
   * @param {{id: string, index: number, count: number, data: string}} chunk
   * @returns {unknown|null}
   */
  add({ id, index, count, data }) {
    if (!Number.isInteger(count) || count < 1 || !Number.isInteger(index) || index < 0 || index >= count) {
      this.#series.delete(id);
      throw new ChunkError(`chunk ${index} of ${count} in series ${id} is out of range`);
    }
    let series = this.#series.get(id);
    if (series === undefined) {
      if (this.#series.size >= MAX_OPEN_SERIES) {
        throw new ChunkError(`more than ${MAX_OPEN_SERIES} chunk series open at once; dropping series ${id}`);
      }
      series = { count, received: 0, slices: new Array(count) };
      this.#series.set(id, series);
    }
    if (series.count !== count) {
      this.#series.delete(id);
      throw new ChunkError(`series ${id} announced ${series.count} chunks, then ${count}`);
    }
    if (series.slices[index] !== undefined) {
      this.#series.delete(id);
      throw new ChunkError(`chunk ${index} of series ${id} arrived twice`);
    }
    series.slices[index] = data;
    series.received += 1;
    if (series.received < series.count) return null;
    this.#series.delete(id);
    const text = series.slices.join("");
    try {
      return JSON.parse(text);
    } catch (error) {
      throw new ChunkError(`series ${id} does not join into valid JSON: ${error.message}`);
    }
  }

  /** How many series are waiting for more chunks (for tests and diagnostics). */
  get openSeries() {
    return this.#series.size;
  }
}
