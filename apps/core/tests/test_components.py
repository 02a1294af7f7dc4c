"""The pages' components (apps/core/templatetags/pages.py) render their markup the one way: a
records table in its scrolling region with its empty state, a form, a posted action, a filter's
list and the way back, from what the page says."""

import re
from typing import Any

import pytest
from django.template import TemplateSyntaxError, engines
from django.urls import reverse
from django.utils.safestring import SafeString


def render(source: str, **context: Any) -> str:
    return engines["django"].from_string("{% load i18n %}" + source).render(context)


def squeezed(html: str) -> str:
    # The components' line breaks (and the indentation after them) are layout, not content.
    return re.sub(r">\s+<", "><", re.sub(r"\s*\n\s*", "", html)).strip()


TABLE = (
    '{% table _("Bank accounts") _("Bank account") _("Sum of lines")|numeric '
    '_("Needs")|shown_if:with_needs "" %}'
    "\n  {% for row in rows %}<tr><td>{{ row }}</td></tr>{% endfor %}"
    "\n{% empty %}{% if query %}No match.{% else %}None yet.{% endif %}"
    "\n{% endtable %}"
)


def test_a_table_is_a_named_scrolling_region_with_its_heads_and_rows():
    html = squeezed(render(TABLE, rows=["a <b>", "c"], with_needs=True))

    assert html == (
        '<div class="table-scroll" role="region" aria-label="Bank accounts" tabindex="0">'
        '<table class="list"><thead><tr><th>Bank account</th><th class="number">Sum of lines</th>'
        "<th>Needs</th><th></th></tr></thead>"
        "<tbody><tr><td>a &lt;b&gt;</td></tr><tr><td>c</td></tr></tbody></table></div>"
    )


def test_a_table_without_rows_shows_its_empty_state_across_the_columns_it_shows():
    html = squeezed(render(TABLE, rows=[], with_needs=False, query="x"))

    assert "<th>Needs</th>" not in html
    assert '<tbody><tr><td colspan="3" class="muted">No match.</td></tr></tbody>' in html


def test_a_table_without_an_empty_part_stays_empty_and_a_foot_follows_the_rows():
    html = squeezed(
        render(
            '{% table "Totals" "What" "Sum" heading=3 class="deliveries" section="totals" testid="sums" %}'
            "{% for row in rows %}<tr><td>{{ row }}</td></tr>{% endfor %}"
            "{% foot %}<tr><th>Total</th><td>{{ total }}</td></tr>{% endtable %}",
            rows=[],
            total=7,
        )
    )

    assert html == (
        '<h3>Totals</h3><div class="table-scroll" role="region" aria-label="Totals" tabindex="0">'
        '<table class="list deliveries" data-section="totals" data-testid="sums">'
        "<thead><tr><th>What</th><th>Sum</th></tr></thead><tbody></tbody>"
        "<tfoot><tr><th>Total</th><td>7</td></tr></tfoot></table></div>"
    )


def test_a_table_refuses_an_option_it_does_not_know():
    with pytest.raises(TemplateSyntaxError):
        render('{% table "Label" "Head" colour="red" %}{% endtable %}')


def test_a_posted_action_carries_the_token_its_field_and_its_question():
    html = render(
        '{% post_button "settings:person" 7 name="action" value="deactivate" text=_("Deactivate") '
        'confirm="Deactivate them?" kind="danger" %}',
        csrf_token="TOKEN",
    )

    assert html.strip() == (
        f'<form method="post" action="{reverse("settings:person", args=[7])}" class="inline" '
        'data-confirm="Deactivate them?"><input type="hidden" name="csrfmiddlewaretoken" value="TOKEN">'
        '<input type="hidden" name="action" value="deactivate">'
        '<button type="submit" class="danger">Deactivate</button></form>'
    )


def test_a_plain_action_is_a_button_alone():
    html = render('{% post_button "settings:token-revoke" 3 text="Revoke" %}', csrf_token="TOKEN")

    assert "data-confirm" not in html and 'name="action"' not in html
    assert '<button type="submit">Revoke</button>' in html


def test_a_form_posts_its_fields_to_the_page_named_or_to_itself():
    class Form:
        def __str__(self) -> SafeString:
            # A form renders its fields as markup already escaped, as Django's forms do.
            return SafeString('<input name="label">')

    named = squeezed(
        render(
            '{% post_form form "settings:role" 4 button=_("Save") heading="Edit" novalidate=True %}',
            form=Form(),
            csrf_token="TOKEN",
        )
    )
    itself = squeezed(
        render(
            '{% post_form form button="Roll" primary=False confirm="Sure?" testid="roll" %}',
            form=Form(),
            csrf_token="TOKEN",
        )
    )

    assert named == (
        f'<h2>Edit</h2><form method="post" action="{reverse("settings:role", args=[4])}" class="stack" '
        'novalidate><input type="hidden" name="csrfmiddlewaretoken" value="TOKEN"><input name="label">'
        '<button type="submit" class="primary">Save</button></form>'
    )
    assert itself.startswith('<form method="post" class="stack" data-confirm="Sure?" data-testid="roll">')
    assert itself.endswith('<button type="submit">Roll</button></form>')


def test_a_filter_list_offers_any_first_and_keeps_the_choice():
    pairs = render(
        '{% choose _("Stage") "stage" stages stage %}', stages=[("lead", "Lead"), ("won", "Won")], stage="won"
    )
    names = render('{% choose "Tool" "tool" tools tool %}', tools=["listTasks", "getTask"], tool="")

    assert squeezed(pairs) == (
        '<label>Stage<select name="stage"><option value="">any</option>'
        '<option value="lead">Lead</option><option value="won" selected>Won</option></select></label>'
    )
    assert '<option value="listTasks">listTasks</option><option value="getTask">getTask</option>' in names
    assert " selected" not in names


def test_the_way_back_names_its_list():
    html = render('{% back "settings:tokens" _("Access tokens") query="show=templates" %}')

    assert (
        html.strip()
        == f'<p class="back"><a href="{reverse("settings:tokens")}?show=templates">Access tokens</a></p>'
    )


def test_percent_signs_read_as_written():
    # Django doubles them in a `_("...")` argument; only its translate tag undoes that by itself.
    html = render(
        '{% table _("Rates") _("Rate (%)")|numeric %}{% endtable %}'
        '{% post_button "settings:tokens" text=_("5% off") %}'
    )

    assert '<th class="number">Rate (%)</th>' in html
    assert ">5% off</button>" in html and "%%" not in html
