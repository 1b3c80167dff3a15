<?php

declare(strict_types=1);

// Composer's autoloader when `composer dump-autoload` made one, else the SDK's own PSR-4 loader.
if (is_file(__DIR__ . '/../vendor/autoload.php')) {
    require __DIR__ . '/../vendor/autoload.php';
} else {
    require __DIR__ . '/../autoload.php';
    spl_autoload_register(static function (string $class): void {
        if (str_starts_with($class, 'Botix\\Tests\\')) {
            $file = __DIR__ . '/' . str_replace('\\', '/', substr($class, 12)) . '.php';
            if (is_file($file)) {
                require $file;
            }
        }
    });
}
