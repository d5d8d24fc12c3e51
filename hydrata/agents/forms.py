"""Forms for the /agents/ page. They parse input only; the rules live in services.py."""

from datetime import date, datetime, time, timedelta

from django import forms
from django.utils import timezone

from hydrata.agents.services import MAX_GRANT_NAME_LENGTH
from hydrata_contract.errors import ErrorCode
from hydrata_contract.grants import GrantLevel

LEVEL_EXPLANATIONS = {
    GrantLevel.READ: "Look at projects, maps and results. Cannot change anything.",
    GrantLevel.DRAFT: "Also build and edit models (projects, scenarios, inputs). Cannot start runs that cost money.",
    GrantLevel.LAUNCH: "Also launch simulations, which spend money on this account within the monthly limit.",
}


def password_again(field_id: str) -> forms.CharField:
    """The password asked for again before an action that widens what agents may do (hydrata/agents/sudo.py).
    Optional here: whether it is needed is the sudo rule's to say. Never rendered back into the page."""
    return forms.CharField(
        required=False,
        strip=False,
        label="Your password",
        widget=forms.PasswordInput(attrs={"id": field_id, "autocomplete": "current-password"}),
    )


class GrantCreateForm(forms.Form):
    name = forms.CharField(
        max_length=MAX_GRANT_NAME_LENGTH,
        help_text="Something that tells you later which agent or machine holds this key.",
    )
    level = forms.ChoiceField(choices=GrantLevel.choices(), initial=GrantLevel.READ, widget=forms.RadioSelect)
    expires_on = forms.DateField(
        required=False,
        label="Expires on (optional)",
        help_text="The key stops working at the end of this day (UTC). Leave empty for no expiry.",
        widget=forms.DateInput(attrs={"type": "date"}),
    )
    password = password_again("create-password")

    # Which field a service error code belongs to; anything else is shown above the form.
    SERVICE_ERROR_FIELDS = {
        ErrorCode.INVALID_NAME: "name",
        ErrorCode.INVALID_LEVEL: "level",
        ErrorCode.INVALID_EXPIRY: "expires_on",
        ErrorCode.PASSWORD_REQUIRED: "password",
    }

    def expires_at(self) -> datetime | None:
        return end_of_day(self.cleaned_data.get("expires_on"))

    def level_choices(self) -> list[tuple[str, str, str]]:
        return level_choices()


def end_of_day(chosen: date | None) -> datetime | None:
    """The moment a grant stops working: midnight after the chosen day, in the site's time zone."""
    if chosen is None:
        return None
    return datetime.combine(chosen + timedelta(days=1), time.min, tzinfo=timezone.get_current_timezone())


def level_choices() -> list[tuple[str, str, str]]:
    """(value, label, explanation) for each level, for the templates."""
    return [(value, label, LEVEL_EXPLANATIONS[GrantLevel(value)]) for value, label in GrantLevel.choices()]


class PauseForm(forms.Form):
    paused = forms.TypedChoiceField(
        choices=[("1", "Pause"), ("0", "Resume")], coerce=lambda value: value == "1", empty_value=None
    )
    password = password_again("resume-password")


class RunApprovalForm(forms.Form):
    required = forms.TypedChoiceField(
        choices=[("1", "Required"), ("0", "Not required")], coerce=lambda value: value == "1", empty_value=None
    )
    password = password_again("run-approval-password")


class SpendLimitForm(forms.Form):
    # No minimum here: the service owns the rule that a limit cannot be negative.
    limit = forms.DecimalField(
        required=False,
        max_digits=12,
        decimal_places=2,
        label="Monthly spend limit (USD)",
        help_text="Leave empty for no limit.",
        widget=forms.NumberInput(attrs={"step": "0.01"}),
    )
    password = password_again("spend-password")

    SERVICE_ERROR_FIELDS = {ErrorCode.INVALID_SPEND_LIMIT: "limit", ErrorCode.PASSWORD_REQUIRED: "password"}
