"""Who sees a project: its visibility, and each member's role."""

from hydrata_contract.labelled import Labelled


class ProjectRole(Labelled):
    """A member's role; owners and editors change the project, viewers read it."""

    OWNER = "owner", "Owner"
    EDITOR = "editor", "Editor"
    VIEWER = "viewer", "Viewer"


class Visibility(Labelled):
    """Who may see the project: its members only, or anyone signed in (who then reads its published part)."""

    PUBLIC = "public", "Public"
    PRIVATE = "private", "Private"
