from django.urls import path

from hydrata.agents import views

app_name = "agents"

urlpatterns = [
    path("", views.grants_page, name="grants"),
]
