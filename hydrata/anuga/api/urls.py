"""Mounted under /api/v2/ (config/urls.py); each route is the contract's (hydrata_contract/paths.py)."""

from django.urls import path

from hydrata.anuga.api import approvals, geometry, inputs, projects, runs, scenarios, terrain, tiles, time_series
from hydrata_contract import paths

urlpatterns = [
    path(paths.PROJECTS.django(), projects.ProjectListCreateView.as_view(), name=paths.PROJECTS.name),
    path(paths.PROJECT_DETAIL.django(), projects.ProjectDetailView.as_view(), name=paths.PROJECT_DETAIL.name),
    path(paths.MAP_DETAIL.django(), projects.MapDetailView.as_view(), name=paths.MAP_DETAIL.name),
    path(paths.TERRAIN_LIST.django(), terrain.TerrainListView.as_view(), name=paths.TERRAIN_LIST.name),
    path(paths.TERRAIN_DETAIL.django(), terrain.TerrainDetailView.as_view(), name=paths.TERRAIN_DETAIL.name),
    path(paths.TERRAIN_PRESIGN.django(), terrain.TerrainPresignView.as_view(), name=paths.TERRAIN_PRESIGN.name),
    path(paths.TERRAIN_FINALIZE.django(), terrain.TerrainFinalizeView.as_view(), name=paths.TERRAIN_FINALIZE.name),
    path(paths.TERRAIN_UPLOAD.django(), terrain.TerrainDirectUploadView.as_view(), name=paths.TERRAIN_UPLOAD.name),
    path(paths.TERRAIN_TILES.django(), tiles.TerrainTileLayersView.as_view(), name=paths.TERRAIN_TILES.name),
    path(paths.TERRAIN_TILE.django(), tiles.TerrainTileView.as_view(), name=paths.TERRAIN_TILE.name),
    path(paths.INPUTS.django(), inputs.AllInputsView.as_view(), name=paths.INPUTS.name),
    path(paths.TIME_SERIES.django(), time_series.TimeSeriesListCreateView.as_view(), name=paths.TIME_SERIES.name),
    path(
        paths.TIME_SERIES_DETAIL.django(),
        time_series.TimeSeriesDetailView.as_view(),
        name=paths.TIME_SERIES_DETAIL.name,
    ),
    path(paths.SCENARIOS.django(), scenarios.ScenarioListCreateView.as_view(), name=paths.SCENARIOS.name),
    path(paths.SCENARIO_DETAIL.django(), scenarios.ScenarioDetailView.as_view(), name=paths.SCENARIO_DETAIL.name),
    path(paths.SCENARIO_CLONE.django(), scenarios.ScenarioCloneView.as_view(), name=paths.SCENARIO_CLONE.name),
    path(paths.SCENARIO_BUILD.django(), scenarios.ScenarioBuildView.as_view(), name=paths.SCENARIO_BUILD.name),
    path(paths.SCENARIO_MESH.django(), geometry.ScenarioMeshView.as_view(), name=paths.SCENARIO_MESH.name),
    path(paths.SCENARIO_APPROVE.django(), approvals.ScenarioApproveView.as_view(), name=paths.SCENARIO_APPROVE.name),
    path(paths.PROJECT_RUNS.django(), runs.ProjectRunsView.as_view(), name=paths.PROJECT_RUNS.name),
    path(paths.SCENARIO_RUN.django(), runs.ScenarioRunView.as_view(), name=paths.SCENARIO_RUN.name),
    path(paths.RUN_DETAIL.django(), runs.RunDetailView.as_view(), name=paths.RUN_DETAIL.name),
    path(paths.RUN_STATUS.django(), runs.RunStatusView.as_view(), name=paths.RUN_STATUS.name),
    path(paths.RUN_CANCEL.django(), runs.RunCancelView.as_view(), name=paths.RUN_CANCEL.name),
    path(paths.RUN_RETRY.django(), runs.RunRetryView.as_view(), name=paths.RUN_RETRY.name),
    path(paths.RUN_RESULTS.django(), runs.RunResultsView.as_view(), name=paths.RUN_RESULTS.name),
    path(paths.RUN_PREVIEW.django(), runs.RunPreviewView.as_view(), name=paths.RUN_PREVIEW.name),
    path(paths.RUN_SAMPLE.django(), runs.RunSampleView.as_view(), name=paths.RUN_SAMPLE.name),
    path(paths.RUN_TILES.django(), tiles.RunTileLayersView.as_view(), name=paths.RUN_TILES.name),
    path(paths.RUN_TILE.django(), tiles.RunTileView.as_view(), name=paths.RUN_TILE.name),
    path(paths.RUN_TIME_SERIES.django(), runs.RunTimeSeriesView.as_view(), name=paths.RUN_TIME_SERIES.name),
    path(paths.RUN_IMPACT.django(), runs.RunImpactView.as_view(), name=paths.RUN_IMPACT.name),
    path(paths.RUN_IMPACT_TILES.django(), tiles.RunImpactTileLayersView.as_view(), name=paths.RUN_IMPACT_TILES.name),
    path(paths.RUN_IMPACT_TILE.django(), tiles.RunImpactTileView.as_view(), name=paths.RUN_IMPACT_TILE.name),
]

for kind in paths.INPUT_SEGMENTS:
    listed, row, features = paths.INPUT_LAYERS[kind], paths.INPUT_LAYER_DETAIL[kind], paths.INPUT_LAYER_FEATURES[kind]
    urlpatterns += [
        path(listed.django(), inputs.InputLayerListView.as_view(kind=kind), name=listed.name),
        path(row.django(), inputs.InputLayerDetailView.as_view(kind=kind), name=row.name),
        path(features.django(), geometry.InputLayerFeaturesView.as_view(kind=kind), name=features.name),
    ]
