<?php

declare(strict_types=1);

namespace Botix\Service;

use Botix\Model\Contact;
use Botix\Model\ContactCreate;
use Botix\Model\Count;
use Botix\Page;
use Botix\Position;
use Botix\Walker;

/** /public/v1/contacts */
final class Contacts extends Service
{
    /**
     * Creates a contact (idempotent: one key for the call, reused on every retry; pass
     * $idempotencyKey to re-issue a failed call or for an operation that outlives the process).
     * 409 CONTACT_ALREADY_EXISTS when the phone is taken.
     */
    public function create(ContactCreate $in, ?string $idempotencyKey = null): Contact
    {
        return $this->one(Contact::class, 'contacts.create', [], [], $in->toArray(), $idempotencyKey);
    }

    public function get(string $id): Contact
    {
        return $this->one(Contact::class, 'contacts.get', ['id' => $id]);
    }

    /** How many contacts the project has. */
    public function count(): Count
    {
        return $this->one(Count::class, 'contacts.count');
    }

    /**
     * One page of contacts, newest first.
     *
     * @return Page<Contact>
     */
    public function list(?int $limit = null, ?string $cursor = null, ?string $tag = null, ?\DateTimeInterface $createdAfter = null, ?\DateTimeInterface $createdBefore = null): Page
    {
        return $this->page(Contact::class, 'contacts.list', [], self::query($cursor, $limit, ['tag' => $tag, 'created_after' => $createdAfter, 'created_before' => $createdBefore]));
    }

    /**
     * A walker over every contact, newest first: foreach over it; from the start (or $cursor), or
     * from a saved position (its string or a Position).
     *
     * @return Walker<Contact>
     */
    public function walk(?int $limit = null, Position|string|null $from = null, ?string $cursor = null, ?string $tag = null, ?\DateTimeInterface $createdAfter = null, ?\DateTimeInterface $createdBefore = null): Walker
    {
        return $this->walker(Contact::class, 'contacts.list', [], self::query($cursor, $limit, ['tag' => $tag, 'created_after' => $createdAfter, 'created_before' => $createdBefore]), $from);
    }
}
