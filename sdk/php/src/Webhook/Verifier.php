<?php

declare(strict_types=1);

namespace Botix\Webhook;

/**
 * Verifies BOTIX webhook requests with the endpoint's secrets (more than one during a rotation).
 *
 * A request is judged by the timestamped Standard Webhooks signature (webhook-id, webhook-timestamp,
 * webhook-signature: space-separated "v1,<base64 HMAC-SHA256 of id.timestamp.body>" entries) when it
 * carries one; X-Botix-Signature (comma-separated hex HMAC-SHA256 of the body) is then not read. A
 * request with X-Botix-Signature alone is refused unless allowLegacy is set: it has no timestamp, so
 * a captured one could be replayed forever. Comparisons are constant-time (hash_equals).
 */
final class Verifier
{
    public const DEFAULT_TOLERANCE_S = 300;

    /** @var list<string> the HMAC keys */
    private array $keys = [];

    /**
     * @param list<string> $secrets "whsec_<base64>" secrets, newest first
     * @param int $toleranceS bounds |now - webhook-timestamp|; 0 means 5 minutes
     */
    public function __construct(
        array $secrets,
        public readonly int $toleranceS = 0,
        public readonly bool $allowLegacy = false,
    ) {
        foreach ($secrets as $s) {
            $this->keys[] = self::key($s);
        }
    }

    /**
     * Throws VerificationException unless the request verifies.
     *
     * @param array<string,string|list<string>> $headers names in any case
     * @param int|null $now unix seconds; null: time()
     */
    public function verify(array $headers, string $body, ?int $now = null): void
    {
        $h = self::normalize($headers);
        $std = $h['webhook-signature'] ?? '';
        $legacy = $h['x-botix-signature'] ?? '';
        if ($std !== '') {
            // A bad webhook-signature is not excused by X-Botix-Signature.
            $this->verifyStandard($h, $body, $std, $now ?? time());
            return;
        }
        if ($legacy === '') {
            throw new VerificationException(VerificationException::NO_SIGNATURE, 'webhook: no X-Botix-Signature or webhook-signature header');
        }
        if (!$this->allowLegacy) {
            throw new VerificationException(VerificationException::UNTIMED_SIGNATURE, 'webhook: only X-Botix-Signature, which carries no timestamp; webhook-signature is required');
        }
        $candidates = array_map(static fn (string $c): string => strtolower(trim($c)), explode(',', $legacy));
        if (!self::anyMatch($this->keys, static fn (string $k): string => hash_hmac('sha256', $body, $k), $candidates)) {
            throw new VerificationException(VerificationException::BAD_SIGNATURE, 'webhook: signature does not match');
        }
    }

    /** Whether the request verifies (verify() without the reason). */
    public function isValid(array $headers, string $body, ?int $now = null): bool
    {
        try {
            $this->verify($headers, $body, $now);
            return true;
        } catch (VerificationException) {
            return false;
        }
    }

    /** @param array<string,string> $h */
    private function verifyStandard(array $h, string $body, string $sigs, int $now): void
    {
        $tsRaw = $h['webhook-timestamp'] ?? '';
        if (preg_match('/^-?[0-9]{1,19}$/D', $tsRaw) !== 1) {
            throw new VerificationException(VerificationException::BAD_TIMESTAMP, 'webhook: invalid webhook-timestamp');
        }
        $ts = (int) $tsRaw;
        $tol = $this->toleranceS > 0 ? $this->toleranceS : self::DEFAULT_TOLERANCE_S;
        if (abs($now - $ts) > $tol) {
            throw new VerificationException(VerificationException::STALE, 'webhook: timestamp outside the tolerance');
        }
        $id = $h['webhook-id'] ?? '';
        $candidates = [];
        foreach (preg_split('/\s+/', trim($sigs)) ?: [] as $part) {
            $p = explode(',', $part, 2);
            if (count($p) === 2 && $p[0] === 'v1') {
                $candidates[] = $p[1];
            }
        }
        $signed = static fn (string $k): string => base64_encode(hash_hmac('sha256', $id . '.' . $ts . '.' . $body, $k, true));
        if (!self::anyMatch($this->keys, $signed, $candidates)) {
            throw new VerificationException(VerificationException::BAD_SIGNATURE, 'webhook: signature does not match');
        }
    }

    /**
     * Compares every expected signature with every candidate in constant time.
     *
     * @param list<string> $keys
     * @param callable(string):string $expected
     * @param list<string> $candidates
     */
    private static function anyMatch(array $keys, callable $expected, array $candidates): bool
    {
        $ok = false;
        foreach ($keys as $k) {
            $want = $expected($k);
            foreach ($candidates as $c) {
                if (hash_equals($want, $c)) {
                    $ok = true;
                }
            }
        }
        return $ok;
    }

    private static function key(string $secret): string
    {
        if (!str_starts_with($secret, 'whsec_')) {
            throw new VerificationException(VerificationException::BAD_SECRET, 'webhook: secret must be whsec_ followed by base64');
        }
        $k = base64_decode(substr($secret, 6), true);
        if ($k === false || $k === '') {
            throw new VerificationException(VerificationException::BAD_SECRET, 'webhook: secret must be whsec_ followed by base64');
        }
        return $k;
    }

    /**
     * Header names lower-cased; a repeated header's values joined as HTTP would (", ").
     *
     * @param array<string,string|list<string>> $headers
     * @return array<string,string>
     */
    public static function normalize(array $headers): array
    {
        $out = [];
        foreach ($headers as $k => $v) {
            $out[strtolower((string) $k)] = is_array($v) ? implode(', ', $v) : (string) $v;
        }
        return $out;
    }
}
