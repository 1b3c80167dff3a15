<?php

declare(strict_types=1);

// A PSR-4 loader for Botix\ -> src/, for use without Composer (the tests and the conformance
// runner use it; an installed package uses Composer's autoloader instead).
spl_autoload_register(static function (string $class): void {
    if (str_starts_with($class, 'Botix\\')) {
        $file = __DIR__ . '/src/' . str_replace('\\', '/', substr($class, 6)) . '.php';
        if (is_file($file)) {
            require $file;
        }
    }
});
