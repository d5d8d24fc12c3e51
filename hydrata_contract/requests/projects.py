from pydantic import Field

from hydrata_contract.requests.base import Body, name_field


class ProjectCreate(Body):
    name: str = name_field("project")
    projection: str = Field(
        min_length=1,
        max_length=40,
        description="The project's CRS as an authority code, a projected one in metres (e.g. EPSG:28356).",
    )
    is_public: bool = Field(False, description="Anyone signed in may read a public project.")
