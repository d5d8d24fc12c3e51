import os
import stat
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def load_settings(tmp_path: Path, *, script: str = "from django.conf import settings; print(len(settings.SECRET_KEY))",
                  **env: str) -> subprocess.CompletedProcess:
    environment = {k: v for k, v in os.environ.items() if k not in {"SECRET_KEY", "HYDRATA_ENV"}}
    environment.update(HYDRATA_VAR_DIR=str(tmp_path), DJANGO_SETTINGS_MODULE="config.settings", **env)
    return subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=environment, capture_output=True, text=True)


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
