"""The personal-data registry and its system check (docs/privacy.md)."""

import pytest
from django.core import checks
from django.core.management import call_command

from apps.accounts.models import PersonalAccessToken, Role, User
from apps.core import privacy
from apps.tenancy.models import Domain


def ids(problems):
    return [problem.id for problem in problems]


def test_every_model_of_the_project_is_registered_or_declared():
    assert privacy.check_coverage() == []
    # And Django's own check command runs it (as `migrate` and `runserver` do).
    call_command("check", fail_level="ERROR")


def test_a_model_neither_registered_nor_declared_fails_the_check(monkeypatch):
    monkeypatch.delitem(privacy._not_personal, "accounts.role")

    problems = privacy.check_coverage()

    assert ids(problems) == ["atrium.E010"]
    assert problems[0].obj is Role
    assert "accounts.role" in problems[0].msg
    assert "apps/accounts/privacy.py" in problems[0].hint
    # The check is one of Django's: `manage.py check` fails.
    assert "atrium.E010" in ids(checks.run_checks())


def test_declaring_a_whole_app_covers_each_of_its_models(monkeypatch):
    monkeypatch.delitem(privacy._not_personal, "tenancy")
    uncovered = {problem.obj for problem in privacy.check_coverage()}
    assert Domain in uncovered

    monkeypatch.setitem(privacy._not_personal, "tenancy", "the operator's records")
    assert privacy.check_coverage() == []


def test_a_model_both_registered_and_declared_fails_the_check(monkeypatch):
    monkeypatch.setitem(privacy._not_personal, "accounts.personalaccesstoken", "oops")

    assert ids(privacy.check_coverage()) == ["atrium.E013"]


def test_a_registration_naming_a_missing_field_fails_the_check():
    handler = privacy.ModelHandler(
        PersonalAccessToken, user="owner", exclude=["secret"], soft_delete="deleted_at"
    )

    problems = handler.check()

    assert ids(problems) == ["atrium.E012"] * 3
    messages = " ".join(problem.msg for problem in problems)
    assert all(name in messages for name in ("'owner'", "'secret'", "'deleted_at'"))


def test_a_registration_must_say_how_to_find_the_person():
    assert ids(privacy.ModelHandler(Role).check()) == ["atrium.E011"]


def test_paths_across_relations_are_checked():
    assert privacy.ModelHandler(PersonalAccessToken, email="user__email").check() == []
    assert ids(privacy.ModelHandler(PersonalAccessToken, email="user__mail").check()) == ["atrium.E012"]


def test_a_model_cannot_be_registered_twice():
    with pytest.raises(ValueError, match="registered twice"):
        privacy.register(User, email="email")


def test_declaring_a_model_without_a_reason_is_refused():
    with pytest.raises(ValueError, match="say why"):
        privacy.not_personal(Role, reason=" ")


def test_the_user_row_is_erased_after_everything_that_points_at_it():
    labels = [handler.label for handler in privacy.handlers()]

    assert labels[-1] == "accounts.user"
    assert labels.index("accounts.personalaccesstoken") < labels.index("accounts.user")
