import os
import stat
import subprocess
import sys
from pathlib import Path

from tests.processes import ROOT


def load_settings(
    tmp_path: Path, *, show: str = "len(settings.SECRET_KEY)", script: str | None = None, **env: str
) -> subprocess.CompletedProcess:
    environment = {
        k: v
        for k, v in os.environ.items()
        if k not in {"SECRET_KEY", "HYDRATA_ENV", "HYDRATA_CONNECT_FLOW", "HYDRATA_OAUTH_SIGNING_KEY", "DATABASE_URL"}
        and not k.startswith(("DATABASE_POOL", "DATABASE_CONN"))
    }
    environment.update(HYDRATA_VAR_DIR=str(tmp_path), DJANGO_SETTINGS_MODULE="config.settings", **env)
    code = script or f"from django.conf import settings; print({show})"
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=environment, capture_output=True, text=True)


def test_production_refuses_to_start_without_a_secret_key(tmp_path):
    result = load_settings(tmp_path, HYDRATA_ENV="production")

    assert result.returncode != 0
    assert "SECRET_KEY must be set" in result.stderr


def test_a_local_secret_key_is_generated_once_and_readable_only_by_its_owner(tmp_path):
    first = load_settings(tmp_path)
    key_file = tmp_path / "secret_key"
    written = key_file.read_text()
    second = load_settings(tmp_path)

    assert first.returncode == second.returncode == 0
    assert key_file.read_text() == written and len(written) >= 50
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600


def test_production_with_the_connect_flow_on_refuses_to_start_without_a_signing_key(tmp_path):
    result = load_settings(tmp_path, HYDRATA_ENV="production", SECRET_KEY="x" * 50, HYDRATA_CONNECT_FLOW="1")

    assert result.returncode != 0
    assert "HYDRATA_OAUTH_SIGNING_KEY must be set" in result.stderr
    assert not (tmp_path / "oauth_signing_key.pem").exists()


def test_production_starts_with_the_connect_flow_off_by_default(tmp_path):
    result = load_settings(tmp_path, HYDRATA_ENV="production", SECRET_KEY="x" * 50)

    assert result.returncode == 0, result.stderr


def test_a_local_signing_key_is_generated_once_and_readable_only_by_its_owner(tmp_path):
    first = load_settings(tmp_path)
    key_file = tmp_path / "oauth_signing_key.pem"
    written = key_file.read_text()
    second = load_settings(tmp_path)

    assert first.returncode == second.returncode == 0
    assert key_file.read_text() == written and written.startswith("-----BEGIN PRIVATE KEY-----")
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600


def test_no_allowed_metadata_document_host_turns_cimd_off(tmp_path):
    show = 'settings.OAUTH2_PROVIDER["CIMD_ENABLED"], settings.OAUTH2_PROVIDER["CIMD_ALLOWED_HOSTS"]'

    default = load_settings(tmp_path, show=show)
    empty = load_settings(tmp_path, show=show, HYDRATA_CIMD_ALLOWED_HOSTS="")

    assert default.stdout.strip() == "True ['claude.ai', 'claude.com']"
    assert empty.stdout.strip() == "False []"


POOL = "settings.DATABASES['default'].get('OPTIONS', {}).get('pool')"
POSTGRES = "postgres://hydrata@127.0.0.1:5432/hydrata"


def test_postgresql_connections_are_pooled_by_default(tmp_path):
    result = load_settings(tmp_path, show=POOL, DATABASE_URL=POSTGRES)

    assert result.stdout.strip() == "{'min_size': 1, 'max_size': 10, 'timeout': 10.0}"


def test_a_pool_size_of_zero_gives_each_request_its_own_postgresql_connection(tmp_path):
    result = load_settings(tmp_path, show=POOL, DATABASE_URL=POSTGRES, DATABASE_POOL_MAX_SIZE="0")

    assert result.stdout.strip() == "None"


def test_persistent_connections_turn_the_pool_off_unless_both_are_asked_for_which_is_refused(tmp_path):
    kept = load_settings(tmp_path, show=POOL, DATABASE_URL=POSTGRES, DATABASE_CONN_MAX_AGE="60")
    both = load_settings(
        tmp_path, show=POOL, DATABASE_URL=POSTGRES, DATABASE_CONN_MAX_AGE="60", DATABASE_POOL_MAX_SIZE="5"
    )

    assert kept.stdout.strip() == "None"
    assert both.returncode != 0
    assert "Set DATABASE_POOL_MAX_SIZE or DATABASE_CONN_MAX_AGE, not both" in both.stderr


def test_sqlite_has_no_pool_whatever_its_size_says(tmp_path):
    result = load_settings(tmp_path, show=POOL, DATABASE_POOL_MAX_SIZE="5")

    assert result.stdout.strip() == "None"


def test_the_tools_client_reuses_no_connection_idle_for_half_the_web_commands_keep_alive(tmp_path):
    show = "(settings.HYDRATA_WEB_KEEP_ALIVE_SECONDS, settings.HYDRATA_API_IDLE_SECONDS)"

    assert load_settings(tmp_path, show=show).stdout.strip() == "(5, 2.5)"
    assert load_settings(tmp_path, show=show, HYDRATA_WEB_KEEP_ALIVE_SECONDS="8").stdout.strip() == "(8, 4.0)"
