<?php

declare(strict_types=1);

namespace Botix\Webhook;

/** A webhook request does not verify; reason() tells why (one of the constants). */
final class VerificationException extends \RuntimeException
{
    /** Neither X-Botix-Signature nor webhook-signature. */
    public const NO_SIGNATURE = 'no_signature';
    /** X-Botix-Signature alone, which carries no timestamp (see Verifier allowLegacy). */
    public const UNTIMED_SIGNATURE = 'untimed_signature';
    /** No signature matches any of the secrets. */
    public const BAD_SIGNATURE = 'bad_signature';
    /** webhook-timestamp is missing or not a number. */
    public const BAD_TIMESTAMP = 'bad_timestamp';
    /** webhook-timestamp is outside the tolerance (a replay?). */
    public const STALE = 'stale';
    /** A secret is not "whsec_" + base64. */
    public const BAD_SECRET = 'bad_secret';

    public function __construct(private readonly string $reason, string $message)
    {
        parent::__construct($message);
    }

    public function reason(): string
    {
        return $this->reason;
    }
}
