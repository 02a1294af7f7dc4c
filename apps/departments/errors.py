"""The Departments area's failures (apps.core.errors): each names the problem and what to do next."""

from django.utils.translation import gettext_lazy as _

from apps.core.errors import NotFound


class NotAMember(NotFound):
    msg_format = _("{email} is not a member of department {department}.")
