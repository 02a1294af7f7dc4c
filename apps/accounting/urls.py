from django.urls import path

from apps.accounting import views

app_name = "accounting"

urlpatterns = [
    path("settings/accounting/", views.overview, name="overview"),
    path("settings/accounting/bank-accounts/", views.bank_account_add, name="bank-account-add"),
    path("settings/accounting/chasing/", views.chasing, name="chasing"),
    path(
        "settings/accounting/bank-lines/<int:pk>/record-suggested/",
        views.reconcile_suggested,
        name="reconcile-suggested",
    ),
    path("settings/accounting/bank-lines/<int:pk>/match/", views.reconcile_match, name="reconcile-match"),
    path(
        "settings/accounting/bank-matches/<int:pk>/unmatch/",
        views.reconcile_unmatch,
        name="reconcile-unmatch",
    ),
    path("settings/accounting/lock-date/", views.lock_date, name="lock-date"),
    path("settings/accounting/duties/", views.duties, name="duties"),
    path(
        "settings/accounting/reports/<slug:report>.<slug:format>", views.report_export, name="report-export"
    ),
]
