"""The consent form: the library's hidden authorization fields, plus what the person chooses."""

from dataclasses import dataclass
from datetime import datetime

from django import forms
from django.utils import timezone
from oauth2_provider.forms import AllowForm

from hydrata.agents.forms import end_of_day, level_choices, password_again
from hydrata_contract.grants import GrantLevel


@dataclass(frozen=True)
class Consent:
    level: str
    expires_at: datetime | None


class ConsentForm(AllowForm):
    level = forms.ChoiceField(choices=GrantLevel.choices(), required=False, widget=forms.RadioSelect)
    expires_on = forms.DateField(
        required=False,
        label="Stop this connection on (optional)",
        help_text="It stops working at the end of this day (UTC). Leave empty to keep it until you revoke it.",
        widget=forms.DateInput(attrs={"type": "date"}),
    )
    password = password_again("consent-password")

    def clean_expires_on(self):
        chosen = self.cleaned_data.get("expires_on")
        if chosen is not None and chosen < timezone.localdate():
            raise forms.ValidationError("Choose today or a later day.")
        return chosen

    def clean(self):
        cleaned = super().clean()
        if cleaned.get("allow") and not cleaned.get("level"):
            self.add_error("level", "Choose what this app may do.")
        return cleaned

    def consent(self) -> Consent:
        return Consent(level=self.cleaned_data["level"], expires_at=end_of_day(self.cleaned_data.get("expires_on")))

    def level_choices(self) -> list[tuple[str, str, str]]:
        return level_choices()


def preselected_level(requested_scopes: list[str]) -> str:
    """The level a client asked for when it asked for exactly one; otherwise the least, read."""
    levels = [scope for scope in requested_scopes if scope in GrantLevel.values()]
    return levels[0] if len(levels) == 1 else GrantLevel.READ
