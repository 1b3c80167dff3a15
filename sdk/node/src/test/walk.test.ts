import { test } from "node:test";
import assert from "node:assert/strict";
import { apiError, fakeServer, json, recordingSleep, TEST_KEY } from "./helpers.js";
import { BotixError, Client, InvalidPositionError, Position } from "../index.js";

const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
function ulid(n: number): string {
  let s = "";
  for (let i = 0; i < 26; i++) {
    s = CROCKFORD[n % 32] + s;
    n = Math.floor(n / 32);
  }
  return s;
}

/** A fake contacts list: ids newest first, pages of cursor_limit, cursors "c<offset>". */
async function listServer(count: number, o: { failAt?: Set<number> } = {}) {
  const items = Array.from({ length: count }, (_, i) => ({ id: "ct_" + ulid(count - i), phone: "+7", name: `c${i}`, tags: [], created_at: "" }));
  let requests = 0;
  const f = await fakeServer((s, res) => {
    requests++;
    if (o.failAt?.has(requests)) return apiError(res, 400, "INVALID_PARAMETER");
    const limit = Number(s.query.get("cursor_limit") ?? 20);
    const cursor = s.query.get("cursor");
    // After a deletion the same cursor still starts at the first item older than where the page began.
    const start = cursor ? items.findIndex((x) => x.id < cursor.slice(1)) : 0;
    const from = start < 0 ? items.length : start;
    const data = items.slice(from, from + limit);
    const more = from + limit < items.length;
    json(res, 200, { data, has_more: more, next_cursor: more ? "c" + items[from + limit - 1]!.id : null });
  });
  return { f, items };
}

function client(url: string) {
  return new Client({ apiKey: TEST_KEY, baseUrl: url, sleep: recordingSleep().sleep });
}

test("walk 1000 by 37, stop at any item, resume from the string in a new client", async (t) => {
  const { f, items } = await listServer(1000);
  try {
    const want = items.map((x) => x.id);
    for (const stopAfter of [1, 36, 37, 38, 500, 999, 1000]) {
      await t.test(`stop after ${stopAfter}`, async () => {
        const got: string[] = [];
        const w = client(f.url).contacts.list({ limit: 37 });
        let pos = "";
        for await (const c of w) {
          got.push(c.id);
          if (got.length === stopAfter) {
            pos = w.position.toString();
            break;
          }
        }
        assert.match(pos, /^p1\./);
        if (stopAfter % 37 !== 0 && stopAfter !== 1000) assert.equal(Position.parse(pos).after, want[stopAfter - 1], "the position names the item");
        for await (const c of client(f.url).contacts.list({ limit: 37 }, { from: pos })) got.push(c.id);
        assert.deepEqual(got, want);
      });
    }
    assert.ok(f.seen.every((s) => s.query.get("cursor_limit") === "37"));
  } finally {
    await f.close();
  }
});

test("resume after the saved item was deleted: nothing lost, nothing repeated", async () => {
  const { f, items } = await listServer(100);
  try {
    const got: string[] = [];
    const w = client(f.url).contacts.list({ limit: 10 });
    let pos = "";
    for await (const c of w) {
      got.push(c.id);
      if (got.length === 15) {
        pos = w.position.toString();
        break;
      }
    }
    const deleted = items.splice(14, 1)[0]!;
    assert.equal(Position.parse(pos).after, deleted.id);
    for await (const c of client(f.url).contacts.list({ limit: 10 }, { from: Position.parse(pos) })) got.push(c.id);
    assert.equal(got.length, 100);
    assert.equal(new Set(got).size, 100);
  } finally {
    await f.close();
  }
});

test("an error ends the walk; iterating the same walker again continues where it stood", async () => {
  const { f, items } = await listServer(50, { failAt: new Set([3]) });
  try {
    const w = client(f.url).contacts.list({ limit: 10 });
    const got: string[] = [];
    await assert.rejects(
      (async () => {
        for await (const c of w) got.push(c.id);
      })(),
      (e) => e instanceof BotixError && e.code === "INVALID_PARAMETER",
    );
    assert.equal(got.length, 20);
    for await (const c of w) got.push(c.id);
    assert.deepEqual(got, items.map((x) => x.id));
  } finally {
    await f.close();
  }
});

test("positions: text form round-trips; malformed strings are refused", () => {
  const cases = [new Position(), new Position("abc"), new Position("", "ct_01JDQ7X3ZV8N5W2K4R6T9Y1B3C"), new Position("eyJ.x-y_z", "ct_01JDQ7X3ZV8N5W2K4R6T9Y1B3C")];
  for (const p of cases) {
    const back = Position.parse(p.toString());
    assert.equal(back.cursor, p.cursor);
    assert.equal(back.after, p.after);
  }
  assert.equal(new Position("cur", "ct_01JDQ7X3ZV8N5W2K4R6T9Y1B3C").toString(), "p1.ct_01JDQ7X3ZV8N5W2K4R6T9Y1B3C.cur");
  assert.ok(Position.parse("").isStart);
  for (const bad of ["p2..x", "p1.", "p1.nope.x", "p1.ct_01JDQ7X3ZV8N5W2K4R6T9Y1B3C.a b", "x"]) {
    assert.throws(() => Position.parse(bad), InvalidPositionError, bad);
  }
});

test("a walk from a cursor parameter starts at that page", async () => {
  const { f, items } = await listServer(30);
  try {
    const got = await client(f.url).contacts.list({ limit: 10, cursor: "c" + items[9]!.id }).toArray();
    assert.deepEqual(got.map((x) => x.id), items.slice(10).map((x) => x.id));
  } finally {
    await f.close();
  }
});
