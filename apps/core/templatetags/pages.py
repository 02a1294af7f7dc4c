"""The markup the settings pages share, written once: each page says what it shows, these tags how
(available in every template, as TEMPLATES `builtins`; `{% load pages %}` works too). Their
markup is in apps/core/templates/core/components/.

- `{% table label head... %} rows {% empty %} ... {% foot %} ... {% endtable %}`: a table of
  records in its own scrolling region (`label` names the region). The body is its rows, usually a
  `{% for %}`; the `{% empty %}` part, when there is one, is shown across the table when the body
  gives no row. A head is a translatable string (`_("Due")`), `|numeric` for a column of figures
  (right-aligned), `|shown_if:condition` for a column some readers do not get. `heading=2` puts
  the label above the table as its heading (h2); `class=`, `section=` (data-section) and
  `testid=` (data-testid) go on the table.
- `{% choose label name choices selected %}`: a filter's drop-down list, "any" first; `choices`
  are (value, label) pairs, or values that are their own labels.
- `{% post_button "url-name" arg... text=_("Restore") %}`: one action a button posts (restore,
  revoke, deactivate), with `confirm=` the question asked first (static/js/atrium.js),
  `kind="danger"` for what cannot be undone (or "link", a button that looks like a link), and
  `name=`/`value=` a field the form sends along.
- `{% post_form form "url-name" arg... button=_("Save") %}`: a form that posts its fields (to
  the page itself without a URL name), with `primary=False` for a button that is not the page's
  main action, `confirm=`, `novalidate=True` (the server's messages rather than the browser's),
  `testid=`, and `heading=` the words of an h2 above it.
- `{% back "url-name" label %}`: the link from a record's page back to its list (`query=` what
  the list's address carries after `?`).
"""

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from django import template
from django.template.base import FilterExpression, NodeList, Parser, Token
from django.template.context import Context
from django.template.library import parse_bits
from django.urls import reverse
from django.utils.safestring import SafeString
from django.utils.text import smart_split

register = template.Library()


def words(value: Any) -> str:
    """A translatable argument (`_("Rate (%)")`) as `{% translate %}` shows it: Django doubles the
    percent signs of such a literal (they are not format flags) and only that tag undoes it."""
    return str(value).replace("%%", "%")


@dataclass(frozen=True)
class Head:
    """A column's head: its words, whether it holds figures, whether this reader gets it."""

    text: str
    numeric: bool = False
    shown: bool = True

    def __str__(self) -> str:
        return str(self.text)


def _head(value: Any) -> Head:
    return value if isinstance(value, Head) else Head(words(value))


@register.filter
def numeric(value: Any) -> Head:
    return replace(_head(value), numeric=True)


@register.filter
def shown_if(value: Any, condition: Any) -> Head:
    return replace(_head(value), shown=bool(condition))


class TableNode(template.Node):
    template_name = "core/components/table.html"

    def __init__(
        self,
        label: FilterExpression,
        heads: list[FilterExpression],
        options: dict[str, FilterExpression],
        parts: dict[str, NodeList],
    ) -> None:
        self.label, self.heads, self.options, self.parts = label, heads, options, parts

    def part(self, name: str, context: Context) -> SafeString:
        # What a part renders is escaped already; the line breaks around it are the page's layout.
        return SafeString(self.parts[name].render(context).strip())

    def render(self, context: Context) -> SafeString:
        heads = [_head(head.resolve(context)) for head in self.heads]
        rows = self.part("rows", context)
        values = {
            "label": words(self.label.resolve(context)),
            "heads": [head for head in heads if head.shown],
            "rows": rows,
            "empty": "" if rows else self.part("empty", context),
            "foot": self.part("foot", context),
            **{name: value.resolve(context) for name, value in self.options.items()},
        }
        assert context.template is not None  # a tag renders inside a template
        return context.template.engine.get_template(self.template_name).render(context.new(values))


TABLE_OPTIONS = ("heading", "class", "section", "testid")


@register.tag
def table(parser: Parser, token: Token) -> TableNode:
    # Not token.split_contents(): it takes `_("Due")|numeric` for an unfinished `_("...")`.
    bits = list(smart_split(token.contents))
    args, options = parse_bits(
        parser,
        bits[1:],
        params=["label"],
        varargs="heads",
        varkw=None,
        defaults=None,
        kwonly=TABLE_OPTIONS,
        # Every option may be left out (parse_bits reads the names alone; the template's defaults apply).
        kwonly_defaults=dict.fromkeys(TABLE_OPTIONS, 0),
        takes_context=False,
        name=bits[0],
    )
    parts = {"rows": NodeList(), "empty": NodeList(), "foot": NodeList()}
    part = "rows"
    while True:
        parts[part] = parser.parse(("empty", "foot", "endtable"))
        part = parser.next_token().contents
        if part == "endtable":
            break
    renamed = {"css" if name == "class" else name: value for name, value in options.items()}
    return TableNode(args[0], args[1:], renamed, parts)


@register.inclusion_tag("core/components/choose.html")
def choose(label: str, name: str, choices: Iterable[Any], selected: Any) -> dict[str, Any]:
    pairs = [choice if isinstance(choice, list | tuple) else (choice, choice) for choice in choices]
    return {"label": words(label), "name": name, "choices": pairs, "selected": selected}


@register.inclusion_tag("core/components/post_button.html")
def post_button(
    view_name: str, *args: Any, text: str, confirm: str = "", kind: str = "", name: str = "", value: Any = ""
) -> dict[str, Any]:
    return {
        "action": reverse(view_name, args=args),
        "text": words(text),
        "confirm": words(confirm),
        "kind": kind,
        "name": name,
        "value": value,
    }


@register.inclusion_tag("core/components/post_form.html")
def post_form(
    form: Any,
    view_name: str = "",
    *args: Any,
    button: str,
    primary: bool = True,
    confirm: str = "",
    novalidate: bool = False,
    testid: str = "",
    heading: str = "",
) -> dict[str, Any]:
    return {
        "heading": words(heading),
        "form": form,
        "action": reverse(view_name, args=args) if view_name else "",
        "button": words(button),
        "primary": primary,
        "confirm": words(confirm),
        "novalidate": novalidate,
        "testid": testid,
    }


@register.inclusion_tag("core/components/back.html")
def back(view_name: str, label: str, query: str = "") -> dict[str, Any]:
    url = reverse(view_name)
    return {"url": f"{url}?{query}" if query else url, "label": words(label)}
