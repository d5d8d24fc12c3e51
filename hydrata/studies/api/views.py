from django.conf import settings
from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.response import Response

from hydrata.agents.permissions import grant_of
from hydrata.anuga.api.base import ProjectListView, ProjectScopedView
from hydrata.anuga.selectors.links import project_link
from hydrata.core.answers import page_answer, sent
from hydrata.core.bodies import file_text, parsed
from hydrata.core.errors import ValidationFailed
from hydrata.core.requests import AuthenticatedRequest
from hydrata.core.tiles import png, tile_address
from hydrata.studies.api.answers import as_built, design_input_answer, design_study_answer, design_study_detail
from hydrata.studies.selectors import (
    design_input_get,
    design_inputs_of,
    design_studies_of,
    design_study_get,
    study_approval_summary,
)
from hydrata.studies.services.inputs import design_input_create, design_input_delete
from hydrata.studies.services.runs import (
    design_study_approve,
    design_study_cancel,
    design_study_delete,
    design_study_start,
)
from hydrata.studies.services.studies import StudyInputs, design_study_create
from hydrata.studies.tiles import study_tile, study_tile_layers
from hydrata_contract.answers import studies as answers
from hydrata_contract.answers.tiles import StudyTileLayers
from hydrata_contract.errors import ErrorCode
from hydrata_contract.links import Panel
from hydrata_contract.requests.studies import DesignInputCreate, DesignStudyCreate
from hydrata_contract.studies import CentralStatistic


class DesignInputListCreateView(ProjectListView):
    grant_levels = {"GET": "read", "POST": "draft"}
    list_panel = Panel.TIME_SERIES

    @extend_schema(responses={200: answers.DesignInputPage})
    def get(self, request: AuthenticatedRequest) -> Response:
        page = self.paginate_queryset(design_inputs_of(project=self.project, reader=self.reader(request)))
        results = [design_input_answer(item) for item in page or []]
        ui_url = project_link(self.project, self.list_panel)
        return Response(sent(page_answer(view=self, model=answers.DesignInputPage, results=results, ui_url=ui_url)))

    @extend_schema(
        request={"application/json": DesignInputCreate, "multipart/form-data": DesignInputCreate},
        responses={201: answers.DesignInputDetail},
    )
    def post(self, request: AuthenticatedRequest) -> Response:
        fields = parsed(DesignInputCreate, request)
        uploaded = request.FILES.get("base_file")
        if fields.base_file is not None and uploaded is None:
            raise ValidationFailed(
                "base_file: send the file as a multipart file, or its text as content.",
                code=ErrorCode.VALIDATION_ERROR,
                field="base_file",
            )
        created = design_input_create(
            project=self.project,
            user=request.user,
            kind=fields.kind,
            name=fields.name or (uploaded.name if uploaded is not None else "") or fields.kind,
            text=file_text(
                uploaded=uploaded,
                content=fields.content,
                limit=settings.HYDRATA_ARR_FILE_MAX_BYTES,
                field="base_file" if uploaded is not None else "content",
            ),
        )
        return Response(sent(design_input_answer(created)), status=status.HTTP_201_CREATED)


class DesignInputDetailView(ProjectScopedView):
    grant_levels = {"GET": "read", "DELETE": "draft"}

    @extend_schema(responses={200: answers.DesignInputDetail})
    def get(self, request: AuthenticatedRequest, input_id: int) -> Response:
        found = design_input_get(project=self.project, input_id=input_id, reader=self.reader(request))
        return Response(sent(design_input_answer(found)))

    @extend_schema(responses={204: None})
    def delete(self, request: AuthenticatedRequest, input_id: int) -> Response:
        found = design_input_get(project=self.project, input_id=input_id, reader=self.reader(request))
        design_input_delete(design_input=found)
        return Response(status=status.HTTP_204_NO_CONTENT)


