"""Forms render the house way (apps/core/forms.py): the label as written, the errors as one
alert the field points at, the help text the field points at; never Django's default markup."""

import re
from pathlib import Path

from django import forms
from django.conf import settings

ROOT = Path(settings.BASE_DIR)


class Sample(forms.Form):
    name = forms.CharField(label="Name", max_length=5, help_text="What to call it.")
    colours = forms.MultipleChoiceField(
        label="Colours", choices=[("red", "Red"), ("blue", "Blue")], widget=forms.CheckboxSelectMultiple
    )
    secret = forms.CharField(widget=forms.HiddenInput)

    def clean(self):  # type: ignore[no-untyped-def]
        raise forms.ValidationError("Nothing is accepted today.")


def test_a_field_in_error_shows_its_label_error_and_help_text_and_points_at_them():
    html = str(Sample({"name": "far too long", "secret": "s"}))

    assert '<label for="id_name">Name</label>' in html  # no colon
    assert '<div class="error" role="alert" id="id_name_error">' in html
    assert "Ensure this value has at most 5 characters (it has 12)." in html
    assert '<small class="muted" id="id_name_helptext">What to call it.</small>' in html
    field = re.search(r"<input [^>]*name=\"name\"[^>]*>", html)
    assert field is not None
    assert 'aria-invalid="true"' in field.group()
    assert 'aria-describedby="id_name_helptext id_name_error"' in field.group()
    assert "errorlist" not in html and "<ul" not in html


def test_errors_of_the_whole_form_are_one_alert_before_the_fields():
    html = str(Sample({"name": "ok", "colours": ["red"], "secret": "s"}))

    assert html.lstrip().startswith('<div class="error" role="alert">Nothing is accepted today.</div>')
    assert 'aria-invalid="true"' not in html


def test_a_group_of_checkboxes_is_a_fieldset_named_by_its_legend_and_hidden_fields_come_last():
    html = str(Sample())

    assert re.search(r"<fieldset>\s*<legend>Colours</legend>", html)
    assert '<label for="id_colours_0"><input type="checkbox" name="colours" value="red"' in html
    assert html.rstrip().endswith('<input type="hidden" name="secret" id="id_secret">')


def test_no_template_renders_a_form_the_default_django_way():
    templates = [*ROOT.glob("apps/*/templates/**/*.html"), *ROOT.glob("templates/**/*.html")]
    assert len(templates) > 20
    default_way = re.compile(r"\.as_(div|p|table|ul)\b|\{\{\s*form\.non_field_errors\s*\}\}")
    assert [str(path.relative_to(ROOT)) for path in templates if default_way.search(path.read_text())] == []
