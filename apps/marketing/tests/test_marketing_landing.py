"""Landing pages through call_tool and on the workspace's host: per tool a normal call, bad input
(nothing written) and a refusal; publishing asks first, after its arguments are checked; the
public page at /p/<slug>/ with Open Graph tags, sanitised HTML, cache headers changed by an update,
its embedded form sent with the visit's UTM parameters counted as a conversion, and 404 once
unpublished or deleted; another person's private page never listed or named."""

import pytest
from django.core.cache import cache

from apps.catalogue.dispatch import ToolNotFound
from apps.catalogue.testing import call, confirmed, ok, person_without, refused
from apps.forms.models import Submission
from apps.forms.public import submissions_key
from apps.forms.tests.factories import FormFactory, published
from apps.marketing import landing
from apps.marketing.models import Conversion, LandingPage, Visit
from apps.marketing.tests.factories import BROWSER, campaign, tag

ELICIT = {"capabilities": {"elicitation": {}}, "elicit": confirmed}
TOOLS = {
    "createLandingPage": ("marketing.edit", {"landingPage": {"name": "X"}}),
    "updateLandingPage": ("marketing.edit", {"pageId": 1, "changes": {"name": "Y"}}),
    "deleteLandingPage": ("marketing.delete", {"pageId": 1}),
}


def blocks(form_id=None):
    made = [
        {"type": "heading", "text": "Spring offer", "level": 1},
        {"type": "text", "html": '<p onclick="x()">Twenty percent off.</p><script>alert(1)</script>'},
        {"type": "image", "url": "https://cdn.example.org/spring.png", "alt": "A spring garden"},
        {"type": "cta", "label": "Sign up below", "url": "#form"},
    ]
    return made + ([{"type": "form", "formId": form_id}] if form_id else [])


@pytest.fixture
def form(people):
    made = published(people["admin"], title=f"Offer sign-up {tag()}", slug=f"offer-{tag()}")
    cache.delete(submissions_key("acme", made.pk, "127.0.0.1"))
    return made


@pytest.mark.parametrize("name", sorted(TOOLS))
def test_a_role_without_the_permission_cannot_call_it(acme, name):
    permission, arguments = TOOLS[name]
    person = person_without(permission, email=f"no-{name.lower()}@acme.example")
    with pytest.raises(ToolNotFound):
        call(person, name, arguments)


def test_a_draft_is_made_sanitised_and_not_public(people, acme_client):
    member = people["member"]
    answer = ok(member, "createLandingPage", {"landingPage": {"name": "Spring offer", "blocks": blocks()}})
    assert answer["status"] == "draft" and answer["slug"] == "spring-offer" and answer["sanitised"] is True
    text = answer["blocks"][1]["html"]
    assert "<script" not in text and "onclick" not in text and "Twenty percent off." in text
    assert answer["url"].endswith("/p/spring-offer/")
    assert acme_client.get("/p/spring-offer/").status_code == 404


@pytest.mark.parametrize(
    ("fields", "said"),
    [
        ({"blocks": [{"type": "video"}]}, "blocks[0].type"),
        (
            {"blocks": [{"type": "image", "url": "javascript:alert(1)", "alt": "x"}]},
            "is not an http(s) address",
        ),
        ({"blocks": [{"type": "image", "url": "https://a.example/x.png"}]}, "describe the image"),
        ({"blocks": [{"type": "form", "formId": 999999}]}, "999999"),
        ({"slug": "Not A Slug!"}, "lower-case letters"),
    ],
)
def test_bad_input_writes_nothing(people, fields, said):
    before = LandingPage.objects.count()
    message = refused(
        people["member"], "createLandingPage", {"landingPage": {"name": f"Bad {tag()}", **fields}}
    )
    assert said in message and LandingPage.objects.count() == before


def test_slugs_are_unique_among_live_pages(people):
    admin = people["admin"]
    first = landing.create(
        actor=admin, fields={"name": f"One {tag()}", "slug": "same-place", "blocks": blocks()}
    )
    message = refused(admin, "createLandingPage", {"landingPage": {"name": "Two", "slug": "same-place"}})
    assert "/p/same-place/ is taken" in message
    landing.delete(actor=admin, page=first)
    assert ok(admin, "createLandingPage", {"landingPage": {"name": f"Two {tag()}", "slug": "same-place"}})[
        "id"
    ]


