from django.urls import path

from hydrata.agents.api import views

urlpatterns = [
    path("agents/me/", views.AgentMeView.as_view(), name="agents-me"),
    path("capability-suggestions/", views.CapabilitySuggestionCreateView.as_view(), name="capability-suggestions"),
]
