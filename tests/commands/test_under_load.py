"""benchmarks/under_load.py runs and reports what its docs say (a smoke test: no timing is checked)."""
import importlib.util
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_under_load_reports_each_load_and_the_cold_start(capsys):
    spec = importlib.util.spec_from_file_location("under_load", ROOT / "benchmarks" / "under_load.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    assert bench.main(["--tasks", "eval", "cold", "--loads", "same", "idle", "--repeats", "1",
                       "--games", "koi"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("hardware: ")
    rows = [line.split() for line in out.splitlines() if line.startswith("eval ")]
    assert [r[1] for r in rows] == ["idle", "same"]  # idle first: the others are its multiples
    assert rows[0][3:5] == ["ms", "per"] and rows[0][6:8] == ["1.00x", "idle"]
    cold = next(line.split() for line in out.splitlines() if line.startswith("koi "))
    assert float(cold[1]) > 0 and float(cold[2]) > 0
