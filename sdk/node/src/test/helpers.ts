// A local fake HTTP server for the client's own tests: each request is
// recorded and answered by a handler the test gives.

import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";

export interface Seen {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage["headers"];
  body: string;
}

export type Handler = (req: Seen, res: ServerResponse, n: number) => unknown;

export interface Fake {
  url: string;
  seen: Seen[];
  close(): Promise<void>;
}

export async function fakeServer(handler: Handler): Promise<Fake> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const u = new URL(req.url ?? "/", "http://x");
      const s: Seen = { method: req.method ?? "", path: u.pathname, query: u.searchParams, headers: req.headers, body: Buffer.concat(chunks).toString("utf8") };
      seen.push(s);
      void Promise.resolve(handler(s, res, seen.length)).catch((e) => {
        res.statusCode = 599;
        res.end(String(e));
      });
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "Content-Type": "application/json", "X-Request-Id": "req_test", ...headers });
  res.end(JSON.stringify(body));
}

export function apiError(res: ServerResponse, status: number, code: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}): void {
  json(res, status, { error: { code, message: `${code} message`, request_id: "req_err", ...extra } }, headers);
}

/** A sleeper that records the delays instead of waiting. */
export function recordingSleep(): { delays: number[]; sleep: (ms: number) => Promise<void> } {
  const delays: number[] = [];
  return { delays, sleep: async (ms: number) => void delays.push(ms) };
}

/** sdk/node, from dist/test/*.js. */
export const SDK_DIR = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
/** The repository's root. */
export const REPO_DIR = join(SDK_DIR, "..", "..");

export const TEST_KEY = "bx_test_secretsecretsecretsecretsecretsecret00";
