"""The area kit (apps.core.records, kinds, areas, pages): one access rule for every area's
records, one registry of record kinds, and an area that is a declaration. Exercised on areas that
use it (Documents for private records with shares, Tasks for records without a trash, Files'
folders for records the whole area sees)."""

import ast
from pathlib import Path

import pytest
from django.conf import settings
from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.test import RequestFactory

from apps.calendars.errors import CalendarArchived
from apps.catalogue.testing import person_with
from apps.core import areas, errors, kinds, pages
from apps.core.errors import Forbidden, InTrash, ReadOnly, RecordNotFound, ValidationFailed, invalid
from apps.core.records import Visibility
from apps.core.sharing import change
from apps.documents import services as documents
from apps.documents.models import Document
from apps.documents.permissions import DocumentsPerm
from apps.files.models import Folder


@pytest.fixture
def private(people):
    """A private document of the member's, and one everyone may see."""
    member = people["member"]
    return (
        documents.document_create(actor=member, title="Private plan", visibility=Visibility.PRIVATE),
        documents.document_create(actor=member, title="Shared plan"),
    )


def ids(rows):
    return {row.pk for row in rows}


def test_a_private_record_is_seen_by_its_owner_and_the_admins_only(people, private):
    mine, everyone = private
    seen = {
        role: ids(Document.objects.restrict(people[role]).filter(pk__in=[mine.pk, everyone.pk]))
        for role in people
    }

    assert seen["member"] == {mine.pk, everyone.pk}
    assert seen["owner"] == seen["admin"] == {mine.pk, everyone.pk}  # documents.admin
    assert seen["viewer"] == {everyone.pk}


def test_a_share_lets_one_see_and_edit_only_as_it_says(people, private):
    mine, _everyone = private
    viewer_like = person_with({DocumentsPerm.VIEW, DocumentsPerm.EDIT}, email="kit-share@acme.example")
    change(mine, actor=people["member"], person_email=viewer_like.email, access="view", visibility=None)

    assert Document.objects.fetch(viewer_like, mine.pk) == mine
    assert Document.access.level(viewer_like, mine) == "view"
    with pytest.raises(ReadOnly):
        Document.objects.fetch(viewer_like, mine.pk, "change")

    change(mine, actor=people["member"], person_email=viewer_like.email, access="edit", visibility=None)
    assert Document.objects.fetch(viewer_like, mine.pk, "change") == mine


def test_what_one_may_not_see_is_not_found_like_what_does_not_exist(people, private):
    mine, _everyone = private

    with pytest.raises(RecordNotFound) as hidden:
        Document.objects.fetch(people["viewer"], mine.pk)
    with pytest.raises(RecordNotFound) as missing:
        Document.objects.fetch(people["viewer"], 2**40)

    assert hidden.value.code == missing.value.code == "NOT_FOUND"
    assert str(hidden.value.message) == str(missing.value.message).replace(str(2**40), str(mine.pk))
    assert "listDocuments" in str(hidden.value.message)


def test_a_role_without_the_permission_sees_nothing_and_is_refused_a_change(people, private):
    _mine, everyone = private
    nobody = person_with(set(), email="kit-nobody@acme.example")

    assert not Document.objects.restrict(nobody).exists()
    with pytest.raises(Forbidden) as refused:
        Document.objects.fetch(people["viewer"], everyone.pk, "change")
    assert "Your role may see documents but not change them" in str(refused.value.message)


def test_the_trash_is_left_out_unless_asked_for(people, private):
    _mine, everyone = private
    documents.document_trash(actor=people["admin"], document=everyone)

    assert everyone.pk not in ids(Document.objects.restrict(people["member"]))
    assert everyone.pk in ids(Document.objects.restrict(people["member"], trash="only"))
    with pytest.raises(InTrash) as trashed:
        Document.objects.fetch(people["member"], everyone.pk)
    assert trashed.value.code == "IN_TRASH"
    assert Document.objects.fetch(people["member"], everyone.pk, trash=True) == everyone


def test_a_record_the_whole_area_sees_needs_only_the_role(people):
    folder = Folder.objects.create(name="Kit folder", created_by=people["admin"])

    assert Folder.objects.fetch(people["viewer"], folder.pk) == folder
    with pytest.raises(Forbidden):
        Folder.objects.fetch(people["viewer"], folder.pk, "delete")


def test_templated_errors_name_their_facts_and_refuse_others():
    error = CalendarArchived(label="Calendar", id=4, state="archived", hint="Restore it.")

    assert error.message == "Calendar 4 is archived. Restore it."
    assert error.code == "CALENDAR_ARCHIVED" and error.http_status == 409
    assert error.data == {"label": "Calendar", "id": 4, "state": "archived", "hint": "Restore it."}
    with pytest.raises(TypeError):
        ReadOnly(label="x", id=1, colour="red")
    assert invalid("title", "is empty").as_body() == {
        "error": {
            "code": "VALIDATION_ERROR",
            "message": "title: is empty.",
            "details": {"title": ["is empty"]},
        }
    }


