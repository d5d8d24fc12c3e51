"""A complete study's envelopes and critical duration at points, per AEP (hydrata/studies/sampling.py)."""

from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from hydrata.anuga.api.base import ProjectScopedView
from hydrata.anuga.selectors.projects import project_get
from hydrata.core.answers import sent
from hydrata.core.bodies import parsed
from hydrata.core.requests import AuthenticatedRequest, authenticated_user
from hydrata.studies.sampling import study_crs, study_sample
from hydrata.studies.selectors import design_study_get
from hydrata_contract.answers import studies as answers
from hydrata_contract.requests.runs import RunSampleQuery


class DesignStudySampleView(ProjectScopedView):
    grant_levels = {"POST": "read"}
    post_reads = True  # a viewer may sample (tests/hydrata/anuga/test_project_scoped_views.py)

    def resolve(self, request: Request) -> None:
        """Its POST only reads: a project the caller can see will do (RunSampleView's rule for a run's sample)."""
        self.project = project_get(user=authenticated_user(request), project_id=self.route_id)

    @extend_schema(request=RunSampleQuery, responses={200: answers.StudySample})
    def post(self, request: AuthenticatedRequest, study_id: int) -> Response:
        study = design_study_get(project=self.project, study_id=study_id)
        body = parsed(RunSampleQuery, request)
        crs = study_crs(study, body.crs)
        points = [(point.x, point.y) for point in body.points]
        return Response(sent(study_sample(study=study, points=points, crs=crs)))
