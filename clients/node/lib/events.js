// The status stream: one JSON object per line on the fd acbox was given
// with --status-fd (docs/events.schema.json). Kinds this client does not know
// are passed through unchanged, so a newer acbox does not break an older
// client.

/** The event kinds of contract 1. */
export const EVENT_KINDS = Object.freeze(['started', 'egress', 'exited', 'refused']);

/** Parses one line of the status stream; throws on anything that is not a JSON object with a string "event". */
export function parseEvent(line) {
  let value;
  try { value = JSON.parse(line); } catch (err) { throw new Error(`acbox status stream: not JSON: ${String(line).slice(0, 200)}`, { cause: err }); }
  if (!value || typeof value !== 'object' || Array.isArray(value) || typeof value.event !== 'string') {
    throw new Error(`acbox status stream: not an event: ${String(line).slice(0, 200)}`);
  }
  return value;
}

/** Calls onLine for every complete line of a readable stream, and onEnd once it ends. */
export function splitLines(stream, onLine, onEnd) {
  let rest = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk) => {
    const parts = (rest + chunk).split('\n');
    rest = parts.pop();
    for (const part of parts) if (part.trim()) onLine(part);
  });
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    if (rest.trim()) onLine(rest);
    onEnd?.();
  };
  stream.on('end', end);
  stream.on('close', end);
  stream.on('error', end);
}

/**
 * A buffer of events that any number of async iterators read from the start: each iterator sees every event, in
 * order, and ends when the stream ends. Events are kept for the sandbox's lifetime.
 */
export class EventLog {
  #events = [];
  #waiters = new Set();
  #ended = false;

  push(event) {
    if (this.#ended) return;
    this.#events.push(event);
    this.#wake();
  }

  end() {
    this.#ended = true;
    this.#wake();
  }

  get events() { return this.#events.slice(); }
  get ended() { return this.#ended; }

  /** The first event matching test, waiting for it; undefined if the stream ends first. */
  async find(test) {
    for await (const ev of this) if (test(ev)) return ev;
    return undefined;
  }

  #wake() {
    for (const w of this.#waiters) w();
    this.#waiters.clear();
  }

  async *[Symbol.asyncIterator]() {
    for (let i = 0; ; i++) {
      while (i >= this.#events.length) {
        if (this.#ended) return;
        await new Promise((resolve) => this.#waiters.add(resolve));
      }
      yield this.#events[i];
    }
  }
}
