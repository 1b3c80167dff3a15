import os
import sqlite3
from http.server import ThreadingHTTPServer

from botix import webhook

# BOTIX_WEBHOOK_SECRETS: the endpoint's secrets, comma-separated, the newest first during a rotation.
SECRETS = [s.strip() for s in os.environ.get("BOTIX_WEBHOOK_SECRETS", "").split(",") if s.strip()]

store = webhook.SQLDeduplicator(lambda: sqlite3.connect("webhooks.sqlite", timeout=30))
store.create_table()


def process(event):
    print("processing", event.type, event.id)  # runs once per event id


handler = webhook.Handler(webhook.Verifier(SECRETS), store, process)


def serve(port=8000):
    ThreadingHTTPServer(("127.0.0.1", port), handler.request_handler_class()).serve_forever()
