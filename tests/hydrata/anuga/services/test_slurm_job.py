"""A Slurm job's script and the runner it starts on a compute node, without the cluster: the script run by `sh`
(which reads #SBATCH lines as comments) fetches a real built package and sends its results back through the
site's own signed links, as it would from a node that shares no disk with the platform."""

import json
import subprocess

import pytest

from hydrata.anuga.models import Run
from hydrata.anuga.services.simulation_cluster import job_prefix, job_spec
from hydrata.backends.local import child_limits
from hydrata.backends.slurm import ClusterError, job_script
from hydrata.storage import get_storage

pytestmark = pytest.mark.django_db(transaction=True)


def script_for(run: Run, **spec_changes) -> str:
    limits = child_limits(run=run)
    spec = job_spec(run, limits=limits, threads=1) | spec_changes
    return job_script(name=f"run-{run.pk}", spec_json=json.dumps(spec), tasks=1, threads=1, wall_seconds=600)


def stored_json(key: str) -> dict:
    with get_storage().open(key=key) as stream:
        return json.load(stream)


def test_the_job_fetches_its_package_and_sends_back_progress_results_and_its_exit_through_signed_links(queue_run):
    _, run_id = queue_run(300)
    run = Run.objects.get(pk=run_id)

    done = subprocess.run(["sh"], input=script_for(run), capture_output=True, text=True, timeout=600)

    assert done.returncode == 0, done.stderr
    assert stored_json(f"{job_prefix(run)}/exit.json")["returncode"] == 0
    statistics = stored_json(f"runs/{run.pk}/results/statistics.json")
    assert statistics["peak_depth_m"] > 0
    for name in ("max_depth.tif", "run.sww", "time_series.json", "run.log"):
        assert get_storage().exists(key=f"runs/{run.pk}/results/{name}"), name
    with get_storage().open(key=f"{job_prefix(run)}/progress.jsonl") as stream:
        assert json.loads(stream.read().splitlines()[-1])["progress_pct"] == 100


def test_a_link_that_is_not_http_is_refused_and_the_job_reports_why(queue_run):
    _, run_id = queue_run(300)
    run = Run.objects.get(pk=run_id)
    spec = job_spec(run, limits=child_limits(run=run), threads=1)
    spec["inputs"]["scenario.json"] = "file:///etc/passwd"

    done = subprocess.run(["sh"], input=script_for(run, inputs=spec["inputs"]), capture_output=True, text=True)

    assert done.returncode == 1
    report = stored_json(f"{job_prefix(run)}/exit.json")
    assert report["returncode"] == 1 and "could not transfer" in report["stderr_tail"]
    assert not get_storage().exists(key=f"runs/{run.pk}/results/statistics.json")


def test_the_script_keeps_the_workers_environment_and_the_links_off_every_command_line(settings):
    settings.HYDRATA_SLURM_PARTITION = "flood,spare"
    settings.HYDRATA_SLURM_PYTHON = "/opt/py thon/bin/python"
    spec = {"inputs": {"scenario.json": "https://storage.example/signed?X-Amz-Signature=abc"}}

    script = job_script(name="run-7", spec_json=json.dumps(spec), tasks=2, threads=3, wall_seconds=61)

    lines = script.splitlines()
    assert "#SBATCH --export=NONE" in lines and "#SBATCH --ntasks=2" in lines and "#SBATCH --cpus-per-task=3" in lines
    assert "#SBATCH --time=2" in lines and "#SBATCH --partition=flood,spare" in lines  # 61 s: two minutes, not one
    assert "export OMP_NUM_THREADS=3" in lines
    assert "exec '/opt/py thon/bin/python' -m hydrata.compute.processes.remote_run <<'HYDRATA_SPEC_END'" in lines
    assert [line for line in lines if "X-Amz-Signature" in line] == [json.dumps(spec)]  # the here-document only
    assert subprocess.run(["sh", "-n"], input=script, text=True).returncode == 0


@pytest.mark.parametrize(("seconds", "minutes"), [(1, 1), (60, 1), (61, 2), (3600, 60)])
def test_the_jobs_time_limit_rounds_its_wall_clock_limit_up_to_whole_minutes(seconds, minutes):
    script = job_script(name="run", spec_json="{}", tasks=1, threads=1, wall_seconds=seconds)
    assert f"#SBATCH --time={minutes}" in script.splitlines()


def test_a_spec_of_more_than_one_line_is_refused_since_it_could_end_the_here_document():
    with pytest.raises(ValueError):
        job_script(name="run", spec_json='{"a":\n"HYDRATA_SPEC_END"}', tasks=1, threads=1, wall_seconds=60)


@pytest.mark.parametrize("partition", ["flood\n#SBATCH --uid=0", "flood; rm -rf /", "flood spare"])
def test_a_partition_setting_that_could_change_the_script_is_refused(settings, partition):
    settings.HYDRATA_SLURM_PARTITION = partition
    with pytest.raises(ClusterError):
        job_script(name="run", spec_json="{}", tasks=1, threads=1, wall_seconds=60)
