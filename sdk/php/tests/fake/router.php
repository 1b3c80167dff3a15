<?php

declare(strict_types=1);

// A scripted fake of the API for the unit tests (`php -S 127.0.0.1:<port> router.php`, FAKE_DIR in
// the environment). Each request is appended to FAKE_DIR/log.jsonl; the answer is the next entry of
// FAKE_DIR/script.json (the last one repeats): {status, headers, body, body_size, delay_ms}, or
// {"list": n} for a newest-first list of n contacts honouring cursor and cursor_limit.

$dir = (string) getenv('FAKE_DIR');
$lock = fopen("$dir/lock", 'c');
flock($lock, LOCK_EX);
$headers = [];
foreach ($_SERVER as $k => $v) {
    if (str_starts_with($k, 'HTTP_')) {
        $headers[strtolower(str_replace('_', '-', substr($k, 5)))] = $v;
    }
}
$entry = ['method' => $_SERVER['REQUEST_METHOD'], 'uri' => $_SERVER['REQUEST_URI'], 'headers' => $headers, 'body' => file_get_contents('php://input')];
file_put_contents("$dir/log.jsonl", json_encode($entry) . "\n", FILE_APPEND);
$n = count(file("$dir/log.jsonl"));
$script = json_decode((string) file_get_contents("$dir/script.json"), true);
$r = $script[min($n, count($script)) - 1];
flock($lock, LOCK_UN);

if (isset($r['list'])) {
    parse_str((string) parse_url($_SERVER['REQUEST_URI'], PHP_URL_QUERY), $q);
    $total = (int) $r['list'];
    $limit = (int) ($q['cursor_limit'] ?? 20);
    $offset = isset($q['cursor']) ? (int) substr($q['cursor'], 1) : 0;
    $data = [];
    for ($i = $offset; $i < min($total, $offset + $limit); $i++) {
        $num = $total - $i; // newest first: the highest id first
        $data[] = ['id' => 'ct_' . sprintf('%026d', $num), 'phone' => '+7999' . sprintf('%08d', $num), 'name' => "c$num", 'tags' => [], 'created_at' => '2026-12-01T00:00:00Z'];
    }
    $more = $offset + $limit < $total;
    header('Content-Type: application/json');
    header('X-Request-Id: req_list');
    echo json_encode(['data' => $data, 'next_cursor' => $more ? 'o' . ($offset + $limit) : null, 'has_more' => $more]);
    return true;
}
if (($r['delay_ms'] ?? 0) > 0) {
    usleep($r['delay_ms'] * 1000);
}
http_response_code($r['status'] ?? 200);
foreach ($r['headers'] ?? [] as $k => $v) {
    header("$k: $v");
}
if (isset($r['body_size'])) {
    $chunk = str_repeat('x', 65536);
    for ($left = (int) $r['body_size']; $left > 0; $left -= 65536) {
        echo substr($chunk, 0, min(65536, $left));
    }
} else {
    echo is_string($r['body'] ?? null) ? $r['body'] : json_encode($r['body'] ?? new stdClass());
}
return true;
