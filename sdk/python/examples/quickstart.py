import os
import uuid

import botix

# The key and the base URL come from BOTIX_API_KEY and BOTIX_API_URL.
client = botix.Client(retry=botix.RetryPolicy(max_attempts=5))

# Create with retries: one Idempotency-Key for the call, the same on every retry.
phone = "+7999%08d" % (uuid.uuid4().int % 10**8)
try:
    contact = client.contacts.create(phone=phone, name="Ivan", tags=["vip"])
except botix.OperationError as err:
    if not err.reissuable:
        raise
    # The answer was lost or the API was unavailable: finish the same operation.
    contact = client.contacts.create(phone=phone, name="Ivan", tags=["vip"], **err.reissue())
print("created", contact.id, "attempts:", contact.response.attempts, "replayed:", contact.response.replayed)

# Iterate: a generator that fetches a page (of limit) at a time.
for c in client.contacts.list(limit=37, tag="vip"):
    print("contact", c.id, c.phone)
    break

# A resumable walk: save the position string, resume later (in any BOTIX SDK).
walker = client.contacts.walk(limit=37)
for c in walker:
    saved = str(walker.position)
    break
for c in client.contacts.walk(limit=37, position=saved):
    print("resumed at", c.id)
    break

# Errors are typed by the API's codes and carry the key and the attempt count.
try:
    client.contacts.create(phone="12", name="bad")
except botix.APIError as err:
    assert err.code == botix.ErrorCode.VALIDATION_FAILED
    print("refused:", err.status, err.code, err.field, err.details, err.request_id, err.attempts)
