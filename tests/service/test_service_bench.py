"""The bench command's one summary table."""

from __future__ import annotations

from service.cli.bench import summary_table


def _rows(table: str) -> list[str]:
    return table.splitlines()[2:]


def test_summary_gives_each_headline_with_its_target_and_whether_it_is_met() -> None:
    table = summary_table({
        "verdicts": {"cases": 3, "shots": 7, "agree": 6, "agreement": 6 / 7, "agreement_carried": 5 / 7},
        "speed": {"frames": 600, "size": "1920x1080", "pipeline_cpu_x_realtime": 2.5, "pipeline_cpu_fps": 150.0,
                  "decode_cpu_fps": 400.0},
    }, times={"verdicts": (12.0, 10.0)})
    rows = _rows(table)
    agreement = next(r for r in rows if "verdict agreement" in r)
    assert agreement.startswith("verdicts") and "3 cases, 6/7 shots" in agreement
    assert "85.7 %" in agreement and ">= 98 %" in agreement and agreement.endswith("NO")
    realtime = next(r for r in rows if "x real time" in r)
    assert "2.50x" in realtime and realtime.endswith("yes")
    assert any("bare decode" in r and "400" in r for r in rows)
    assert any("time: wall / CPU" in r and "12 / 10 s" in r for r in rows)


def test_summary_names_failures_and_shows_benchmarks_it_has_no_rows_for() -> None:
    table = summary_table({"identity": {"right_id": 0.999}, "speed": "RuntimeError: no video"})
    rows = _rows(table)
    assert any(r.startswith("identity") and "right_id" in r and "0.999" in r for r in rows)
    assert rows[-1].startswith("speed") and "FAILED" in rows[-1] and "no video" in rows[-1]


def test_a_share_of_nothing_is_shown_as_such_not_as_a_miss() -> None:
    from bench.verdicts_bench import review_figures

    none_wrong = {"cases": 2, "shots": 5, "agree": 5, "agreement": 1.0, **review_figures(5, 5, 1, 0)}
    some_wrong = {"cases": 2, "shots": 5, "agree": 3, "agreement": 0.6, **review_figures(5, 3, 2, 1)}
    row = next(r for r in _rows(summary_table({"verdicts": none_wrong})) if "wrong verdicts among" in r)
    assert "n/a" in row and not row.endswith(("yes", "NO"))
    row = next(r for r in _rows(summary_table({"verdicts": some_wrong})) if "wrong verdicts among" in r)
    assert "50.0 %" in row and row.endswith("NO")
