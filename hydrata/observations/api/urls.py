"""Mounted under /api/v2/anuga/ beside the anuga routes (config/urls.py)."""

from django.urls import path

from hydrata.observations.api import comparisons, events, observations

PROJECT = "projects/<int:project_id>/"

urlpatterns = [
    path(f"{PROJECT}events/", events.EventListCreateView.as_view(), name="flood-events"),
    path(f"{PROJECT}events/<int:event_id>/", events.EventDetailView.as_view(), name="flood-event-detail"),
    path(f"{PROJECT}events/<int:event_id>/points/", events.EventPointsView.as_view(), name="flood-event-points"),
    path(
        f"{PROJECT}events/<int:event_id>/comparisons/",
        events.EventComparisonsView.as_view(),
        name="flood-event-comparisons",
    ),
    path(
        f"{PROJECT}events/<int:event_id>/observations/import/",
        events.ObservationImportView.as_view(),
        name="observations-import",
    ),
    path(f"{PROJECT}observations/", observations.ObservationListCreateView.as_view(), name="observations"),
    path(
        f"{PROJECT}observations/<int:observation_id>/",
        observations.ObservationDetailView.as_view(),
        name="observation-detail",
    ),
    path(f"{PROJECT}rankings/", comparisons.RankingView.as_view(), name="rankings"),
    path("runs/<int:run_id>/compare/", comparisons.RunCompareView.as_view(), name="run-compare"),
    path("comparisons/<int:comparison_id>/", comparisons.ComparisonDetailView.as_view(), name="comparison-detail"),
    path(
        "comparisons/<int:comparison_id>/recompute/",
        comparisons.ComparisonRecomputeView.as_view(),
        name="comparison-recompute",
    ),
]
