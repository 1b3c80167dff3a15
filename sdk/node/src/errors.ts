// Error types of the BOTIX client. Every failed call throws a BotixError
// (a subclass per kind), which carries what is needed to finish the
// operation: the Idempotency-Key every attempt sent and the attempt count.

/** The public error codes of the API (the "code" of the error envelope). A test checks them against the server's table. */
export const ErrorCode = {
  Unauthorized: "UNAUTHORIZED",
  InsufficientScope: "INSUFFICIENT_SCOPE",
  NotFound: "NOT_FOUND",
  InvalidJSON: "INVALID_JSON",
  UnsupportedMediaType: "UNSUPPORTED_MEDIA_TYPE",
  ValidationFailed: "VALIDATION_FAILED",
  InvalidParameter: "INVALID_PARAMETER",
  PayloadTooLarge: "PAYLOAD_TOO_LARGE",
  IdempotencyKeyRequired: "IDEMPOTENCY_KEY_REQUIRED",
  IdempotencyKeyInvalid: "IDEMPOTENCY_KEY_INVALID",
  IdempotencyKeyReuseConflict: "IDEMPOTENCY_KEY_REUSE_CONFLICT",
  IdempotencyKeyInProgress: "IDEMPOTENCY_KEY_IN_PROGRESS",
  ContactAlreadyExists: "CONTACT_ALREADY_EXISTS",
  EndpointDisabled: "ENDPOINT_DISABLED",
  InvalidCursor: "INVALID_CURSOR",
  OffsetTooLarge: "OFFSET_TOO_LARGE",
  LimitExceeded: "LIMIT_EXCEEDED",
  RetryCooldown: "RETRY_COOLDOWN",
  ServiceUnavailable: "SERVICE_UNAVAILABLE",
  Internal: "INTERNAL",
} as const;

/** One of the API's error codes. */
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/**
 * What made a call fail:
 * - `api`: the API answered with an error that retrying does not change (or a 3xx, which is never followed);
 * - `gave_up`: every attempt the retry policy allows failed in a retryable way (`lastFailure` says how the
 *   last one failed: `api` answer, `transport` error, or attempt `timeout`);
 * - `quota`: the client's retry quota stopped retrying (most recent calls failed);
 * - `invalid_key`: the caller's Idempotency-Key is not a UUIDv4 or a ULID; nothing was sent;
 * - `deadline`: the caller's AbortSignal ended the call;
 * - `encode` / `decode`: the request does not encode to JSON / a success answer does not decode.
 */
export type ErrorKind = "api" | "gave_up" | "quota" | "invalid_key" | "deadline" | "encode" | "decode";

/** How one attempt failed: an error answer, a connection error, or the attempt timeout. */
export type AttemptFailure = "api" | "transport" | "timeout";

/** The fields of a BotixError. */
export interface BotixErrorFields {
  kind: ErrorKind;
  method: string;
  path: string;
  status?: number;
  code?: string;
  apiMessage?: string;
  field?: string;
  details?: Record<string, string>;
  requestId?: string;
  retryAfterMs?: number;
  idempotencyKey?: string;
  attempts: number;
  lastFailure?: AttemptFailure;
  cause?: unknown;
}

/** Whether an API answer is worth retrying with the same key: 429, a 5xx, or 409 IDEMPOTENCY_KEY_IN_PROGRESS. */
export function retryableAnswer(status: number, code: string): boolean {
  return status === 429 || status >= 500 || code === ErrorCode.IdempotencyKeyInProgress;
}

/**
 * The error of every call. It does not say that a mutating operation did not
 * happen: an attempt may have reached the API and its answer been lost. When
 * `reissuable` is true, call the same method with the same arguments and
 * `err.reissue()` as the options (the same Idempotency-Key): the API replays
 * the stored result or runs the operation once. A new key is a new operation.
 */
