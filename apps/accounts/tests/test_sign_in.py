import re

import pytest
from django.contrib.auth.hashers import make_password

from config.settings import security

pytestmark = pytest.mark.django_db

WRONG = "The email or password is not right."


def test_the_sign_in_page_has_email_password_and_a_sign_in_button(acme_client):
    body = acme_client.get("/").content.decode()

    assert re.search(r"<label[^>]*>Email</label>", body)
    assert re.search(r"<label[^>]*>Password</label>", body)
    assert re.search(r"<button[^>]*>Sign in</button>", body)


def test_a_person_signs_in_and_reaches_the_settings(acme_client):
    response = acme_client.post(
        "/accounts/sign-in/", {"username": "Member@Acme.example", "password": "atrium-demo"}
    )

    assert response.status_code == 302
    assert response["Location"] == "/settings/"
    page = acme_client.get("/settings/").content.decode()
    assert "member@acme.example" in page and "Member" in page


@pytest.mark.parametrize("email", ["owner@acme.example", "stranger@acme.example"])
def test_a_wrong_password_says_so_without_telling_whether_the_email_exists(acme_client, email):
    response = acme_client.post("/accounts/sign-in/", {"username": email, "password": "nope"})

    assert response.status_code == 200
    assert WRONG in response.content.decode()


def test_a_deactivated_person_gets_the_same_answer(acme_client, people):
    people["member"].is_active = False
    people["member"].save()

    response = acme_client.post(
        "/accounts/sign-in/", {"username": "member@acme.example", "password": "atrium-demo"}
    )

    assert WRONG in response.content.decode()


def test_a_person_of_acme_cannot_sign_in_at_globex(globex_client):
    response = globex_client.post(
        "/accounts/sign-in/", {"username": "owner@acme.example", "password": "atrium-demo"}
    )

    assert WRONG in response.content.decode()
    assert globex_client.get("/settings/").status_code == 302


def test_an_acme_session_is_worth_nothing_at_globex(acme_client, globex_client):
    acme_client.post("/accounts/sign-in/", {"username": "owner@acme.example", "password": "atrium-demo"})
    globex_client.cookies = acme_client.cookies

    response = globex_client.get("/settings/")

    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/sign-in/")


def test_signing_out_ends_the_session(acme_client):
    acme_client.post("/accounts/sign-in/", {"username": "owner@acme.example", "password": "atrium-demo"})

    acme_client.post("/accounts/sign-out/")

    assert acme_client.get("/settings/").status_code == 302


def test_the_people_page_offers_management_only_to_those_who_may_manage(acme_client, people):
    acme_client.force_login(people["member"])
    member_page = acme_client.get("/settings/people/").content.decode()
    acme_client.force_login(people["admin"])
    admin_page = acme_client.get("/settings/people/").content.decode()

    assert "viewer@acme.example" in member_page and "Add a person" not in member_page
    assert "Add a person" in admin_page and "Deactivate" in admin_page


def test_a_password_hashed_with_pbkdf2_is_rehashed_with_argon2id_at_sign_in(acme_client, people, settings):
    settings.PASSWORD_HASHERS = security.PASSWORD_HASHERS
    member = people["member"]
    member.password = make_password("atrium-demo", hasher="pbkdf2_sha256")
    member.save(update_fields=["password"])

    response = acme_client.post(
        "/accounts/sign-in/", {"username": "member@acme.example", "password": "atrium-demo"}
    )

    assert response.status_code == 302
    member.refresh_from_db()
    assert member.password.startswith("argon2$argon2id$")
