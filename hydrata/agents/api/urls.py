from django.urls import path

from hydrata.agents.api import views
from hydrata_contract import paths

urlpatterns = [
    path(paths.AGENT_ME.django(), views.AgentMeView.as_view(), name=paths.AGENT_ME.name),
    path(
        paths.CAPABILITY_SUGGESTIONS.django(),
        views.CapabilitySuggestionCreateView.as_view(),
        name=paths.CAPABILITY_SUGGESTIONS.name,
    ),
]