export class BotixError extends Error {
  override name = "BotixError";
  readonly kind: ErrorKind;
  /** The route called, e.g. POST /contacts. */
  readonly method: string;
  readonly path: string;
  /** HTTP status of the (last) answer; 0 when no answer came. */
  readonly status: number;
  /** The API's error code; "" when the answer was not the error envelope or none came. */
  readonly code: string;
  /** The API's message ("" when none). */
  readonly apiMessage: string;
  /** The offending field of VALIDATION_FAILED and INVALID_PARAMETER. */
  readonly field: string;
  /** A message per field. */
  readonly details: Record<string, string>;
  readonly requestId: string;
  /** The server's Retry-After in milliseconds (0 when absent). */
  readonly retryAfterMs: number;
  /** The key every attempt of a mutating call sent ("" for a GET). */
  readonly idempotencyKey: string;
  /** How many HTTP attempts were made (0: nothing was sent). */
  readonly attempts: number;
  /** How the last attempt failed (undefined when none was made). */
  readonly lastFailure: AttemptFailure | undefined;

  constructor(f: BotixErrorFields) {
    super(describe(f), f.cause === undefined ? undefined : { cause: f.cause });
    this.kind = f.kind;
    this.method = f.method;
    this.path = f.path;
    this.status = f.status ?? 0;
    this.code = f.code ?? "";
    this.apiMessage = f.apiMessage ?? "";
    this.field = f.field ?? "";
    this.details = f.details ?? {};
    this.requestId = f.requestId ?? "";
    this.retryAfterMs = f.retryAfterMs ?? 0;
    this.idempotencyKey = f.idempotencyKey ?? "";
    this.attempts = f.attempts;
    this.lastFailure = f.lastFailure;
  }

  /**
   * Whether calling again with reissue() can end differently: false when the
   * API refused the request itself (a 4xx other than 409
   * IDEMPOTENCY_KEY_IN_PROGRESS and 429, or a 3xx), nothing could be sent
   * (invalid key, a body that does not encode), or the answer does not
   * decode (a replay is the same bytes); true otherwise.
   */
  get reissuable(): boolean {
    switch (this.kind) {
      case "invalid_key":
      case "encode":
      case "decode":
        return false;
      case "api":
        return retryableAnswer(this.status, this.code);
      default:
        return true;
    }
  }

  /** The call options that re-issue the same operation: the same Idempotency-Key. Pass them with the same arguments. */
  reissue(): { idempotencyKey?: string } {
    return this.idempotencyKey ? { idempotencyKey: this.idempotencyKey } : {};
  }
}

/** The API answered with an error (kind "api"). */
export class ApiError extends BotixError {
  override name = "ApiError";
}
/** Every attempt the retry policy allows failed (kind "gave_up"); status and code are the last answer's. */
export class GaveUpError extends BotixError {
  override name = "GaveUpError";
}
/** The retry quota is exhausted because most recent calls failed (kind "quota"). */
export class RetryQuotaExceededError extends BotixError {
  override name = "RetryQuotaExceededError";
}
/** The caller's Idempotency-Key is not a UUIDv4 or a ULID; nothing was sent (kind "invalid_key"). */
export class InvalidIdempotencyKeyError extends BotixError {
  override name = "InvalidIdempotencyKeyError";
}
/** The caller's AbortSignal ended the call (kind "deadline"). */
export class AbortedError extends BotixError {
  override name = "AbortedError";
}
/** The request did not encode or the success answer did not decode (kind "encode" / "decode"). */
export class CodecError extends BotixError {
  override name = "CodecError";
}

function describe(f: BotixErrorFields): string {
  let s = `botix: ${f.method} ${f.path} (`;
  if (f.idempotencyKey) s += `Idempotency-Key ${f.idempotencyKey}, `;
  s += `${f.attempts} attempts): `;
  switch (f.kind) {
    case "gave_up":
      s += "gave up: every attempt the retry policy allows failed";
      break;
    case "quota":
      s += "not retried: the client's retry quota is exhausted because most recent calls failed";
      break;
    case "invalid_key":
      s += "the Idempotency-Key must be a UUIDv4 or a ULID";
      break;
    case "deadline":
      s += "aborted by the caller";
      break;
    case "encode":
      s += "the request does not encode to JSON";
      break;
    case "decode":
      s += "the answer does not decode";
      break;
    case "api":
      break;
  }
  if (f.status) {
    s += `${f.kind === "api" ? "" : "; the last answer: "}HTTP ${f.status}`;
    if (f.code) s += ` ${f.code}`;
    if (f.apiMessage) s += `: ${f.apiMessage}`;
    if (f.requestId) s += ` (request_id ${f.requestId})`;
  } else if (f.cause instanceof Error && f.kind !== "invalid_key") {
    s += `; ${f.cause.message}`;
  }
  return s;
}
