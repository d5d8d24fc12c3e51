"""The lives of a run, of a terrain and of an upload: their states and, for a run, the phases of its simulation; and
the parts of a scenario's or a study's state that changed, in words."""

from hydrata_contract.labelled import Labelled


class RunStatus(Labelled):
    CREATED = "created", "Created"
    BUILDING = "building", "Building"
    BUILT = "built", "Built"
    QUEUED = "queued", "Queued"
    COMPUTING = "computing", "Computing"
    PROCESSING = "processing", "Processing results"
    COMPLETE = "complete", "Complete"
    ERROR = "error", "Error"
    CANCELLED = "cancelled", "Cancelled"


BUILD_IN_FLIGHT = (RunStatus.CREATED, RunStatus.BUILDING)
TERMINAL_RUN_STATES = (RunStatus.COMPLETE, RunStatus.ERROR, RunStatus.CANCELLED)
# The states in which a run's worker writes its heartbeat; a run silent in one of them past the timeout has lost it.
WORKER_REPORTING = (RunStatus.COMPUTING, RunStatus.PROCESSING)


class RunPhase(Labelled):
    """What the run is doing inside its status: the simulation child reports meshing to post-processing as it goes;
    a complete run is done (a failed or cancelled one keeps the phase it stopped in)."""

    MESHING = "meshing", "Meshing"
    PREPARING_INPUTS = "preparing_inputs", "Preparing inputs"
    COMPUTING = "computing", "Computing"
    POST_PROCESSING = "post_processing", "Post-processing"
    DONE = "done", "Done"


class TerrainStatus(Labelled):
    CREATING = "creating", "Creating"
    STYLING = "styling", "Styling"
    READY = "ready", "Ready"
    ERROR = "error", "Error"


class UploadStatus(Labelled):
    """A GeoJSON upload's import (GeoNode's execution status)."""

    READY = "ready", "Ready"
    RUNNING = "running", "Running"
    FINISHED = "finished", "Finished"
    FAILED = "failed", "Failed"


UPLOAD_DONE = (UploadStatus.FINISHED, UploadStatus.FAILED)


class WorkQueue(Labelled):
    """The Celery queues background work goes on (config/celery.py routes each task to one). Interactive work is
    what a person waits on: imports, builds and single runs; a design study's members fill the other, so that they
    never hold it up (docs/queues.md)."""

    INTERACTIVE = "interactive", "Interactive"
    STUDIES = "studies", "Design studies"


class QueueState(Labelled):
    QUEUED = "queued", "Queued"
    RUNNING = "running", "Running"


def changes_in_words(changes: list[str]) -> str:
    """The parts of a state that changed, as the platform names them: 'the rainfall layer and the time series
    'storm'' (the first five), or '' when nothing is known. Both wings say them so."""
    shown = changes[:5] + ([f"{len(changes) - 5} more"] if len(changes) > 5 else [])
    if len(shown) < 2:
        return "".join(shown)
    return ", ".join(shown[:-1]) + " and " + shown[-1]
