import threading

from pyproj import CRS, Transformer

from hydrata.compute.inputs.transformers import transformer_between

MGA56_POINT = (251_000.0, 6_271_900.0)


def test_a_pair_of_crss_is_made_into_a_transformer_once_and_it_transforms_as_a_fresh_one_does():
    first = transformer_between("EPSG:28356", "EPSG:4326")

    assert transformer_between("EPSG:28356", "EPSG:4326") is first
    fresh = Transformer.from_crs("EPSG:28356", "EPSG:4326", always_xy=True)
    assert first.transform(*MGA56_POINT) == fresh.transform(*MGA56_POINT)
    # The CRS as an object rather than a code is another key, with the same answer.
    by_object = transformer_between(CRS.from_epsg(28356), "EPSG:4326")
    assert by_object is not first
    assert by_object.transform(*MGA56_POINT) == fresh.transform(*MGA56_POINT)


def test_the_shared_transformer_gives_every_thread_the_same_answer():
    shared = transformer_between("EPSG:4326", "EPSG:28356")
    expected = shared.transform(151.75, -32.68)
    answers: list[tuple[float, float]] = []

    threads = [threading.Thread(target=lambda: answers.append(shared.transform(151.75, -32.68))) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert answers == [expected] * 4
