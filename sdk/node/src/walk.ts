// Cursor walks that can be stopped at any item and resumed from a saved
// position string, in this process or another (the string is the same in
// every BOTIX SDK: "p1.<item id>.<page cursor>").

import type { ResponseInfo } from "./client.js";

/** One page of a list. nextCursor continues it ("" on the last page). */
export interface Page<T> {
  data: T[];
  nextCursor: string;
  hasMore: boolean;
  response: ResponseInfo;
}

const PREFIX = "p1.";
const ITEM_ID = /^[a-z]+_[0-9A-HJKMNP-TV-Z]{26}$/;

/** The error of Position.parse for a string that is not a position. */
export class InvalidPositionError extends Error {
  override name = "InvalidPositionError";
  constructor() {
    super("botix: not a list position");
  }
}

/**
 * Where a walk of a list stands: the cursor of the page that holds the last
 * item handled ("" for the first page) and that item's id ("" when no item of
 * that page is handled yet). Resuming fetches that page again and skips its
 * leading items whose id is >= the saved id: lists are newest first by id and
 * ids sort by creation time, so this holds even if the item was deleted
 * meanwhile. A position belongs to one list with its filters.
 */
export class Position {
  constructor(
    readonly cursor: string = "",
    readonly after: string = "",
  ) {}

  /** The start of the list. */
  static readonly start = new Position();

  /** Reads the text form (toString). "" is the start of the list. */
  static parse(s: string): Position {
    if (s === "") return Position.start;
    if (!s.startsWith(PREFIX)) throw new InvalidPositionError();
    const rest = s.slice(PREFIX.length);
    const dot = rest.indexOf(".");
    if (dot < 0) throw new InvalidPositionError();
    const after = rest.slice(0, dot);
    const cursor = rest.slice(dot + 1);
    if ((after !== "" && !ITEM_ID.test(after)) || /[ \t\r\n]/.test(cursor)) throw new InvalidPositionError();
    return new Position(cursor, after);
  }

  /** The stable text form to store: "p1.<item id>.<page cursor>". Treat it as opaque. */
  toString(): string {
    return PREFIX + this.after + "." + this.cursor;
  }

  toJSON(): string {
    return this.toString();
  }

  get isStart(): boolean {
    return this.cursor === "" && this.after === "";
  }
}

/**
 * Walks one list, newest first, item by item (`for await`), and knows where it
 * stands after every item it yields (`position`). Leaving the loop (break, an
 * error of a page fetch) keeps the position; iterating again — this walker, or
 * a new one started at the saved position — continues with the next item:
 * none lost, none repeated. Not for concurrent iteration.
 */
export class Walker<T extends { id: string }> implements AsyncIterable<T> {
  #pos: Position;
  constructor(
    private readonly fetchPage: (cursor: string) => Promise<Page<T>>,
    from: Position,
  ) {
    this.#pos = from;
  }

  /** Past the last item yielded: read in the loop body, it already counts the item being handled, so save it once that item is done. */
  get position(): Position {
    return this.#pos;
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    let { cursor, after } = this.#pos;
    for (;;) {
      const page = await this.fetchPage(cursor);
      const more = page.hasMore && page.nextCursor !== "";
      for (let i = 0; i < page.data.length; i++) {
        const item = page.data[i]!;
        if (after !== "" && item.id >= after) continue; // handled before the walk stopped
        after = "";
        // The last item of a page that has a next one: resuming starts at the next page.
        this.#pos = more && i === page.data.length - 1 ? new Position(page.nextCursor) : new Position(cursor, item.id);
        yield item;
      }
      if (!more) return;
      cursor = page.nextCursor;
      after = "";
      this.#pos = new Position(cursor);
    }
  }

  /** Every remaining item, in order (for small lists). */
  async toArray(): Promise<T[]> {
    const out: T[] = [];
    for await (const x of this) out.push(x);
    return out;
  }
}
