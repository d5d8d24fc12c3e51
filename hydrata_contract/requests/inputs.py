from pydantic import Field

from hydrata_contract.requests.base import MAX_ID, Body


class InputLayerAttach(Body):
    """What an input row draws its features from. Not a change of some fields: the one field is the action, so
    it is required (null detaches the dataset)."""

    gn_layer: int | None = Field(
        ge=1, le=MAX_ID, description="The dataset (an upload's resource id) to attach, or null to detach."
    )
