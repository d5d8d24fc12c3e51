"""Mounted under /api/v2/ beside the anuga routes (config/urls.py); each route is the contract's
(hydrata_contract/paths.py)."""

from django.urls import path

from hydrata.observations.api import comparisons, events, observations
from hydrata_contract import paths

urlpatterns = [
    path(paths.EVENTS.django(), events.EventListCreateView.as_view(), name=paths.EVENTS.name),
    path(paths.EVENT_DETAIL.django(), events.EventDetailView.as_view(), name=paths.EVENT_DETAIL.name),
    path(paths.EVENT_POINTS.django(), events.EventPointsView.as_view(), name=paths.EVENT_POINTS.name),
    path(paths.EVENT_COMPARISONS.django(), events.EventComparisonsView.as_view(), name=paths.EVENT_COMPARISONS.name),
    path(
        paths.OBSERVATIONS_IMPORT.django(),
        events.ObservationImportView.as_view(),
        name=paths.OBSERVATIONS_IMPORT.name,
    ),
    path(paths.OBSERVATIONS.django(), observations.ObservationListCreateView.as_view(), name=paths.OBSERVATIONS.name),
    path(
        paths.OBSERVATION_DETAIL.django(),
        observations.ObservationDetailView.as_view(),
        name=paths.OBSERVATION_DETAIL.name,
    ),
    path(paths.RANKINGS.django(), comparisons.RankingView.as_view(), name=paths.RANKINGS.name),
    path(paths.RUN_COMPARE.django(), comparisons.RunCompareView.as_view(), name=paths.RUN_COMPARE.name),
    path(
        paths.COMPARISON_DETAIL.django(),
        comparisons.ComparisonDetailView.as_view(),
        name=paths.COMPARISON_DETAIL.name,
    ),
    path(
        paths.COMPARISON_RECOMPUTE.django(),
        comparisons.ComparisonRecomputeView.as_view(),
        name=paths.COMPARISON_RECOMPUTE.name,
    ),
]
