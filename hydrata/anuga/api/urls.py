from django.urls import path

from hydrata.anuga.api import approvals, geometry, inputs, projects, runs, scenarios, terrain, tiles, time_series

PROJECT = "projects/<int:project_id>/"
TILE = "<str:z>/<str:x>/<str:y>.png"  # not <int:>: a bad address is answered 400 with a reason, not 404

urlpatterns = [
    path("projects/", projects.ProjectListCreateView.as_view(), name="projects"),
    path(PROJECT, projects.ProjectDetailView.as_view(), name="project-detail"),
    path("maps/<int:map_id>/", projects.MapDetailView.as_view(), name="map-detail"),
    path(f"{PROJECT}terrain/", terrain.TerrainListView.as_view(), name="terrain-list"),
    path(f"{PROJECT}terrain/<int:terrain_id>/", terrain.TerrainDetailView.as_view(), name="terrain-detail"),
    path(f"{PROJECT}terrain/upload/presign/", terrain.TerrainPresignView.as_view(), name="terrain-presign"),
    path(f"{PROJECT}terrain/upload/finalize/", terrain.TerrainFinalizeView.as_view(), name="terrain-finalize"),
    path(f"{PROJECT}terrain/upload/", terrain.TerrainDirectUploadView.as_view(), name="terrain-upload"),
    path(f"{PROJECT}terrain/<int:terrain_id>/tiles/", tiles.TerrainTileLayersView.as_view(), name="terrain-tiles"),
    path(
        f"{PROJECT}terrain/<int:terrain_id>/tiles/<str:style>/{TILE}",
        tiles.TerrainTileView.as_view(),
        name="terrain-tile",
    ),
    path(f"{PROJECT}inputs/", inputs.AllInputsView.as_view(), name="inputs"),
    path(f"{PROJECT}time-series/", time_series.TimeSeriesListCreateView.as_view(), name="time-series"),
    path(
        f"{PROJECT}time-series/<int:series_id>/", time_series.TimeSeriesDetailView.as_view(), name="time-series-detail"
    ),
    path(f"{PROJECT}scenarios/", scenarios.ScenarioListCreateView.as_view(), name="scenarios"),
    path(f"{PROJECT}scenarios/<int:scenario_id>/", scenarios.ScenarioDetailView.as_view(), name="scenario-detail"),
    path(f"{PROJECT}scenarios/<int:scenario_id>/clone/", scenarios.ScenarioCloneView.as_view(), name="scenario-clone"),
    path(f"{PROJECT}scenarios/<int:scenario_id>/build/", scenarios.ScenarioBuildView.as_view(), name="scenario-build"),
    path(f"{PROJECT}scenarios/<int:scenario_id>/mesh/", geometry.ScenarioMeshView.as_view(), name="scenario-mesh"),
    path(
        f"{PROJECT}scenarios/<int:scenario_id>/approve/",
        approvals.ScenarioApproveView.as_view(),
        name="scenario-approve",
    ),
    path(f"{PROJECT}runs/", runs.ProjectRunsView.as_view(), name="project-runs"),
    path("scenarios/<int:scenario_id>/run/", runs.ScenarioRunView.as_view(), name="scenario-run"),
    path("runs/<int:run_id>/", runs.RunDetailView.as_view(), name="run-detail"),
    path("runs/<int:run_id>/status/", runs.RunStatusView.as_view(), name="run-status"),
    path("runs/<int:run_id>/cancel/", runs.RunCancelView.as_view(), name="run-cancel"),
    path("runs/<int:run_id>/retry/", runs.RunRetryView.as_view(), name="run-retry"),
    path("runs/<int:run_id>/results/", runs.RunResultsView.as_view(), name="run-results"),
    path("runs/<int:run_id>/preview/", runs.RunPreviewView.as_view(), name="run-preview"),
    path("runs/<int:run_id>/sample/", runs.RunSampleView.as_view(), name="run-sample"),
    path("runs/<int:run_id>/tiles/", tiles.RunTileLayersView.as_view(), name="run-tiles"),
    path(f"runs/<int:run_id>/tiles/<str:layer>/{TILE}", tiles.RunTileView.as_view(), name="run-tile"),
    path("runs/<int:run_id>/time-series/", runs.RunTimeSeriesView.as_view(), name="run-time-series"),
    path("runs/<int:run_id>/impact/<int:other_run_id>/", runs.RunImpactView.as_view(), name="run-impact"),
    path(
        "runs/<int:run_id>/impact/<int:other_run_id>/tiles/",
        tiles.RunImpactTileLayersView.as_view(),
        name="run-impact-tiles",
    ),
    path(
        f"runs/<int:run_id>/impact/<int:other_run_id>/tiles/<str:layer>/{TILE}",
        tiles.RunImpactTileView.as_view(),
        name="run-impact-tile",
    ),
]

for segment, kind in inputs.KIND_PATHS.items():
    urlpatterns += [
        path(f"{PROJECT}{segment}/", inputs.InputLayerListView.as_view(kind=kind), name=f"{kind}-list"),
        path(
            f"{PROJECT}{segment}/<int:layer_id>/", inputs.InputLayerDetailView.as_view(kind=kind), name=f"{kind}-detail"
        ),
        path(
            f"{PROJECT}{segment}/<int:layer_id>/features/",
            geometry.InputLayerFeaturesView.as_view(kind=kind),
            name=f"{kind}-features",
        ),
    ]
