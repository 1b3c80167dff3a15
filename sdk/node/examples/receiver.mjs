import { createServer } from "node:http";
import { createWebhookHandler, MemoryDeduplicator } from "@botix/sdk";

// The endpoint's secrets: during a rotation, the new one and the previous one.
// BOTIX_WEBHOOK_SECRETS: the endpoint's secrets, comma-separated, the newest first during a rotation.
const secrets = (process.env.BOTIX_WEBHOOK_SECRETS ?? "").split(",").map((s) => s.trim()).filter(Boolean);

const handler = createWebhookHandler({
  secrets,
  // In-memory for one process; SqlDeduplicator shares the state between processes.
  dedup: new MemoryDeduplicator(),
  async process(event) {
    // Runs once per event id: 200 after it, 500 (and a retry) if it throws,
    // 503 (without Retry-After) to a copy that arrives meanwhile.
    console.log(`processed ${event.id} ${event.type}`);
  },
});

const server = createServer(handler).listen(Number(process.env.PORT ?? 3000), "127.0.0.1", () => {
  console.log(`listening on http://127.0.0.1:${server.address().port}/`);
});
