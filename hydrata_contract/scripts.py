"""The contract's words as the map's scripts read them: the site's pages carry this as JSON (`json_script`) and the
MCP App's bundle inlines it, so neither script spells a state, a layer or a hazard class of its own."""

from typing import Any

from hydrata_contract.hazard import HazardClass
from hydrata_contract.layers import FIRST_SHOWN, ResultLayer
from hydrata_contract.links import Panel
from hydrata_contract.states import TERMINAL_RUN_STATES, RunPhase, RunStatus, TerrainStatus
from hydrata_contract.studies import STUDY_FINISHED_STATES, EnsembleQuantity, StudyStatus


def script_constants() -> dict[str, Any]:
    return {
        "runStatus": {member.name: member.value for member in RunStatus},
        "terminalRunStates": [member.value for member in TERMINAL_RUN_STATES],
        "runPhase": {member.name: member.value for member in RunPhase},
        "terrainStatus": {member.name: member.value for member in TerrainStatus},
        "layers": [{"name": layer.value, "title": layer.label, "units": layer.units} for layer in ResultLayer],
        "firstShownLayer": FIRST_SHOWN.value,
        "hazardLayer": ResultLayer.MAX_HAZARD.value,
        "hazardClasses": [
            {"code": item.value, "number": item.number, "label": item.label, "colour": item.colour}
            for item in HazardClass
        ],
        "panels": {member.name: member.value for member in Panel},
        "studyStatus": {member.name: member.value for member in StudyStatus},
        "finishedStudyStates": [member.value for member in STUDY_FINISHED_STATES],
        "ensembleQuantities": {
            member.value: {"title": member.label, "units": member.units, "site": member.site}
            for member in EnsembleQuantity
        },
    }
