"""The pages' menu (apps.core.navigation): each link in a group, the groups in one order, and a
person sees the links their role opens, of the areas their workspace installed, and no empty
group. tests/test_browser_layout.py shows it in a browser, at a laptop's and a phone's width."""

import pytest
from django.contrib.auth.models import AnonymousUser

from apps.catalogue.testing import person_with
from apps.core import areas, navigation
from apps.core.kinds.testing import without_areas
from apps.core.navigation import Group, NavItem

# What a person without any permission of the workspace's sees: their own pages, and the pages
# that connect an agent (each page says what a person may do there).
EVERYONE = {
    "you": ["profile", "password", "tokens", "connected-apps"],
    "developers": ["agent-connection", "api-keys", "developers"],
}


def menu(person) -> dict[str, list[str]]:  # type: ignore[no-untyped-def]
    return {section.key: [link.key for link in section.links] for section in navigation.visible_to(person)}


def test_every_areas_links_are_in_the_group_it_declares(people):
    shown = menu(people["owner"])

    for area in areas.all_areas():
        assert isinstance(area.group, Group), area.key
        for item in area.nav:
            assert item.key in shown[(item.group or area.group).value], (area.key, item.key)


def test_the_groups_come_in_their_order_and_the_links_in_theirs(people):
    shown = navigation.visible_to(people["owner"])

    assert [section.group for section in shown] == [
        group for group in Group if group in {section.group for section in shown}
    ]
    assert shown[0].group is Group.YOU and shown[0].links[0].key == "profile"
    assert [section.group for section in shown[-2:]] == [Group.DEVELOPERS, Group.ADMINISTRATION]
    assert [link.key for link in shown[0].links] == [
        "profile",
        "password",
        "notifications",
        "tokens",
        "connected-apps",
    ]
    assert shown[0].links[0].url == "/settings/" and str(shown[0].label) == "You"


def test_a_role_sees_the_areas_it_may_open_and_no_group_left_empty(acme):
    nothing = person_with(set(), email="menu-nothing@acme.example")
    contacts = person_with({"contacts.view"}, email="menu-contacts@acme.example")
    books = person_with({"accounting.view", "people.view"}, email="menu-books@acme.example")

    assert menu(nothing) == EVERYONE
    assert menu(contacts) == {**EVERYONE, "sales": ["contacts"]}
    assert menu(books) == {**EVERYONE, "finance": ["accounting"], "administration": ["people"]}
    assert list(menu(books)) == ["you", "finance", "developers", "administration"]


def test_an_area_the_workspace_has_not_installed_is_not_in_the_menu(people):
    with without_areas("deals", "accounting"):
        shown = menu(people["owner"])

    assert "finance" not in shown  # Accounting was its one link
    assert shown["sales"] == ["contacts", "group-accounts", "support"]
    assert {"deals", "deals-outreach"} <= set(menu(people["owner"])["sales"])


def test_nobody_signed_in_has_a_menu():
    assert navigation.visible_to(AnonymousUser()) == []


def test_a_link_names_its_group_and_an_areas_link_a_permission_of_the_area():
    contacts = areas.get("contacts")
    assert contacts is not None

    with pytest.raises(ValueError, match="names no group"):
        navigation.register(NavItem("nowhere", "Nowhere", "settings:home"))
    with pytest.raises(ValueError, match="needs a permission of the area"):
        contacts.menu_item(NavItem("contacts-deals", "Deals", "deals:board", "deals.view"))
    # Without one named, the area's VIEW; without a group named, the area's.
    item = contacts.menu_item(NavItem("contacts-again", "Contacts", "contacts:list"))
    assert (item.permission, item.group) == ("contacts.view", Group.SALES)
    elsewhere = contacts.menu_item(NavItem("x", "X", "contacts:list", group=Group.ADMINISTRATION))
    assert elsewhere.group is Group.ADMINISTRATION


def test_the_pages_show_the_menu_in_its_groups(acme_client, acme):
    acme_client.force_login(person_with({"contacts.view"}, email="menu-page@acme.example"))

    page = acme_client.get("/settings/contacts/").content.decode()

    assert page.count('<details class="menu-group" open>') == 3
    assert "<summary>Sales</summary>" in page and "<summary>Work</summary>" not in page
    assert '<a href="/settings/contacts/" aria-current="page">Contacts</a>' in page
    assert 'href="/settings/accounting/"' not in page
