"""`manage.py check --deploy` says what the data-rights door lacks."""

from apps.datarights.checks import check_data_request_settings


def ids(settings):
    return [problem.id for problem in check_data_request_settings()]


def test_a_missing_secret_and_address_are_reported(settings):
    settings.DATA_REQUEST_SHARED_SECRET = ""
    settings.DATA_TEAM_EMAIL = ""

    assert ids(settings) == ["datarights.W001", "datarights.W003"]


def test_a_short_secret_is_reported(settings):
    settings.DATA_REQUEST_SHARED_SECRET = "short"
    settings.DATA_TEAM_EMAIL = "desk@atrium.invalid"

    assert ids(settings) == ["datarights.W002"]


def test_a_complete_set_up_passes(settings):
    settings.DATA_REQUEST_SHARED_SECRET = "x" * 43
    settings.DATA_TEAM_EMAIL = "desk@atrium.invalid"

    assert ids(settings) == []


def test_the_address_never_appears_in_a_check_message(settings):
    settings.DATA_REQUEST_SHARED_SECRET = "short"
    settings.DATA_TEAM_EMAIL = "desk@atrium.invalid"

    assert all("desk@atrium.invalid" not in problem.msg for problem in check_data_request_settings())
