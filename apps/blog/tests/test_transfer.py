"""Blog posts exported through the Platform's export tool (apps.blog.transfer): the posts the
person may read, another person's private draft never (but to the blog's administrators), and
never a post's text."""

import csv
import io

from apps.blog.tests.factories import PostFactory
from apps.catalogue.testing import ok, person_with, refused


def _table(user, query):
    answer = ok(user, "exportDataCsv", {"entityType": "blog_post", "query": query})
    rows = list(csv.reader(io.StringIO(answer["csvText"])))
    return [dict(zip(rows[0], row, strict=True)) for row in rows[1:]]


def test_posts_are_listed_as_each_person_may_read_them(people):
    PostFactory(
        actor=people["member"],
        title="Postmarker launch",
        body="Words of the body stay out",
        language="de",
        tags=["news"],
    )
    PostFactory(actor=people["member"], title="Postmarker draft", visibility="private")
    PostFactory(actor=people["member"], title="=Postmarker sum")

    member = _table(people["member"], "Postmarker")
    viewer = _table(people["viewer"], "Postmarker")

    assert sorted(row["title"] for row in member) == [
        "'=Postmarker sum",
        "Postmarker draft",
        "Postmarker launch",
    ]
    assert sorted(row["title"] for row in viewer) == ["'=Postmarker sum", "Postmarker launch"]
    launch = next(row for row in member if row["title"] == "Postmarker launch")
    assert (launch["language"], launch["status"], launch["tags"], launch["ownerEmail"]) == (
        "de",
        "draft",
        "news",
        "member@acme.example",
    )
    assert "Words of the body" not in str(member) and launch["createdAt"][:2] == "20"


def test_a_role_that_may_not_read_the_blog_may_not_export_it(acme):
    person = person_with({"platform.view", "files.view", "files.edit"}, email="no-blog@acme.example")

    assert "permission" in refused(person, "exportDataCsv", {"entityType": "blog_post"})
