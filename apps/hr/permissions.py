"""The HR area's permissions. Restricted employee fields (pay, national identifiers, health) and
grievances are HR's alone: admin level, so a member never sees them unless a role gives them."""

from django.utils.translation import gettext_lazy as _

from apps.core.permissions import Level, PermissionEnum, register_permissions


@register_permissions
class HrPerm(PermissionEnum):
    VIEW = "hr.view", Level.READ, _("See employees (without restricted fields), own leave and time")
    LEAVE = "hr.leave", Level.WRITE, _("Request leave for oneself")
    TIME = "hr.time", Level.WRITE, _("Clock in and out, see one's own time entries")
    EMPLOYEES = "hr.employees", Level.ADMIN, _("Create and change employment records, invite employees")
    RESTRICTED = "hr.restricted", Level.ADMIN, _("See and change pay, national identifiers and health")
    APPROVE_LEAVE = "hr.approve_leave", Level.ADMIN, _("Approve and deny leave, see everyone's leave")
    TIME_MANAGE = "hr.time_manage", Level.ADMIN, _("See and correct everyone's time entries")
    ONBOARDING = "hr.onboarding", Level.ADMIN, _("Start onboarding and manage checklists")
    REVIEWS = "hr.reviews", Level.WRITE, _("Take part in performance reviews")
    REVIEWS_MANAGE = "hr.reviews_manage", Level.ADMIN, _("Run review cycles and see every review")
    TRAINING = "hr.training", Level.ADMIN, _("Record training and see everyone's training")
    POLICIES = "hr.policies", Level.ADMIN, _("Publish HR policies and see acknowledgments")
    GRIEVANCES = "hr.grievances", Level.ADMIN, _("See and handle grievances (HR only, every read audited)")
    HIRING = "hr.hiring", Level.ADMIN, _("Run hiring pipelines and candidates")
    ADMIN = "hr.admin", Level.ADMIN, _("See and change every HR record")