class DesignStudyListCreateView(ProjectListView):
    grant_levels = {"GET": "read", "POST": "draft"}
    list_panel = Panel.STUDY

    @extend_schema(responses={200: answers.DesignStudyPage})
    def get(self, request: AuthenticatedRequest) -> Response:
        page, reader = self.paginate_queryset(design_studies_of(project=self.project)), self.reader(request)
        results = [design_study_answer(study, reader=reader) for study in page or []]
        ui_url = project_link(self.project, self.list_panel)
        return Response(as_built(page_answer(view=self, model=answers.DesignStudyPage, results=results, ui_url=ui_url)))

    @extend_schema(request=DesignStudyCreate, responses={201: answers.DesignStudyDetail})
    def post(self, request: AuthenticatedRequest) -> Response:
        fields = parsed(DesignStudyCreate, request).model_dump()
        losses = fields.pop("storm_losses")
        reader = self.reader(request)
        inputs = StudyInputs(
            ifd=design_input_get(project=self.project, input_id=fields.pop("ifd"), reader=reader),
            temporal_patterns=design_input_get(
                project=self.project, input_id=fields.pop("temporal_patterns"), reader=reader
            ),
            storm_losses=design_input_get(project=self.project, input_id=losses, reader=reader) if losses else None,
        )
        study = design_study_create(
            project=self.project,
            user=request.user,
            base_scenario=self.scenario_get(fields.pop("base_scenario")),
            inputs=inputs,
            central_statistic=CentralStatistic(fields.pop("central_statistic")),
            **fields,
        )
        detail = design_study_detail(study, user=request.user, reader=reader)
        return Response(as_built(detail), status=status.HTTP_201_CREATED)


class DesignStudyDetailView(ProjectScopedView):
    grant_levels = {"GET": "read", "DELETE": "draft"}

    @extend_schema(responses={200: answers.DesignStudyDetail})
    def get(self, request: AuthenticatedRequest, study_id: int) -> Response:
        study = design_study_get(project=self.project, study_id=study_id)
        detail = design_study_detail(study, user=request.user, reader=self.reader(request))
        return Response(as_built(detail))

    @extend_schema(responses={204: None})
    def delete(self, request: AuthenticatedRequest, study_id: int) -> Response:
        design_study_delete(study=design_study_get(project=self.project, study_id=study_id))
        return Response(status=status.HTTP_204_NO_CONTENT)


class DesignStudyApproveView(ProjectScopedView):
    # Declared for the system check; the service refuses every agent key whatever its level.
    grant_levels = {"POST": "launch"}

    @extend_schema(request=None, responses={201: answers.StudyApproval})
    def post(self, request: AuthenticatedRequest, study_id: int) -> Response:
        study = design_study_get(project=self.project, study_id=study_id)
        approval = design_study_approve(study=study, user=request.user, grant=grant_of(request))
        summary = study_approval_summary(study=study, user=request.user, fingerprint=approval.fingerprint)
        return Response(sent(summary), status=status.HTTP_201_CREATED)


class DesignStudyStartView(ProjectScopedView):
    grant_levels = {"POST": "launch"}

    @extend_schema(request=None, responses={202: answers.DesignStudySummary})
    def post(self, request: AuthenticatedRequest, study_id: int) -> Response:
        study = design_study_get(project=self.project, study_id=study_id)
        started = design_study_start(study=study, user=request.user, grant=grant_of(request))
        return Response(
            as_built(design_study_answer(started, reader=self.reader(request))),
            status=status.HTTP_202_ACCEPTED,
        )


class DesignStudyCancelView(ProjectScopedView):
    grant_levels = {"POST": "launch"}

    @extend_schema(request=None, responses={200: answers.DesignStudySummary})
    def post(self, request: AuthenticatedRequest, study_id: int) -> Response:
        study = design_study_get(project=self.project, study_id=study_id)
        cancelled = design_study_cancel(study=study)
        return Response(as_built(design_study_answer(cancelled, reader=self.reader(request))))


class DesignStudyTileLayersView(ProjectScopedView):
    grant_levels = {"GET": "read"}

    @extend_schema(responses={200: StudyTileLayers})
    def get(self, request: AuthenticatedRequest, study_id: int) -> Response:
        study = design_study_get(project=self.project, study_id=study_id)
        return Response(sent(study_tile_layers(study=study)))


class DesignStudyTileView(ProjectScopedView):
    grant_levels = {"GET": "read"}

    @extend_schema(
        operation_id="anuga_projects_design_studies_tile_retrieve",
        responses={(200, "image/png"): OpenApiTypes.BINARY},
    )
    def get(
        self, request: AuthenticatedRequest, study_id: int, aep: str, layer: str, z: str, x: str, y: str
    ) -> HttpResponse:
        study = design_study_get(project=self.project, study_id=study_id)
        zoom, column, row = tile_address(z, x, y)
        return png(study_tile(study=study, aep=aep, layer=layer, z=zoom, x=column, y=row))
