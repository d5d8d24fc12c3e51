"""Time series units under their one canonical name (compute/scenario/series_units.py), as a write now stores them.

Only a spelling the model knows, of a unit the series' type takes ('mm/h' on a hyetograph becomes 'mm/hr',
'cumecs' on a hydrograph 'm3/s'), is rewritten; any other text is left exactly as it was (nothing is lost): the
series still reads, and a build that uses it is refused with UNKNOWN_UNITS until its units are said. The spellings
are frozen here, as they were when this migration was written.
"""

from django.db import migrations

CANONICAL = {
    "mm/hr": [
        "mm/hr",
        "mm/h",
        "mm/hour",
        "mm per hour",
        "mm per hr",
        "mm h-1",
        "mm hr-1",
        "mm h^-1",
        "mm h⁻¹",
        "mm·h⁻¹",
        "mm/hr (intensity)",
    ],
    "mm/interval": [
        "mm/interval",
        "mm per interval",
        "mm/step",
        "mm per step",
        "mm/timestep",
        "mm per timestep",
        "mm/time step",
        "mm per time step",
        "mm/period",
        "mm per period",
        "mm incremental",
        "incremental mm",
        "mm (incremental)",
    ],
    "mm cumulative": [
        "mm cumulative",
        "cumulative mm",
        "mm (cumulative)",
        "cumulative (mm)",
        "mm accumulated",
        "accumulated mm",
    ],
    "m3/s": ["m3/s", "m³/s", "m^3/s", "m3 s-1", "m³ s⁻¹", "m3/sec", "m³/sec", "cumecs", "cumec"],
    "m": ["m", "metre", "metres", "meter", "meters"],
}
SPELLINGS = {spelling: canonical for canonical, spellings in CANONICAL.items() for spelling in spellings}
OF_TYPE = {
    "hyetograph": {"mm/hr", "mm/interval", "mm cumulative"},
    "hydrograph": {"m3/s"},
    "stage": {"m"},
}


def canonical_units(apps, schema_editor):
    TimeSeries = apps.get_model("anuga", "TimeSeries")
    for series in TimeSeries.objects.only("pk", "series_type", "units").iterator():
        canonical = SPELLINGS.get(" ".join(series.units.split()).casefold())
        if canonical is None or canonical == series.units:
            continue
        if series.series_type in OF_TYPE and canonical not in OF_TYPE[series.series_type]:
            continue
        TimeSeries.objects.filter(pk=series.pk).update(units=canonical)


class Migration(migrations.Migration):
    dependencies = [
        ("anuga", "0007_run_state_digest"),
    ]

    operations = [
        migrations.RunPython(canonical_units, migrations.RunPython.noop),
    ]
