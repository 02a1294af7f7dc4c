"""The one way a time is shown (apps.core.times, the template filter `when`)."""

from datetime import UTC, date, datetime

import pytest
from django.core.exceptions import ValidationError
from django.template import Context, Template
from django.utils import timezone

from apps.core import times

NOON_UTC = datetime(2026, 11, 25, 12, 39, 7, tzinfo=UTC)
SUMMER_UTC = datetime(2026, 7, 1, 12, 39, tzinfo=UTC)


def render(source: str, **context: object) -> str:
    return Template(source).render(Context(context))


@pytest.mark.parametrize(
    ("zone", "moment", "text"),
    [
        ("UTC", NOON_UTC, "2026-11-25 12:39 UTC"),
        ("Europe/Paris", NOON_UTC, "2026-11-25 13:39 CET"),
        ("Europe/Paris", SUMMER_UTC, "2026-07-01 14:39 CEST"),
        ("America/New_York", NOON_UTC, "2026-11-25 07:39 EST"),
        ("Asia/Kolkata", NOON_UTC, "2026-11-25 18:09 IST"),
        # A zone without an abbreviation of its own is named by its offset.
        ("America/Sao_Paulo", NOON_UTC, "2026-11-25 09:39 UTC-03"),
    ],
)
def test_a_time_is_written_in_the_active_zone_with_its_abbreviation(zone, moment, text):
    with timezone.override(zone):
        html = render("{{ value|when }}", value=moment)

    assert html == f'<time datetime="{times.machine_value(moment)}">{text}</time>'


def test_the_machine_readable_value_is_utc_whatever_the_zone():
    with timezone.override("Asia/Tokyo"):
        html = render("{% load atrium %}{{ value|when }}", value=NOON_UTC)

    assert html == '<time datetime="2026-11-25T12:39:07Z">2026-11-25 21:39 JST</time>'


def test_a_zone_given_to_the_filter_wins_over_the_active_one():
    with timezone.override("UTC"):
        html = render("{{ value|when:zone }}", value=NOON_UTC, zone="Europe/Paris")
        unknown = render("{{ value|when:zone }}", value=NOON_UTC, zone="Mars/Olympus")

    assert html.endswith(">2026-11-25 13:39 CET</time>")
    assert unknown.endswith(">2026-11-25 12:39 UTC</time>")


def test_nothing_is_written_for_no_time_so_a_default_still_applies():
    assert render('{{ value|when|default:"—" }}', value=None) == "—"


def test_a_date_alone_is_written_as_a_date():
    html = render("{{ value|when }}", value=date(2026, 11, 25))

    assert html == '<time datetime="2026-11-25">2026-11-25</time>'


def test_a_naive_time_is_taken_as_utc():
    with timezone.override("Europe/Paris"):
        html = render("{{ value|when }}", value=datetime(2026, 11, 25, 12, 39))

    assert html == '<time datetime="2026-11-25T12:39:00Z">2026-11-25 13:39 CET</time>'


def test_something_else_is_shown_as_it_is_escaped():
    assert render("{{ value|when }}", value="<b>soon</b>") == "&lt;b&gt;soon&lt;/b&gt;"


def test_inside_blocktrans_the_time_keeps_its_markup():
    with timezone.override("UTC"):
        html = render(
            "{% load i18n %}{% blocktrans with when=value|when %}Last rolled {{ when }}.{% endblocktrans %}",
            value=NOON_UTC,
        )

    assert html == 'Last rolled <time datetime="2026-11-25T12:39:07Z">2026-11-25 12:39 UTC</time>.'


def test_django_writes_its_own_dates_in_the_same_format():
    """A time printed bare (the operators' admin does) reads the same, without the markup."""
    with timezone.override("Europe/Paris"):
        assert render("{{ value }}", value=NOON_UTC) == "2026-11-25 13:39 CET"


@pytest.mark.parametrize("name", ["Europe/Paris", "UTC", "America/Argentina/Buenos_Aires"])
def test_iana_names_are_time_zones(name):
    times.validate_time_zone(name)
    assert name in times.zone_choices()


@pytest.mark.parametrize("name", ["", "CEST+1", "Mars/Olympus", "europe/paris", "Europe/Paris "])
def test_anything_else_is_not(name):
    with pytest.raises(ValidationError, match="is not a time zone name"):
        times.validate_time_zone(name)
