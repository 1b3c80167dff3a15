<?php

declare(strict_types=1);

// Create a contact with retries, list contacts with a resumable walk, and handle errors.
// BOTIX_API_URL and BOTIX_API_KEY come from the environment.

require __DIR__ . '/vendor/autoload.php';

use Botix\Client;
use Botix\Exception\ApiException;
use Botix\Exception\BotixException;
use Botix\ErrorCode;
use Botix\Model\ContactCreate;
use Botix\RetryPolicy;

$client = new Client(
    (string) getenv('BOTIX_API_KEY'),
    retryPolicy: new RetryPolicy(maxAttempts: 5), // the defaults, spelled out
    attemptTimeoutMs: 10000,
);

// Create: one Idempotency-Key for the call, the same on every retry.
$phone = '+7999' . random_int(10000000, 99999999);
$in = new ContactCreate(phone: $phone, name: 'Ivan', tags: ['vip']);
try {
    $contact = $client->contacts->create($in);
} catch (BotixException $e) {
    if (!$e->isReissuable()) {
        throw $e; // the API refused the request itself: change it first
    }
    // The answer may have been lost after the API acted: the same key makes this the same operation.
    $contact = $client->contacts->create($in, idempotencyKey: $e->idempotencyKey);
}
printf("created %s (attempts %d, replayed %s)\n", $contact->id, $contact->response->attempts, $contact->response->replayed ? 'yes' : 'no');

// Errors are typed by the API's codes.
try {
    $client->contacts->create(new ContactCreate(phone: $phone, name: 'Ivan again'));
} catch (ApiException $e) {
    if ($e->apiCode === ErrorCode::CONTACT_ALREADY_EXISTS) {
        printf("already exists (HTTP %d, request %s)\n", $e->status, $e->requestId);
    }
}

// Iterate: a walker fetches page after page; its position string resumes the walk later.
$walker = $client->contacts->walk(limit: 50, tag: 'vip');
$seen = 0;
foreach ($walker as $c) {
    $seen++;
    if ($seen === 3) {
        break;
    }
}
$saved = $walker->position()->toString(); // store it, e.g. in your database
foreach ($client->contacts->walk(limit: 50, tag: 'vip', from: $saved) as $c) {
    $seen++;
}
printf("walked %d vip contacts\n", $seen);
