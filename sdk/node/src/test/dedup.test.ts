// The Deduplicator contract (the Go kit's DeduplicatorContract), run on the
// in-memory store and on the SQL store over a real SQLite (sql.js, WebAssembly).

import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { type Deduplicator, type DedupOptions, MemoryDeduplicator, SqlDeduplicator, type SqlQuery } from "../webhook.js";

const require = createRequire(import.meta.url);
const initSqlJs = require("sql.js") as typeof import("sql.js");

/** A SQL callback over one sql.js database; every statement yields to the event loop first, as a real driver does. */
async function sqlite(): Promise<{ query: SqlQuery; statements: string[] }> {
  const SQL = await initSqlJs();
  const db = new SQL.Database();
  const statements: string[] = [];
  const query: SqlQuery = async (sql, params) => {
    await new Promise((r) => setImmediate(r));
    statements.push(sql);
    const st = db.prepare(sql);
    try {
      st.bind(params as never);
      const rows: Record<string, unknown>[] = [];
      while (st.step()) rows.push(st.getAsObject());
      return rows;
    } finally {
      st.free();
    }
  };
  return { query, statements };
}

type Make = (o: DedupOptions) => Promise<Deduplicator>;

const stores: [string, Make][] = [
  ["memory", async (o) => new MemoryDeduplicator(o)],
  [
    "sql (sqlite)",
    async (o) => {
      const { query } = await sqlite();
      const d = new SqlDeduplicator(query, o);
      await query(d.createTableSQL, []);
      return d;
    },
  ],
];

for (const [name, make] of stores) {
  test(`${name}: the three states`, async () => {
    const d = await make({});
    assert.equal(await d.begin("evt_1"), "unseen");
    assert.equal(await d.begin("evt_1"), "processing");
    await d.complete("evt_1");
    assert.equal(await d.begin("evt_1"), "done");
    await d.forget("evt_1");
    assert.equal(await d.begin("evt_1"), "done", "forget leaves a done id done");
    assert.equal(await d.begin("evt_2"), "unseen");
    await d.forget("evt_2");
    assert.equal(await d.begin("evt_2"), "unseen", "a forgotten id is processed again");
  });

  test(`${name}: of concurrent begins, exactly one is unseen`, async () => {
    const d = await make({});
    for (let round = 0; round < 5; round++) {
      const states = await Promise.all(Array.from({ length: 50 }, () => d.begin(`evt_c${round}`)));
      assert.equal(states.filter((s) => s === "unseen").length, 1, states.join(","));
      assert.equal(states.filter((s) => s === "processing").length, 49);
    }
  });

  test(`${name}: a lease runs out (a crashed processor), and a late failure does not undo a completion`, async () => {
    let now = 1_000_000;
    const d = await make({ leaseMs: 1000, retentionMs: 10_000, now: () => now });
    assert.equal(await d.begin("evt_l"), "unseen");
    now += 999;
    assert.equal(await d.begin("evt_l"), "processing");
    now += 1;
    assert.equal(await d.begin("evt_l"), "unseen", "taken over after the lease");
    const concurrent = await Promise.all([d.begin("evt_l"), d.begin("evt_l")]);
    assert.deepEqual(concurrent, ["processing", "processing"]);
    await d.complete("evt_l"); // the copy that took over succeeds
    await d.forget("evt_l"); // the replaced processor fails late
    assert.equal(await d.begin("evt_l"), "done");
    now += 10_000;
    assert.equal(await d.begin("evt_l"), "unseen", "retention over");
    now += 1000;
    const after = await Promise.all(Array.from({ length: 10 }, () => d.begin("evt_l")));
    assert.equal(after.filter((s) => s === "unseen").length, 1, "an expired claim is taken over once");
  });
}

test("sql: $n placeholders for PostgreSQL drivers; the table name is checked", async () => {
  const seen: [string, unknown[]][] = [];
  const d = new SqlDeduplicator(async (sql, params) => (seen.push([sql, params]), []), { placeholders: "$n", table: "wh_events" });
  assert.equal(await d.begin("evt_p"), "processing", "no row read back: not ours");
  assert.ok(seen.every(([sql]) => !sql.includes("?")));
  assert.match(seen[1]![0], /VALUES \(\$1, 'processing', \$2, \$3\)/);
  assert.match(seen[1]![0], /wh_events/);
  assert.throws(() => new SqlDeduplicator(async () => [], { table: "x; DROP TABLE y" }), TypeError);
});
