"""Contacts' data migrations, run forwards and backwards on real rows."""

import importlib

from django.apps import apps

from apps.contacts.models import Contact
from apps.contacts.tests.factories import ContactFactory

visibility = importlib.import_module("apps.contacts.migrations.0003_visibility_workspace")


def test_an_everyone_contact_reads_back_workspace_and_back_again(people):
    shared = ContactFactory(actor=people["member"])
    private = ContactFactory(actor=people["member"], visibility="private")
    Contact.objects.filter(pk=shared.pk).update(visibility="everyone")  # as stored before

    visibility.everyone_to_workspace(apps, None)

    assert Contact.objects.get(pk=shared.pk).visibility == "workspace"
    assert Contact.objects.get(pk=private.pk).visibility == "private"
    assert Contact.objects.restrict(people["viewer"]).filter(pk=shared.pk).exists()

    visibility.workspace_to_everyone(apps, None)

    assert Contact.objects.get(pk=shared.pk).visibility == "everyone"
    assert Contact.objects.get(pk=private.pk).visibility == "private"
