"""Identities through analyze: stated positions reach vision, spotted balls of a verdict go to the tracker,
an unknown identity is said, and (slow) the real pipeline on a rendered clip started with --state."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from svc_fakes import ScriptedDetector, ScriptedPerception, scripted_stages

from calibration.table import Table
from rules.events import EventType, read_jsonl
from service import judging
from service.pipeline import identity
from service.pipeline.run import AnalyzeConfig, Stages, analyze
from vision.types import BallStates

STATED = {"C": (-1000.0, 0.0), "1": (500.0, 0.0)}


class RecordingPerception(ScriptedPerception):
    """The scripted perception, keeping what the analysis told it about identities."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, Any, float]] = []
        self.t = 0.0

    def update(self, image: np.ndarray, frame: int, t: float) -> BallStates:
        self.t = t
        return super().update(image, frame, t)

    def set_positions(self, positions: dict[str, tuple[float, float]], id_conf: float = 1.0) -> None:
        self.calls.append(("set_positions", positions, self.t))

    def expect_spotted(self, positions: dict[str, tuple[float, float]]) -> None:
        self.calls.append(("expect_spotted", positions, self.t))

    def shot_started(self) -> None:
        self.calls.append(("shot_started", None, self.t))

    def take_off(self, balls: list[str]) -> None:
        self.calls.append(("take_off", balls, self.t))


def _recording_stages(made: list[tuple[AnalyzeConfig, RecordingPerception]]) -> Any:
    def factory(cfg: AnalyzeConfig, table: Table, image: np.ndarray, fps: float) -> Stages:
        base = scripted_stages(cfg, table, image, fps)
        p = RecordingPerception()
        made.append((cfg, p))
        return Stages(base.calibration, p, ScriptedDetector())

    return factory


def spotting_judge(log: list[dict[str, Any]], game: str) -> judging.MatchFold:
    """Every shot is a foul that spots ball 1 on the rear spot."""
    n = sum(1 for d in log if d.get("type") == "shot_end")
    spot = {"ball": "1", "x": 889.0, "y": 0.0}
    vs = tuple(judging.VerdictView(i + 1, "foul", ("1.15",), "spotted", raw={"spotted": [spot]}) for i in range(n))
    return judging.MatchFold(game, vs, {"A": 0, "B": 0}, "A", ())


def test_state_balls_reach_the_perception_stage(clip: Path, tmp_path: Path) -> None:
    made: list[tuple[AnalyzeConfig, RecordingPerception]] = []
    state = {"score": {"A": 3, "B": 1}, "balls": {b: list(xy) for b, xy in STATED.items()}}
    res = analyze(AnalyzeConfig(clip, tmp_path / "out", state=state, annotate=False), None,
                  _recording_stages(made), spotting_judge)
    cfg, perception = made[0]
    assert cfg.positions == STATED
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["identity"] == "stated"
    assert any("from the stated position (--state)" in n for n in res.notes)
    # every verdict's spotted ball went to the tracker, after the shot that spotted it ended
    spotted = [c for c in perception.calls if c[0] == "expect_spotted"]
    assert len(spotted) == len(res.verdicts) == 3
    assert all(c[1] == {"1": (889.0, 0.0)} for c in spotted)
    assert sum(1 for c in perception.calls if c[0] == "shot_started") == 3


def test_log_state_line_is_the_start_and_a_later_one_a_statement(clip: Path, tmp_path: Path) -> None:
    made: list[tuple[AnalyzeConfig, RecordingPerception]] = []
    later = {"1": [700.0, 100.0], "C": [-500.0, 0.0]}
    inputs: list[dict[str, Any]] = [{"type": "match", "game": "free", "players": ["A", "B"], "breaker": "A"},
                                     {"type": "state", "t": 0.0, "balls": {b: list(xy) for b, xy in STATED.items()}},
                                     {"type": "state", "t": 2.0, "balls": later}]
    analyze(AnalyzeConfig(clip, tmp_path / "out", inputs=inputs, annotate=False), None, _recording_stages(made),
            spotting_judge)
    cfg, perception = made[0]
    assert cfg.positions == STATED
    stated = [c for c in perception.calls if c[0] == "set_positions"]
    assert len(stated) == 1
    assert stated[0][1] == {"1": (700.0, 100.0), "C": (-500.0, 0.0)}
    # told just before the first frame at or after its time: the last frame the tracker saw is the one before
    assert 2.0 - 1.5 / 30 <= stated[0][2] < 2.0


