"""benchmarks/search_speed.py runs and reports what its docs say (a smoke test: no timing is checked)."""
import importlib.util
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[2]


def load_benchmark():
    spec = importlib.util.spec_from_file_location("search_speed", ROOT / "benchmarks" / "search_speed.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_search_speed_reports_each_variant_and_thread_count(capsys):
    bench = load_benchmark()
    assert bench.main(["--games", "koi", "--batch", "6", "--simulations", "3", "--repeats", "1",
                       "--threads", "1", "--in-flight", "1", "2"]) == 0
    lines = capsys.readouterr().out.splitlines()
    rows = [line for line in lines if "simulations/s" in line]
    assert [row.split()[:2] for row in rows] == [["koi", "{'board_size':"], ["koi", "in_flight=2"]]
    assert "ms a search" in rows[0] and "x the time of the first variant" in rows[1]