def test_every_declared_kind_resolves_only_for_who_may_see_it(people, private):
    mine, _everyone = private

    found = kinds.resolve(actor=people["member"], entity_type="document", entity_id=mine.pk)
    assert (found.type, found.id, found.title) == ("document", mine.pk, "Private plan")
    with pytest.raises(RecordNotFound):
        kinds.resolve(actor=people["viewer"], entity_type="document", entity_id=mine.pk)
    with pytest.raises(ValidationFailed):
        kinds.resolve(actor=people["member"], entity_type="spaceship", entity_id=1)
    assert {"contact", "document", "file", "group_account", "task"} <= {kind.key for kind in kinds.kinds()}


def test_an_area_is_a_declaration_that_the_kit_registers():
    declared = {area.key: area for area in areas.all_areas()}

    assert set(declared) >= {
        "calendars",
        "contacts",
        "departments",
        "documents",
        "files",
        "groupaccounts",
        "notifications",
        "tasks",
    }
    # Its periodic tasks are in beat's schedule, its settings have their defaults (or the
    # environment module's value), its pages are in the workspace's URLs.
    assert (
        settings.CELERY_BEAT_SCHEDULE["run-due-scheduled-tasks"]["task"]
        == "apps.tasks.tasks.run_due_scheduled_tasks"
    )
    assert settings.ATRIUM_DOCUMENTS_MAX_CHARS == 1_000_000
    assert settings.ATRIUM_FILES_MAX_BYTES == 2 * 1024 * 1024  # config/settings/test.py sets it
    routes = [str(pattern.pattern) for pattern in areas.urlpatterns()]
    assert len(routes) == len([area for area in declared.values() if area.submodule("urls")])


def test_celery_beat_sees_the_areas_periodic_tasks():
    from config.celery import app

    assert "finish-ended-agent-steps" in app.conf.beat_schedule


@pytest.mark.parametrize(
    ("error", "expected"),
    [
        (RecordNotFound(label="Task", id=1), Http404),
        (InTrash(label="Task", id=1), Http404),
        (Forbidden(), PermissionDenied),
    ],
)
def test_a_page_answers_an_app_error_as_a_page(people, error, expected):
    request = RequestFactory().get("/settings/x/")
    request.user = people["member"]

    @pages.page()
    def view(request):
        raise error

    with pytest.raises(expected):
        view(request)


def test_a_page_that_cannot_do_what_a_form_asked_says_so_on_the_page_it_came_from(people):
    from django.contrib.messages.storage.fallback import FallbackStorage

    request = RequestFactory().post("/settings/x/", HTTP_REFERER="http://testserver/settings/x/?page=2")
    request.user = people["member"]
    request.session = {}
    request._messages = FallbackStorage(request)

    @pages.page(methods=("POST",))
    def view(request):
        raise invalid("name", "is taken")

    response = view(request)

    assert (response.status_code, response["Location"]) == (302, "http://testserver/settings/x/?page=2")
    assert [str(message) for message in request._messages] == ["name: is taken."]


def test_a_page_refuses_who_lacks_its_permission(people):
    request = RequestFactory().get("/settings/x/")
    request.user = people["viewer"]

    @pages.page(DocumentsPerm.DELETE)
    def view(request):  # pragma: no cover - never reached
        raise AssertionError

    with pytest.raises(PermissionDenied):
        view(request)


def test_a_child_record_follows_its_parents_rows_and_its_own_permissions(people):
    """An event is seen and changed through its calendar's rows, with the permissions of events:
    a role that may change events but not calendars changes the events of calendars it sees."""
    from apps.calendars.models import Event
    from apps.calendars.permissions import CalendarsPerm
    from apps.calendars.tests.factories import CalendarFactory, EventFactory

    editor = person_with({CalendarsPerm.VIEW, CalendarsPerm.EDIT}, email="kit-events@acme.example")
    shared = EventFactory(organizer=people["owner"], calendar=CalendarFactory(owner=people["owner"]))
    private_calendar = CalendarFactory(owner=people["owner"], visibility=Visibility.PRIVATE)
    private = EventFactory(organizer=people["owner"], calendar=private_calendar)

    assert Event.objects.fetch(editor, shared.pk, "change") == shared
    assert Event.access.level(editor, shared) == "edit"
    with pytest.raises(RecordNotFound):
        Event.objects.fetch(editor, private.pk)
    private_calendar.trash(people["owner"])
    assert not Event.objects.restrict(people["owner"]).filter(pk=private.pk).exists()


def test_the_start_up_checks_hold_every_record_and_kind_to_a_declaration():
    from dataclasses import replace

    from apps.core import checks

    assert checks.check_record_access() == []
    assert checks.check_record_kinds() == []
    stray = replace(kinds.registered("document"), key="stray", model="documents.Nothing", area="nowhere")
    with kinds.standing_in(stray):
        found = {problem.id for problem in checks.check_record_kinds()}
    assert found == {"atrium.E004", "atrium.E005"}


