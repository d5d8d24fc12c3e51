from django.conf import settings
from django.db import models

from hydrata_contract.grants import GrantKind, GrantLevel

LEVEL_RANK = {GrantLevel.READ: 0, GrantLevel.DRAFT: 1, GrantLevel.LAUNCH: 2}


class AgentAccount(models.Model):
    """The account-wide switches that apply to every grant a user has made."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="agent_account")
    agents_paused = models.BooleanField(default=False)
    paused_at = models.DateTimeField(null=True, blank=True)
    monthly_spend_limit = models.DecimalField(
        max_digits=12, decimal_places=2, null=True, blank=True, help_text="USD per calendar month; empty = no limit."
    )
    runs_need_approval = models.BooleanField(
        default=False, help_text="Agents may start a run only of a scenario this user approved in its current state."
    )

    def __str__(self) -> str:
        return f"Agent account of {self.user}"


class AgentGrant(models.Model):
    """What one agent may do on a user's account: an `hk_` key, or an app connected through the OAuth sign-in
    (kind "connect"), whose access and refresh tokens all belong to this grant."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="agent_grants")
    kind = models.CharField(max_length=10, choices=GrantKind.choices(), default=GrantKind.KEY)
    name = models.CharField(max_length=100)
    level = models.CharField(max_length=10, choices=GrantLevel.choices())
    key_prefix = models.CharField(
        max_length=16, blank=True, help_text="The first characters of the key, for recognising it."
    )
    key_digest = models.CharField(
        max_length=64, unique=True, null=True, blank=True, help_text="SHA-256 of the key; the key is never stored."
    )
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField(null=True, blank=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)
    # Connected apps only.
    application = models.ForeignKey(
        "oauth2_provider.Application", on_delete=models.SET_NULL, null=True, blank=True, related_name="agent_grants"
    )
    client_host = models.CharField(
        max_length=255, blank=True, help_text="Where the app's metadata came from, or where it sends people back."
    )
    authorization_code_digest = models.CharField(
        max_length=64, unique=True, null=True, blank=True, help_text="SHA-256 of the code the consent issued."
    )
    token_family = models.UUIDField(
        unique=True, null=True, blank=True, help_text="The refresh-token family of this connection (rotation keeps it)."
    )

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(kind="connect") | models.Q(key_digest__isnull=False), name="a_key_grant_has_a_key"
            ),
        ]

    def __str__(self) -> str:
        if self.kind == GrantKind.CONNECT:
            return f"{self.name} ({self.level}, connected app)"
        return f"{self.name} ({self.level}, {self.key_prefix}…)"


class AgentActivity(models.Model):
    """One REST request made with a grant. Client and session values are informational only."""

    grant = models.ForeignKey(AgentGrant, on_delete=models.CASCADE, related_name="activity")
    method = models.CharField(max_length=10)
    path = models.CharField(max_length=500)
    status_code = models.PositiveSmallIntegerField()
    client = models.CharField(max_length=100, blank=True)
    session = models.CharField(max_length=64, blank=True)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["-created_at"]
        verbose_name_plural = "agent activity"


class AgentSpend(models.Model):
    """Money an agent committed on the account (a launched run). Summed per calendar month."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="agent_spend")
    grant = models.ForeignKey(AgentGrant, on_delete=models.SET_NULL, null=True, related_name="spend")
    amount = models.DecimalField(max_digits=12, decimal_places=2)
    description = models.CharField(max_length=200)
    reference = models.CharField(max_length=100, blank=True, help_text="What was bought, e.g. run:12.")
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["-created_at"]


class CapabilitySuggestion(models.Model):
    """What an agent needed and no tool did."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="capability_suggestions")
    grant = models.ForeignKey(AgentGrant, on_delete=models.SET_NULL, null=True, blank=True)
    summary = models.CharField(max_length=300)
    details = models.TextField(blank=True)
    workflow = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]
