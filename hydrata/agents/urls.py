from django.urls import path

from hydrata.agents import views

app_name = "agents"

urlpatterns = [
    path("", views.grants_page, name="grants"),
    path("grants/new/", views.create_grant, name="grant-create"),
    path("grants/<int:grant_id>/revoke/", views.revoke_grant, name="grant-revoke"),
    path("grants/revoke-all/", views.revoke_all_grants, name="grants-revoke-all"),
    path("pause/", views.set_paused, name="pause"),
    path("spend-limit/", views.set_spend_limit, name="spend-limit"),
    path("run-approval/", views.set_run_approval, name="run-approval"),
]
