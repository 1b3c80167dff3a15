<?php

declare(strict_types=1);

namespace Botix\Exception;

/**
 * The error of every call that reached the client's retry loop. It carries what is needed to finish
 * the operation: the Idempotency-Key every attempt sent and how many attempts were made, plus the
 * last answer's status, code, message, field, details, request id and Retry-After when there was one.
 *
 * An error of a mutating call does not say the operation did not happen: an attempt may have reached
 * the API and its answer been lost. To finish it, call the same method with the same arguments and
 * `idempotencyKey: $e->idempotencyKey` (always safe: the API replays the stored result or runs the
 * operation once). That is pointless when isReissuable() is false: the API refused the request itself.
 *
 * Subclasses name the kind: ApiException, TransportException, TimeoutException, GaveUpException,
 * QuotaExhaustedException, InvalidIdempotencyKeyException, EncodeException, DecodeException.
 * Messages never contain the API key.
 */
abstract class BotixException extends \RuntimeException
{
    /**
     * @param array<string,string> $details
     */
    public function __construct(
        string $message,
        /** The API route called, e.g. POST /contacts. */
        public readonly string $method,
        public readonly string $path,
        /** The key every attempt of a mutating call sent ('' for a GET). */
        public readonly string $idempotencyKey,
        /** HTTP attempts made (0: nothing was sent). */
        public readonly int $attempts,
        /** The last answer's HTTP status (0 when no answer came). */
        public readonly int $status = 0,
        /** The last answer's API error code ('' when it was not the API's envelope). */
        public readonly string $apiCode = '',
        /** The last answer's error message. */
        public readonly string $apiMessage = '',
        public readonly string $field = '',
        public readonly array $details = [],
        public readonly string $requestId = '',
        /** The last answer's Retry-After in seconds (0 when absent). */
        public readonly float $retryAfter = 0.0,
        ?\Throwable $previous = null,
    ) {
        parent::__construct($message, 0, $previous);
    }

    /** What kind() returns; each subclass names its own. */
    protected const KIND = '';

    /** The kind of failure: api, transport, timeout, gave_up, quota, invalid_key, encode, decode. */
    public function kind(): string
    {
        return static::KIND;
    }

    /**
     * Whether calling again with the same key can end differently: false when the API refused the
     * request itself (ApiException: a 4xx other than 409 IDEMPOTENCY_KEY_IN_PROGRESS and 429), when
     * nothing could be sent (invalid_key, encode) or when the success answer did not decode (decode).
     */
    public function isReissuable(): bool
    {
        return !in_array(static::KIND, ['invalid_key', 'encode', 'decode'], true);
    }

    /** @internal whether an answer with this status and code is worth retrying */
    public static function retryableAnswer(int $status, string $code): bool
    {
        return $status === 429 || $status >= 500 || $code === \Botix\ErrorCode::IDEMPOTENCY_KEY_IN_PROGRESS;
    }
}
