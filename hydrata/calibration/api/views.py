from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.response import Response

from hydrata.agents.permissions import grant_of
from hydrata.anuga.api.base import ProjectListView, ProjectScopedView
from hydrata.anuga.selectors.links import project_link
from hydrata.calibration.api.answers import calibration_study_answer, calibration_study_detail
from hydrata.calibration.models import CalibrationStudy
from hydrata.calibration.selectors import calibration_studies_of, calibration_study_get
from hydrata.calibration.services.runs import (
    calibration_study_approve,
    calibration_study_cancel,
    calibration_study_delete,
    calibration_study_start,
)
from hydrata.calibration.services.studies import calibration_study_create
from hydrata.core.answers import page_answer, sent
from hydrata.core.bodies import parsed
from hydrata.core.requests import AuthenticatedRequest
from hydrata.observations.selectors import event_get
from hydrata_contract.answers import calibration as answers
from hydrata_contract.links import Panel
from hydrata_contract.requests.calibration import CalibrationStudyCreate


class CalibrationStudyListCreateView(ProjectListView):
    grant_levels = {"GET": "read", "POST": "draft"}
    list_panel = Panel.CALIBRATION

    @extend_schema(responses={200: answers.CalibrationStudyPage})
    def get(self, request: AuthenticatedRequest) -> Response:
        page = self.paginate_queryset(calibration_studies_of(project=self.project, reader=self.reader(request)))
        results = [calibration_study_answer(study) for study in page or []]
        ui_url = project_link(self.project, self.list_panel)
        page_model = page_answer(view=self, model=answers.CalibrationStudyPage, results=results, ui_url=ui_url)
        return Response(sent(page_model))

    @extend_schema(request=CalibrationStudyCreate, responses={201: answers.CalibrationStudyDetail})
    def post(self, request: AuthenticatedRequest) -> Response:
        fields = parsed(CalibrationStudyCreate, request)
        study = calibration_study_create(
            project=self.project,
            user=request.user,
            base_scenario=self.scenario_get(fields.base_scenario),
            event=event_get(project=self.project, event_id=fields.event),
            name=fields.name,
            method=fields.method,
            parameters=fields.parameters,
            budget=fields.budget,
            in_flight=fields.in_flight,
            seed=fields.seed,
        )
        detail = calibration_study_detail(study, user=request.user)
        return Response(sent(detail), status=status.HTTP_201_CREATED)


class CalibrationStudyScopedView(ProjectScopedView):
    def study_get(self, request: AuthenticatedRequest, study_id: int) -> CalibrationStudy:
        return calibration_study_get(project=self.project, study_id=study_id, reader=self.reader(request))


class CalibrationStudyDetailView(CalibrationStudyScopedView):
    grant_levels = {"GET": "read", "DELETE": "draft"}

    @extend_schema(responses={200: answers.CalibrationStudyDetail})
    def get(self, request: AuthenticatedRequest, study_id: int) -> Response:
        detail = calibration_study_detail(self.study_get(request, study_id), user=request.user)
        return Response(sent(detail))

    @extend_schema(responses={204: None})
    def delete(self, request: AuthenticatedRequest, study_id: int) -> Response:
        calibration_study_delete(study=self.study_get(request, study_id))
        return Response(status=status.HTTP_204_NO_CONTENT)


class CalibrationStudyApproveView(CalibrationStudyScopedView):
    # Declared for the system check; the service refuses every agent key whatever its level.
    grant_levels = {"POST": "launch"}

    @extend_schema(request=None, responses={201: answers.CalibrationStudyDetail})
    def post(self, request: AuthenticatedRequest, study_id: int) -> Response:
        study = self.study_get(request, study_id)
        calibration_study_approve(study=study, user=request.user, grant=grant_of(request))
        detail = calibration_study_detail(study, user=request.user)
        return Response(sent(detail), status=status.HTTP_201_CREATED)


class CalibrationStudyStartView(CalibrationStudyScopedView):
    grant_levels = {"POST": "launch"}

    @extend_schema(request=None, responses={202: answers.CalibrationStudyDetail})
    def post(self, request: AuthenticatedRequest, study_id: int) -> Response:
        study = self.study_get(request, study_id)
        started = calibration_study_start(study=study, user=request.user, grant=grant_of(request))
        detail = calibration_study_detail(started, user=request.user)
        return Response(sent(detail), status=status.HTTP_202_ACCEPTED)


class CalibrationStudyCancelView(CalibrationStudyScopedView):
    grant_levels = {"POST": "launch"}

    @extend_schema(request=None, responses={200: answers.CalibrationStudyDetail})
    def post(self, request: AuthenticatedRequest, study_id: int) -> Response:
        cancelled = calibration_study_cancel(study=self.study_get(request, study_id))
        return Response(sent(calibration_study_detail(cancelled, user=request.user)))
