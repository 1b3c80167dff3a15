<?php

declare(strict_types=1);

namespace Botix\Webhook;

/**
 * Verifies, de-duplicates and passes each event to $process. Its answers tell BOTIX what to do:
 *
 * - 200 for a processed event, and for a copy of an event whose processing completed (not processed again);
 * - 503 without Retry-After for a copy that arrives while another copy is being processed (BOTIX retries
 *   that delivery on its schedule, so if that processing fails the event is still delivered; a Retry-After
 *   would make BOTIX pause the whole endpoint, as on a 429; not 409, which would end the delivery);
 * - 500 when $process throws (the id is forgotten, so BOTIX's retry is processed);
 * - 401 for a bad signature; 400 for a body that is not a BOTIX event; 405 for a method other than POST;
 * - 413 for a body over 1 MiB; 503 when the deduplicator cannot be asked.
 *
 * In plain PHP: `$handler->serve();` reads php://input and the $_SERVER headers and sends the answer.
 */
final class Handler
{
    public const MAX_BODY = 1 << 20;

    /** @var \Closure(Event):void */
    private \Closure $process;
    /** @var (\Closure(string,array<string,mixed>):void)|null */
    private ?\Closure $logger;
    /** @var (\Closure():int)|null */
    private ?\Closure $now;

    /**
     * @param callable(Event):void $process throws to fail the processing
     * @param (callable(string,array<string,mixed>):void)|null $logger one line per failure (null: error_log)
     * @param (callable():int)|null $now unix seconds
     */
    public function __construct(
        private readonly Verifier $verifier,
        private readonly Deduplicator $dedup,
        callable $process,
        ?callable $logger = null,
        ?callable $now = null,
    ) {
        $this->process = \Closure::fromCallable($process);
        $this->logger = $logger !== null ? \Closure::fromCallable($logger) : null;
        $this->now = $now !== null ? \Closure::fromCallable($now) : null;
    }

    /**
     * Handles one request (a PSR-7-like triple).
     *
     * @param array<string,string|list<string>> $headers
     */
    public function handle(string $method, array $headers, string $body): HandlerResponse
    {
        if (strtoupper($method) !== 'POST') {
            return new HandlerResponse(405, 'POST only', ['Allow' => 'POST']);
        }
        if (strlen($body) > self::MAX_BODY) {
            return new HandlerResponse(413, 'body too large');
        }
        $h = Verifier::normalize($headers);
        try {
            $this->verifier->verify($h, $body, $this->now !== null ? ($this->now)() : null);
        } catch (VerificationException $e) {
            $this->log('webhook rejected', ['reason' => $e->reason(), 'webhook_id' => $h['webhook-id'] ?? '']);
            return new HandlerResponse(401, 'invalid signature');
        }
        $data = json_decode($body, true);
        $ev = is_array($data) ? Event::fromArray($data) : null;
        if ($ev === null || $ev->id === '') {
            return new HandlerResponse(400, 'not a BOTIX event');
        }
        try {
            $state = $this->dedup->begin($ev->id);
        } catch (\Throwable $e) {
            $this->log('deduplicator unavailable', ['error' => $e->getMessage(), 'event_id' => $ev->id]);
            return new HandlerResponse(503, 'try again');
        }
        return match ($state) {
            State::Unseen => $this->process($ev),
            State::Done => new HandlerResponse(200), // already processed: acknowledge, do nothing
            // Not 200: if the copy being processed fails, this one must come back.
            // No Retry-After: BOTIX would pause every delivery of the endpoint, not only this one.
            State::Processing => new HandlerResponse(503, 'event is being processed; retry later'),
        };
    }

    /**
     * Handles the current request of plain PHP (php://input, $_SERVER) and sends the answer.
     */
    public function serve(): HandlerResponse
    {
        $in = fopen('php://input', 'rb');
        $body = $in === false ? '' : (string) stream_get_contents($in, self::MAX_BODY + 1);
        if ($in !== false) {
            fclose($in);
        }
        $resp = $this->handle((string) ($_SERVER['REQUEST_METHOD'] ?? 'GET'), self::serverHeaders($_SERVER), $body);
        $resp->emit();
        return $resp;
    }

    /**
     * The request headers of a $_SERVER array (HTTP_* entries, plus CONTENT_TYPE/CONTENT_LENGTH).
     *
     * @param array<string,mixed> $server
     * @return array<string,string>
     */
    public static function serverHeaders(array $server): array
    {
        $out = [];
        foreach ($server as $k => $v) {
            if (!is_string($v)) {
                continue;
            }
            if (str_starts_with($k, 'HTTP_')) {
                $out[strtolower(str_replace('_', '-', substr($k, 5)))] = $v;
            } elseif ($k === 'CONTENT_TYPE' || $k === 'CONTENT_LENGTH') {
                $out[strtolower(str_replace('_', '-', $k))] = $v;
            }
        }
        return $out;
    }

    private function process(Event $ev): HandlerResponse
    {
        try {
            ($this->process)($ev);
        } catch (\Throwable $e) {
            try {
                $this->dedup->forget($ev->id);
            } catch (\Throwable $fe) {
                $this->log('forgetting a failed event failed; a retry waits for the lease', ['error' => $fe->getMessage(), 'event_id' => $ev->id]);
            }
            $this->log('webhook processing failed; BOTIX will retry', ['error' => $e->getMessage(), 'event_id' => $ev->id]);
            return new HandlerResponse(500, 'processing failed');
        }
        try {
            $this->dedup->complete($ev->id);
        } catch (\Throwable $e) {
            // Processed: acknowledge it. A 500 would bring a retry that, after the lease, processes it again.
            $this->log('recording a processed event failed; a redelivery after the lease would process it again', ['error' => $e->getMessage(), 'event_id' => $ev->id]);
        }
        return new HandlerResponse(200);
    }

    /** @param array<string,mixed> $ctx */
    private function log(string $msg, array $ctx): void
    {
        if ($this->logger !== null) {
            ($this->logger)($msg, $ctx);
            return;
        }
        error_log('botix: ' . $msg . ' ' . json_encode($ctx));
    }
}
