"""The bench command's one summary table."""

from __future__ import annotations

from service.cli.bench import summary_table


def test_summary_shows_headlines_first_and_names_failures() -> None:
    table = summary_table({
        "verdicts": {"events": {"pot": {"recall": 0.2}}, "shots": 7, "agreement": 0.857},
        "speed": "RuntimeError: no video",
    })
    rows = [line.split() for line in table.splitlines()[2:]]
    assert rows[0][:2] == ["verdicts", "agreement"] and rows[1][:2] == ["verdicts", "shots"]
    assert ["verdicts", "events.pot.recall", "0.2"] in rows
    assert rows[-1][:2] == ["speed", "FAILED"] and "no video" in table