def test_restricted_fields_are_read_and_changed_with_their_own_permission(people):
    """An employee's pay, identifiers and health (`fields`): read with hr.restricted, changed
    with it by those who may change the employee; the employee reads their own pay and
    identifiers (`own_fields`), never their health notes, and changes none."""
    from apps.hr.models import Employee
    from apps.hr.tests.factories import EmployeeFactory, employee_of

    employee = EmployeeFactory(actor=people["owner"])
    own = employee_of(people["member"], actor=people["owner"])
    reader = person_with({"hr.view", "hr.restricted"}, email="kit-restricted@acme.example")
    both = {"restricted", "health"}

    assert Employee.access.fields_allowed(people["owner"], employee) == both
    assert Employee.access.fields_allowed(people["owner"], employee, "change") == both
    assert Employee.access.fields_allowed(people["member"], employee) == set()
    assert Employee.access.fields_allowed(people["member"], own) == {"restricted"}
    assert Employee.access.fields_allowed(people["member"], own, "change") == set()
    assert Employee.access.fields_allowed(reader, employee) == both
    assert Employee.access.fields_allowed(reader, employee, "change") == set()  # not theirs to change


def test_covers_says_whose_rows_a_row_about_one_employee_would_be(people):
    """The owner path from the values given (an employee: theirs), or every row for those who
    see all: what a request made for someone, or their balance, is checked against."""
    from apps.hr.models import LeaveRequest
    from apps.hr.tests.factories import EmployeeFactory, employee_of

    mine = employee_of(people["member"], actor=people["owner"])
    another = EmployeeFactory(actor=people["owner"])
    approver = person_with({"hr.view", "hr.leave", "hr.approve_leave"}, email="kit-approver@acme.example")

    assert LeaveRequest.access.covers(people["member"], employee=mine)
    assert not LeaveRequest.access.covers(people["member"], employee=another)
    assert not LeaveRequest.access.covers(people["member"], employee=None)
    assert LeaveRequest.access.covers(approver, employee=another)  # sees_all
    assert LeaveRequest.access.covers(people["admin"], employee=another)  # the area's admins
    report = EmployeeFactory(actor=people["owner"], manager_id=mine.pk)
    # A line manager (`deciders`) sees their report's rows but makes none for them.
    assert LeaveRequest.access.covers(people["member"], employee=report)
    assert not LeaveRequest.access.covers(people["member"], "change", employee=report)


def test_a_path_through_many_rows_gives_each_row_once(people):
    """`also="assessments__author"`: a review with several assessments is one row to each of
    its authors and to its manager, as restrict, fetch and level say."""
    from apps.hr.models import Review
    from apps.hr.tests.factories import EmployeeFactory, review

    owner, peers = people["owner"], [people["member"], people["viewer"], people["admin"]]
    made = review(owner, EmployeeFactory(actor=owner), manager=owner, peers=peers)

    assert Review.objects.restrict(people["member"]).filter(pk=made.pk).count() == 1
    assert Review.objects.restrict(people["owner"]).filter(pk=made.pk).count() == 1
    assert Review.access.level(people["member"], made) == "view"
    assert Review.objects.fetch(people["owner"], made.pk, "change") == made


def _formatted(value: ast.expr) -> bool:
    """Text put together where it is used: an f-string, a %-format or a .format()."""
    if isinstance(value, ast.IfExp):
        return _formatted(value.body) or _formatted(value.orelse)
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute):
        return value.func.attr == "format"
    percent = isinstance(value, ast.BinOp) and isinstance(value.op, ast.Mod)
    return isinstance(value, ast.JoinedStr) or (percent and not isinstance(value.left, ast.Name))


def _untranslated(value: ast.expr) -> bool:
    if isinstance(value, ast.IfExp):
        return _untranslated(value.body) or _untranslated(value.orelse)
    return isinstance(value, ast.Constant) and isinstance(value.value, str) and value.value != ""


def test_no_raise_site_makes_the_text_of_its_error():
    """Every failure's words are declared with its class (apps.core.errors); a raise site gives facts.
    `invalid(field, problem, **facts)`'s problem is a translatable template (`_("...")`) or a problem
    phrased by the part that found it (a name); an error's facts are values, not sentences put
    together on the spot."""
    names = {cls.__name__ for cls in errors.error_classes()}
    apps = Path(errors.__file__).resolve().parents[1]
    found = []
    for path in sorted(apps.rglob("*.py")):
        if "tests" in path.parts or "migrations" in path.parts:
            continue
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if not isinstance(node, ast.Call):
                continue
            name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", None)
            if name == "invalid" and len(node.args) >= 2:
                made = _formatted(node.args[1]) or _untranslated(node.args[1])
            elif name in names:
                made = bool(node.args) or any(_formatted(keyword.value) for keyword in node.keywords)
            else:
                continue
            if made:
                found.append(f"{path.relative_to(apps.parent)}:{node.lineno}")
    assert found == [], found
