"""The Celery time limits of a task type, from settings: every task declares them in its decorator."""

from django.conf import settings


def time_limits(task_type: str) -> dict[str, int]:
    soft = settings.HYDRATA_TASK_TIME_LIMITS[task_type]
    return {"soft_time_limit": soft, "time_limit": soft + settings.HYDRATA_TASK_HARD_LIMIT_GRACE_SECONDS}
