"""What a week of research found: two members and a viewer search the web and read pages through
their agents, and look at Settings → Web browser. A page holding a NUL (a text file, a title) was
a crash when it was kept: it is now kept without it. A UTF-8 page whose server named no charset was
read as UTF-16 when it held a NUL (charset-normalizer's guess), a page of Chinese-looking noise: a
body that is valid UTF-8 is now read as UTF-8 before anything is guessed. A query of spaces went
to the provider as an empty search and was logged: it is refused as a required field. A public
page served over plain http was refused ("must use https"), as a webhook's address is: it is read
now, still only at public addresses. An address with a user name and password in it was fetched,
and the password kept in the caller's log (read by the area's admins) and the shared cache: it is
refused, and the refusal quotes the address without them. A robots.txt answered with a redirect
(http to https, to a canonical host) was taken as no file and allowed everything: its redirects
are followed, each address checked, and the file they lead to honoured."""

import ipaddress

import pytest

from apps.catalogue.testing import call, ok, text_of
from apps.core import outbound
from apps.web import errors, fetching
from apps.web.models import CachedPage, WebCall
from apps.web.tests.servers import Engine, searxng, site


@pytest.fixture
def pages():
    with site() as served:
        yield served


def test_a_page_with_nul_characters_is_read_and_kept_without_them(people, pages):
    pages.pages["/nul.txt"] = (200, {"Content-Type": "text/plain; charset=utf-8"}, b"Tide\x00 table")
    pages.pages["/nul.html"] = (
        200,
        {"Content-Type": "text/html; charset=utf-8"},
        b"<html><head><title>Quay\x00s</title></head><body><article><p>Ferries resume on Monday at the "
        b"quays, every hour from six.</p><p><a href='/t'>Time\x00table</a></p></article></body></html>",
    )
    plain = ok(people["member"], "webExtract", {"url": f"{pages.url}/nul.txt"})
    html = ok(people["member"], "webExtract", {"url": f"{pages.url}/nul.html"})

    assert plain["text"] == "Tide table"
    assert "\x00" not in str(html) and "Ferries resume" in html["text"]
    assert CachedPage.objects.count() == 2


def test_a_utf8_page_without_a_named_charset_is_read_as_utf8(people, pages):
    pages.pages["/unnamed.txt"] = (200, {"Content-Type": "text/plain"}, b"Tide\x00 table for M\xc3\xa5nday")
    page = ok(people["member"], "webExtract", {"url": f"{pages.url}/unnamed.txt"})
    assert page["text"] == "Tide table for Månday"


def test_a_blank_query_is_refused_before_the_provider_is_asked(people, settings):
    with searxng(Engine([])) as engine:
        settings.ATRIUM_WEB_SEARCH_PROVIDER, settings.ATRIUM_WEB_SEARXNG_URL = "searxng", engine.url
        result = call(people["member"], "webSearch", {"query": " \u200b "})
    assert result["isError"] is True, result
    assert engine.queries == [] and not WebCall.objects.exists()


def test_a_public_page_over_plain_http_may_be_read(monkeypatch):
    public = ipaddress.ip_address("93.184.215.14")
    monkeypatch.setattr(outbound, "_resolve", lambda host, port: [public])

    target = fetching._checked("http://kestrel-news.example/harbour", "http://kestrel-news.example/harbour")
    assert (target.scheme, target.addresses) == ("http", (str(public),))
    with pytest.raises(errors.UrlRefused):
        fetching._checked("ftp://kestrel-news.example/harbour", "ftp://kestrel-news.example/harbour")


def test_an_address_with_a_password_in_it_is_refused_and_logged_nowhere(people, pages, acme_client):
    secret = pages.url.replace("http://", "http://nora:hunter2@") + "/article"
    result = call(people["member"], "webExtract", {"url": secret})

    assert result["isError"] is True and "hunter2" not in text_of(result), result
    assert not WebCall.objects.exists() and not CachedPage.objects.exists()
    assert pages.asked == []


def test_a_robots_txt_behind_a_redirect_is_followed_and_honoured(people, pages):
    pages.pages["/robots.txt"] = (301, {"Location": "/site-robots.txt"}, b"")
    pages.pages["/site-robots.txt"] = (
        200,
        {"Content-Type": "text/plain"},
        b"User-agent: *\nDisallow: /private/\n",
    )
    result = call(people["member"], "webExtract", {"url": f"{pages.url}/private/page"})

    assert result["isError"] is True and "robots.txt" in text_of(result), result
    assert "/private/page" not in pages.asked
