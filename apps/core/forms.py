"""How every form of the pages renders: `{{ form }}` (and `{{ field.as_field_group }}`) give the
house markup, not Django's default (labels with colons, a bulleted `ul.errorlist`).

A field is its label, its widget, its errors (`div.error`, an alert, which atrium.js brings into
view and focuses) and its help text; the widget points at both with `aria-describedby` and is
`aria-invalid` while in error (Django adds those attributes; the ids are the ones it expects). A
group of checkboxes or radio buttons is a fieldset with a legend.
"""

from django.forms.renderers import DjangoTemplates


class AtriumFormRenderer(DjangoTemplates):
    form_template_name = "core/forms/form.html"
    field_template_name = "core/forms/field.html"
