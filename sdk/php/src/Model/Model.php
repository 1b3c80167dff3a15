<?php

declare(strict_types=1);

namespace Botix\Model;

use Botix\Response;

/**
 * A request or response type of the API, written by hand to match a component schema of
 * sdk/openapi.yaml. FIELDS maps each JSON field name to the constructor parameter (and readonly
 * property) that holds it; a test checks both against the constructor and the document.
 * Unknown fields of an answer are ignored, so a newer API does not break an older SDK.
 */
abstract class Model implements \JsonSerializable
{
    /** The OpenAPI component schema this type stands for. */
    public const SCHEMA = '';
    /** @var array<string,string> JSON field name => property */
    public const FIELDS = [];
    /** @var array<string,class-string<Model>|array{0:class-string<Model>}> nested types: a class, or [class] for a list */
    public const NESTED = [];

    /**
     * Builds the type from a decoded JSON object.
     *
     * @param array<string,mixed> $data
     */
    public static function fromArray(array $data, ?Response $response = null): static
    {
        $args = [];
        foreach (static::FIELDS as $json => $prop) {
            if (!array_key_exists($json, $data)) {
                continue; // the constructor's default (null for an optional field)
            }
            $v = $data[$json];
            $nested = static::NESTED[$json] ?? null;
            if ($nested !== null && $v !== null) {
                if (is_array($nested)) {
                    $cls = $nested[0];
                    $v = array_map(static fn ($item) => $cls::fromArray((array) $item), array_values((array) $v));
                } else {
                    $v = $nested::fromArray((array) $v);
                }
            }
            $args[$prop] = $v;
        }
        if ($response !== null && property_exists(static::class, 'response')) {
            $args['response'] = $response;
        }
        return new static(...$args);
    }

    /** The JSON object of the type, without the fields that are null; Limit::None is null. @return array<string,mixed> */
    public function toArray(): array
    {
        $out = [];
        foreach (static::FIELDS as $json => $prop) {
            $v = $this->{$prop};
            if ($v === null) {
                continue;
            }
            if ($v === \Botix\Limit::None) {
                $v = null;
            } elseif ($v instanceof Model) {
                $v = $v->toArray();
            } elseif (is_array($v)) {
                $v = array_map(static fn ($x) => $x instanceof Model ? $x->toArray() : $x, $v);
            }
            $out[$json] = $v;
        }
        return $out;
    }

    /** @return array<string,mixed> */
    public function jsonSerialize(): array
    {
        return $this->toArray();
    }
}
