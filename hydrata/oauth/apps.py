from django.apps import AppConfig


class OAuthConfig(AppConfig):
    name = "hydrata.oauth"
    label = "oauth"
    verbose_name = "Connect flow (OAuth)"
