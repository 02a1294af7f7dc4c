"""The short forms of a record's declarations (apps.core.records): `Access(manage=)` and the
`live_once` constraint."""

from django.db import models
from django.db.models import Q

from apps.core.permissions import Level, PermissionEnum
from apps.core.records import Access, live_once


class BooksPerm(PermissionEnum):
    VIEW = "books.view", Level.READ
    EDIT = "books.edit", Level.WRITE
    SHELVES = "books.shelves", Level.WRITE
    ADMIN = "books.admin", Level.ADMIN


def test_manage_is_the_permission_that_changes_and_deletes() -> None:
    access = Access(BooksPerm, view=BooksPerm.EDIT, manage=BooksPerm.SHELVES)

    assert access.permission("view") == "books.edit"
    assert access.permission("change") == "books.shelves"
    assert access.permission("delete") == "books.shelves"
    assert access.admin_permission() == "books.admin"


def test_a_change_or_delete_given_beside_manage_is_kept() -> None:
    access = Access(BooksPerm, manage=BooksPerm.SHELVES, delete=BooksPerm.ADMIN)

    assert access.permission("change") == "books.shelves"
    assert access.permission("delete") == "books.admin"


def test_without_manage_the_area_defaults_stay() -> None:
    access = Access(BooksPerm)

    assert access.permission("change") == "books.edit"
    assert access.permission("delete") == "books.edit"


def test_live_once_is_the_constraint_written_out() -> None:
    written = models.UniqueConstraint(
        fields=["owner"],
        condition=Q(is_default=True, deleted_at__isnull=True),
        name="books_one_default_per_owner",
    )

    assert live_once("books_one_default_per_owner", "owner", is_default=True) == written
    assert live_once("books_isbn_once", "isbn") == models.UniqueConstraint(
        fields=["isbn"], condition=Q(deleted_at__isnull=True), name="books_isbn_once"
    )
