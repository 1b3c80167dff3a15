<?php

declare(strict_types=1);

namespace Botix\Tests;

/** A PDO that runs $race once just before preparing a statement that starts with $verb: another copy's move in between. */
final class RacingPdo extends \PDO
{
    /** @var (\Closure():void)|null */
    public ?\Closure $race = null;
    public string $verb = '';

    public function prepare(string $query, array $options = []): \PDOStatement|false
    {
        if ($this->race !== null && str_starts_with($query, $this->verb)) {
            $race = $this->race;
            $this->race = null;
            $race();
        }
        return parent::prepare($query, $options);
    }
}
