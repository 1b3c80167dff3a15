<?php

declare(strict_types=1);

namespace Botix;

/**
 * The API routes the client's methods call: operation => [HTTP method, path under /public/v1].
 * Every method goes through this table (Client::call), so it is the SDK's route list.
 */
final class Routes
{
    public const PREFIX = '/public/v1';

    public const TABLE = [
        'contacts.create' => ['POST', '/contacts'],
        'contacts.list' => ['GET', '/contacts'],
        'contacts.get' => ['GET', '/contacts/{id}'],
        'contacts.count' => ['GET', '/contacts/count'],
        'messages.send' => ['POST', '/messages'],
        'messages.list' => ['GET', '/messages'],
        'catalog.import' => ['POST', '/catalog/imports'],
        'scenarios.run' => ['POST', '/scenarios/{scenario_id}/runs'],
        'webhookEndpoints.create' => ['POST', '/webhook-endpoints'],
        'webhookEndpoints.list' => ['GET', '/webhook-endpoints'],
        'webhookEndpoints.get' => ['GET', '/webhook-endpoints/{id}'],
        'webhookEndpoints.update' => ['PATCH', '/webhook-endpoints/{id}'],
        'webhookEndpoints.delete' => ['DELETE', '/webhook-endpoints/{id}'],
        'webhookEndpoints.rotateSecret' => ['POST', '/webhook-endpoints/{id}/rotate-secret'],
        'webhookEndpoints.test' => ['POST', '/webhook-endpoints/{id}/test'],
        'webhookEndpoints.recover' => ['POST', '/webhook-endpoints/{id}/recover'],
        'deliveries.list' => ['GET', '/webhook-deliveries'],
        'deliveries.get' => ['GET', '/webhook-deliveries/{id}'],
        'deliveries.stats' => ['GET', '/webhook-deliveries/stats'],
        'deliveries.retry' => ['POST', '/webhook-deliveries/{id}/retry'],
        'deliveries.redirect' => ['POST', '/webhook-deliveries/{id}/redirect'],
        'inspectors.create' => ['POST', '/inspectors'],
        'inspectors.requests' => ['GET', '/inspectors/{id}/requests'],
        'events.list' => ['GET', '/events'],
        'events.get' => ['GET', '/events/{id}'],
        'dashboardSessions.create' => ['POST', '/dashboard-sessions'],
        'dashboardSessions.current' => ['GET', '/dashboard-sessions/current'],
        'dashboardSessions.list' => ['GET', '/dashboard-sessions'],
        'dashboardSessions.delete' => ['DELETE', '/dashboard-sessions/{id}'],
        'meta.openapi' => ['GET', '/openapi.json'],
        'meta.errorCodes' => ['GET', '/error-codes'],
        'meta.changelog' => ['GET', '/changelog.atom'],
    ];

    /**
     * The concrete path of an operation: its template with the parameters URL-encoded.
     *
     * @param array<string,string> $params
     */
    public static function path(string $operation, array $params = []): string
    {
        if (!isset(self::TABLE[$operation])) {
            throw new \LogicException("botix: unknown operation $operation");
        }
        $path = self::TABLE[$operation][1];
        $out = preg_replace_callback('/\{([a-z_]+)\}/', static function (array $m) use ($params, $operation): string {
            if (!isset($params[$m[1]]) || $params[$m[1]] === '') {
                throw new \InvalidArgumentException("botix: $operation needs a non-empty {$m[1]}");
            }
            return rawurlencode($params[$m[1]]);
        }, $path);
        return (string) $out;
    }
}
