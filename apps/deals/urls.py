from django.urls import path

from apps.deals import views, views_outreach

app_name = "deals"

urlpatterns = [
    path("settings/deals/", views.board, name="board"),
    path("settings/deals/<int:deal_id>/", views.deal_detail, name="detail"),
    path("settings/deals/outreach/", views_outreach.outreach, name="outreach"),
]