def test_identify_line_states_some_balls_at_its_time(clip: Path, tmp_path: Path) -> None:
    """`identify` (some balls, e.g. re-spotted by hand) goes to vision at its time and is never the opening
    position map; one without t is applied once the tracker holds the balls (START_S); the verdicts do not
    change (the engine judges nothing from it)."""
    made: list[tuple[AnalyzeConfig, RecordingPerception]] = []
    inputs: list[dict[str, Any]] = [{"type": "identify", "balls": {"1": [500.0, 0.0]}},
                                     {"type": "identify", "t": 2.5, "balls": {"1": [700.0, 100.0]}}]
    res = analyze(AnalyzeConfig(clip, tmp_path / "out", inputs=inputs, annotate=False), None,
                  _recording_stages(made), spotting_judge)
    cfg, perception = made[0]
    assert cfg.positions is None and json.loads((tmp_path / "out" / "summary.json").read_text())["identity"] == \
        "unknown"
    stated = [c for c in perception.calls if c[0] == "set_positions"]
    assert [c[1] for c in stated] == [{"1": (500.0, 0.0)}, {"1": (700.0, 100.0)}]
    assert identity.START_S - 1.5 / 30 <= stated[0][2] < identity.START_S
    assert 2.5 - 1.5 / 30 <= stated[1][2] < 2.5
    plain = analyze(AnalyzeConfig(clip, tmp_path / "plain", annotate=False), None, _recording_stages([]),
                    judging.fold)
    with_identify = analyze(AnalyzeConfig(clip, tmp_path / "with", inputs=inputs, annotate=False), None,
                            _recording_stages([]), judging.fold)
    assert plain.verdicts and [v.to_dict() for v in with_identify.verdicts] == [v.to_dict() for v in plain.verdicts]
    assert res.verdicts


def test_a_ball_taken_off_by_hand_is_told_to_vision_at_its_time(clip: Path, tmp_path: Path) -> None:
    """A penalty ball (or a ball removed for a potted cue ball) leaves the table by hand: vision is told
    then, so the track of a ball nobody sees any more does not live on (and revive on a hand)."""
    made: list[tuple[AnalyzeConfig, RecordingPerception]] = []
    inputs: list[dict[str, Any]] = [{"type": "penalty_ball", "t": 1.5, "ball": "1"},
                                     {"type": "remove_ball", "t": 2.5, "ball": 3}]
    analyze(AnalyzeConfig(clip, tmp_path / "out", inputs=inputs, annotate=False), None, _recording_stages(made),
            spotting_judge)
    taken = [c for c in made[0][1].calls if c[0] == "take_off"]
    assert [c[1] for c in taken] == [["1"], ["3"]]
    assert 1.5 - 1.5 / 30 <= taken[0][2] < 1.5 and 2.5 - 1.5 / 30 <= taken[1][2] < 2.5


def test_unknown_identities_are_said(clip: Path, tmp_path: Path) -> None:
    made: list[tuple[AnalyzeConfig, RecordingPerception]] = []
    res = analyze(AnalyzeConfig(clip, tmp_path / "out", annotate=False), None, _recording_stages(made),
                  spotting_judge)
    assert made[0][0].positions is None
    assert json.loads((tmp_path / "out" / "summary.json").read_text())["identity"] == "unknown"
    assert any("ball ids: UNKNOWN" in n for n in res.notes)


@pytest.mark.parametrize("balls, msg", [({"16": [0, 0]}, "'16'"), ({"3": [1.0]}, "ball '3'"), (5, "balls must be")])
def test_bad_stated_balls_are_named(balls: Any, msg: str) -> None:
    with pytest.raises(ValueError, match=msg):
        identity.statements({"balls": balls}, [])
    with pytest.raises(ValueError, match=r"referee input 1 \(identify\)"):
        identity.statements(None, [{"type": "identify", "t": 3.0, "balls": balls}])


# --- the real pipeline on a rendered clip -----------------------------------------------------------------
@pytest.fixture(scope="module")
def cut_pot(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    """A cut pot from a two-ball position rendered small; the video alone in its folder (no truth.json
    beside it, so analyze sees only what --state says), and the truth."""
    from synthetic.make import make_case

    case = make_case("legal_cut_pot", 4, tmp_path_factory.mktemp("case") / "cut", fps=30.0, size=(640, 360))
    alone = tmp_path_factory.mktemp("alone")
    shutil.copy(case / "video.mp4", alone / "video.mp4")
    return alone / "video.mp4", json.loads((case / "truth.json").read_text())


def _analyze(video: Path, out: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "service.cli.main", "analyze", str(video), "--out", str(out),
                           "--no-video", "--game", "russian71", *extra], capture_output=True, text=True, timeout=600)


@pytest.mark.slow
def test_analyze_with_state_names_the_potted_ball(cut_pot: tuple[Path, dict[str, Any]], tmp_path: Path) -> None:
    video, truth = cut_pot
    line = next(d for d in truth["log"] if d.get("type") == "state")
    (tmp_path / "state.json").write_text(json.dumps({"balls": line["balls"], "to_play": "A"}))
    true_pots = sorted(str(e["ball"]) for e in truth["events"] if e["type"] == "pot")
    assert true_pots and true_pots != ["1"]  # a ball the rack fallback would not name by chance

    proc = _analyze(video, tmp_path / "with", "--state", str(tmp_path / "state.json"))
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "ball ids: from the stated position (--state)" in proc.stdout
    with (tmp_path / "with" / "events.jsonl").open() as f:
        events = list(read_jsonl(f))
    assert sorted(str(e.ball) for e in events if e.type is EventType.POT) == true_pots
    start = next(e for e in events if e.type is EventType.SHOT_START)
    assert start.positions is not None and set(start.positions) == set(line["balls"])

    proc = _analyze(video, tmp_path / "without")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "ball ids: UNKNOWN" in proc.stdout