def test_publishing_asks_first_checks_before_and_needs_the_right(people, form):
    admin, member = people["admin"], people["member"]
    # The checks come before the question: nobody confirms what would be refused.
    draft_form = FormFactory(actor=admin)
    unpublished = refused(
        admin,
        "createLandingPage",
        {"landingPage": {"name": "Early", "blocks": blocks(draft_form.pk), "status": "published"}},
    )
    assert "is not published for the public" in unpublished and not LandingPage.objects.filter(name="Early")

    arguments = {"landingPage": {"name": f"Offer {tag()}", "blocks": blocks(form.pk), "status": "published"}}
    asked = call(admin, "createLandingPage", arguments)
    assert "confirmationToken" in str(asked) and not LandingPage.objects.filter(
        name=arguments["landingPage"]["name"]
    )
    page = ok(admin, "createLandingPage", arguments, **ELICIT)
    assert page["status"] == "published"

    # A draft needs no question; publishing needs marketing.launch, which a member has not.
    draft = ok(member, "createLandingPage", {"landingPage": {"name": f"Draft {tag()}", "blocks": blocks()}})
    message = refused(
        member, "updateLandingPage", {"pageId": draft["id"], "changes": {"status": "published"}}, **ELICIT
    )
    assert "PERMISSION" in message.upper()
    assert LandingPage.objects.get(pk=draft["id"]).status == "draft"


