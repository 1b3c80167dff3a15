import { BotixError, Client, type Contact, type ContactCreate, type Page } from "@botix/sdk";
import { Verifier, WebhookVerificationError } from "@botix/sdk/webhook";

const client = new Client();

export async function tagAll(tag: string): Promise<number> {
  const first: Page<Contact> = await client.contacts.listPage({ limit: 20 });
  let count = first.data.length;
  for await (const c of client.contacts.list({ tag })) count += c.tags.includes(tag) ? 1 : 0;
  return count;
}

export async function createOnce(input: ContactCreate, jobKey: string): Promise<string> {
  try {
    // A key of your own (a UUIDv4 or a ULID kept with the job) survives a restart.
    const c = await client.contacts.create(input, { idempotencyKey: jobKey });
    return c.id;
  } catch (err) {
    if (err instanceof BotixError && err.kind === "invalid_key") throw new Error("the job key is not a UUIDv4 or a ULID");
    throw err;
  }
}

export function isGenuine(headers: Headers, body: Uint8Array, secrets: string[]): boolean {
  try {
    new Verifier({ secrets }).verify(headers, body);
    return true;
  } catch (err) {
    if (err instanceof WebhookVerificationError) return false; // err.reason says why
    throw err;
  }
}
