from django.apps import AppConfig


class AgentsConfig(AppConfig):
    name = "hydrata.agents"
    label = "agents"
    verbose_name = "Agent grants"

    def ready(self) -> None:
        from hydrata.agents import checks  # noqa: F401  (registers the grant-level system check)