def test_the_public_page_counts_visits_and_conversions_with_utm(people, form, acme_client):
    admin = people["admin"]
    linked = campaign(admin, name=f"Spring {tag()}")
    slug = f"spring-{tag()}"
    page = landing.create(
        actor=admin,
        fields={
            "name": f"Spring {tag()}",
            "slug": slug,
            "description": "Twenty percent off this spring",
            "blocks": blocks(form.pk),
            "status": "published",
            "campaign_id": linked.pk,
        },
    )
    got = acme_client.get(f"/p/{slug}/?utm_source=newsletter&utm_campaign=spring", **BROWSER)
    html = got.content.decode()
    assert got.status_code == 200 and got["Cache-Control"] == "public, no-cache" and got["ETag"]
    assert '<meta property="og:title" content="Spring offer">' not in html  # the page's title, not a block's
    assert f'<meta property="og:title" content="{page.title}">' in html
    assert '<meta property="og:description" content="Twenty percent off this spring">' in html
    assert '<meta property="og:image" content="https://cdn.example.org/spring.png">' in html
    assert "<script>alert" not in html and "onclick" not in html
    assert 'name="utm_source" value="newsletter"' in html and '<label for="f-name">' in html

    again = acme_client.get(f"/p/{slug}/", HTTP_IF_NONE_MATCH=got["ETag"], **BROWSER)
    assert again.status_code == 304
    # Not counted: the same visitor again within 30 minutes (above), a crawler, a HEAD, a prefetch.
    bot = {"HTTP_USER_AGENT": "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"}
    assert acme_client.get(f"/p/{slug}/?utm_source=bot", **bot).status_code == 200
    assert acme_client.head(f"/p/{slug}/", **BROWSER).status_code == 200
    assert acme_client.get(f"/p/{slug}/", HTTP_SEC_PURPOSE="prefetch", REMOTE_ADDR="10.0.0.9", **BROWSER)
    # Another visitor (another address) is counted, with the parameters they came with.
    acme_client.get(f"/p/{slug}/?utm_source=mastodon&utm_medium=social", REMOTE_ADDR="10.0.0.7", **BROWSER)
    came = sorted(
        Visit.objects.filter(page=page).values_list("utm", flat=True), key=lambda utm: utm["utm_source"]
    )
    assert came == [
        {"utm_source": "mastodon", "utm_medium": "social"},
        {"utm_source": "newsletter", "utm_campaign": "spring"},
    ]
    assert all(len(visitor) == 64 for visitor in Visit.objects.values_list("visitor", flat=True))

    bad = acme_client.post(f"/p/{slug}/", {"email": "nope", "utm_source": "newsletter"})
    assert (
        bad.status_code == 400
        and "is required" in bad.content.decode()
        and not Conversion.objects.filter(page=page)
    )

    sent = acme_client.post(
        f"/p/{slug}/",
        {"name": "Ada", "email": "ada@example.org", "utm_source": "newsletter", "utm_campaign": "spring"},
    )
    assert sent.status_code == 302 and sent["Location"] == f"/p/{slug}/?sent=1#form"
    conversion = Conversion.objects.get(page=page)
    assert conversion.utm == {"utm_source": "newsletter", "utm_campaign": "spring"}
    submission = Submission.objects.get(pk=conversion.submission_id)
    assert submission.answers["email"] == "ada@example.org"
    # The form's responses show where the respondent came from too.
    assert submission.utm == {"utm_source": "newsletter", "utm_campaign": "spring"}
    answers = ok(admin, "searchFormSubmissions", {"formId": form.pk})
    assert "newsletter" in str(answers) and "spring" in str(answers)
    page.refresh_from_db()
    assert (page.visits, page.conversions) == (2, 1)

    figures = ok(admin, "getCampaignPerformance", {"campaignId": linked.pk})["figures"]
    assert (figures["landingVisits"], figures["conversions"]) == (2, 1)
    listed = {row["id"]: row for row in ok(admin, "getMarketingDashboard")["landingPages"]}
    assert (listed[page.pk]["visits"], listed[page.pk]["conversions"]) == (2, 1)

    # An update changes the ETag at once; taking it down or deleting it answers 404.
    # A published page's change is seen by the public: a person confirms it, after it is checked.
    longer = {"pageId": page.pk, "changes": {"title": "Spring, longer"}}
    assert "confirmationToken" in str(call(admin, "updateLandingPage", longer))
    assert "Spring, longer" not in acme_client.get(f"/p/{slug}/").content.decode()
    assert "blocks[0].type" in refused(
        admin, "updateLandingPage", {"pageId": page.pk, "changes": {"blocks": [{"type": "video"}]}}
    )
    assert ok(admin, "updateLandingPage", {"pageId": page.pk, "changes": {"name": f"Spring {tag()}"}})
    ok(admin, "updateLandingPage", longer, **ELICIT)
    changed = acme_client.get(f"/p/{slug}/", HTTP_IF_NONE_MATCH=got["ETag"])
    assert (
        changed.status_code == 200
        and changed["ETag"] != got["ETag"]
        and "Spring, longer" in changed.content.decode()
    )
    # The form closed since: the page stays and says so in its place, its ETag changes, and a
    # late answer is refused with the same words, nothing kept.
    from apps.forms import services as form_services

    form_services.form_manage(actor=admin, form=form, action="close")
    closed = acme_client.get(f"/p/{slug}/", HTTP_IF_NONE_MATCH=changed["ETag"])
    shown = closed.content.decode()
    assert closed.status_code == 200 and 'name="email"' not in shown and "This form is closed" in shown
    answers = Submission.objects.count()
    late = acme_client.post(f"/p/{slug}/", {"name": "Late", "email": "late@example.com"})
    assert late.status_code == 403 and "This form is closed" in late.content.decode()
    assert Submission.objects.count() == answers
    ok(admin, "updateLandingPage", {"pageId": page.pk, "changes": {"status": "draft"}}, **ELICIT)
    assert acme_client.get(f"/p/{slug}/").status_code == 404
    assert "is not published for the public" in refused(
        admin, "updateLandingPage", {"pageId": page.pk, "changes": {"status": "published"}}, **ELICIT
    )
    again = {"status": "published", "blocks": blocks()}
    ok(admin, "updateLandingPage", {"pageId": page.pk, "changes": again}, **ELICIT)
    assert acme_client.get(f"/p/{slug}/").status_code == 200
    asked = call(admin, "deleteLandingPage", {"pageId": page.pk})
    assert "confirmationToken" in str(asked) and acme_client.get(f"/p/{slug}/").status_code == 200
    assert ok(admin, "deleteLandingPage", {"pageId": page.pk}, **ELICIT)["slug"] == slug
    assert acme_client.get(f"/p/{slug}/").status_code == 404
    assert "restore: true" in refused(
        admin, "updateLandingPage", {"pageId": page.pk, "changes": {"name": "Z"}}
    )

    # Restored from the trash: a draft again (publishing it is a person's choice), its figures kept.
    back = ok(admin, "deleteLandingPage", {"pageId": page.pk, "restore": True})
    assert (back["restored"], back["status"]) == (True, "draft")
    assert acme_client.get(f"/p/{slug}/").status_code == 404
    assert LandingPage.objects.get(pk=page.pk).conversions == 1
    assert "not in the trash" in refused(admin, "deleteLandingPage", {"pageId": page.pk, "restore": True})
    # Its address taken meanwhile by another live page: refused, nothing written.
    ok(admin, "deleteLandingPage", {"pageId": page.pk}, **ELICIT)
    ok(admin, "createLandingPage", {"landingPage": {"name": f"Other {tag()}", "slug": slug}})
    assert f"/p/{slug}/" in refused(admin, "deleteLandingPage", {"pageId": page.pk, "restore": True})
    assert LandingPage.objects.get(pk=page.pk).deleted_at is not None


def test_a_private_page_is_never_listed_named_or_changed_by_another(people):
    owner, member = people["owner"], people["member"]
    secret = landing.create(actor=owner, fields={"name": f"Secret {tag()}", "visibility": "private"})
    listed = {row["id"] for row in ok(member, "getMarketingDashboard")["landingPages"]}
    assert secret.pk not in listed
    message = refused(member, "updateLandingPage", {"pageId": secret.pk, "changes": {"name": "Mine"}})
    assert "not found" in message.lower() and secret.name not in message
    assert "private" in refused(
        owner, "updateLandingPage", {"pageId": secret.pk, "changes": {"status": "published"}}, **ELICIT
    )
