"""The public blog and the Blog settings page in a real browser (Debian's Chromium through
Playwright), against the live server, at laptop and phone width with axe-core: a reader comments
on a post; an editor sees the comment to moderate. In Globex, so that what it commits touches none
of the area's other tests (they run in Acme)."""

import uuid
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from django.db import connection
from django_tenants.utils import schema_context

from tests.test_browser_layout import LAPTOP, PHONE, UNBROKEN, problems, sign_in

pytestmark = pytest.mark.live


@contextmanager
def in_globex() -> Iterator[None]:
    try:
        with schema_context("globex"):
            yield
    finally:
        connection.close()


@pytest.mark.parametrize("viewport", [LAPTOP, PHONE], ids=["laptop", "phone"])
def test_a_reader_comments_on_a_post_and_an_editor_sees_it_to_moderate(page, live_http, committed, viewport):
    from django.core.cache import cache

    from apps.accounts.models import User
    from apps.blog import services
    from apps.blog.public import comments_key
    from apps.blog.tests.factories import published

    tag = uuid.uuid4().hex[:8]
    with in_globex():
        owner = User.objects.get(email="owner@globex.example")
        post = published(
            owner,
            title=f"Browser {tag}",
            body=f"<p>Long words wrap: {UNBROKEN}</p><pre>{UNBROKEN}</pre>",
            categories=["News"],
        )
    cache.delete(comments_key("globex", "127.0.0.1"))
    server = live_http.url("127.0.0.2")
    try:
        page.set_viewport_size(viewport)
        page.goto(f"{server}/blog/")
        assert problems(page) == []
        page.get_by_role("link", name=f"Browser {tag}").click()
        page.wait_for_url(f"**/blog/{post.slug}/")
        assert page.get_by_role("heading", level=1).inner_text() == f"Browser {tag}"
        assert problems(page) == []

        page.get_by_label("Name", exact=True).fill(f"Reader {tag}")
        page.get_by_label("Comment", exact=True).fill("A thoughtful remark")
        page.get_by_role("button", name="Send").click()
        page.wait_for_url("**?comment=pending#comments")
        assert "appears once it is approved" in page.get_by_role("status").inner_text()

        sign_in(page, server, "owner@globex.example")
        page.goto(f"{server}/settings/blog/")
        assert f"Reader {tag}" in page.inner_text("main")
        assert problems(page) == []
    finally:
        with in_globex():
            services.post_delete(actor=owner, post=post)
