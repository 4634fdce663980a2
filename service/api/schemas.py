"""Request and response models: Base -> Create / Public per resource."""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from calibration.table import list_specs
from service import judging


def known_table(v: str) -> str:
    """A table preset name, or a clear error naming the presets."""
    if v not in list_specs():
        raise ValueError(f"unknown table {v!r}; one of {', '.join(list_specs())}")
    return v


MAX_NAME = 100  # characters of a player's name
MAX_INPUT_BYTES = 64_000  # one referee input line (a note, a stated position of every ball, a long reason)


class MatchBase(BaseModel):
    name: str = Field(min_length=1, max_length=200)
    game: str = Field(default="russian71", min_length=1, max_length=50)
    table: str = Field(default="pyramid-12ft")
    players: list[str] = Field(default_factory=lambda: ["A", "B"], min_length=2, max_length=2)

    @field_validator("table")
    @classmethod
    def _known_table(cls, v: str) -> str:
        return known_table(v)

    @field_validator("game")
    @classmethod
    def _known_game(cls, v: str) -> str:
        return judging.canonical_game(v)

    @field_validator("players")
    @classmethod
    def _players(cls, v: list[str]) -> list[str]:
        if any(not p.strip() for p in v) or v[0] == v[1]:
            raise ValueError("two distinct, non-empty player names are needed")
        if any(len(p) > MAX_NAME for p in v):
            raise ValueError(f"a player name is at most {MAX_NAME} characters")
        return v


class MatchCreate(MatchBase):
    model_config = ConfigDict(extra="forbid")


class MatchPublic(MatchBase):
    id: int
    created_at: str
    state: dict[str, Any] | None = None
    report_url: str | None = None


class LogEntryPublic(BaseModel):
    seq: int
    kind: str
    type: str
    data: dict[str, Any]
    created_at: str


class EventsCreate(BaseModel):
    """Ball events (rules.events dicts) to append; validated one by one."""

    model_config = ConfigDict(extra="forbid")
    events: list[dict[str, Any]] = Field(min_length=1, max_length=10_000)


class InputBase(BaseModel):
    """A referee input: `type` (nominate, choose, override, foul, declare_frozen, ...) and its fields."""

    model_config = ConfigDict(extra="allow")
    type: str = Field(min_length=1, max_length=40)
    t: Any = None  # video seconds: checked by rules.inputs.check_fields, as the judge command checks it


class InputCreate(InputBase):
    @model_validator(mode="after")
    def _size(self) -> InputCreate:
        size = len(json.dumps(self.model_dump(exclude_none=True), default=str))
        if size > MAX_INPUT_BYTES:  # every fold and every live client reads the whole log again
            raise ValueError(f"a referee input is at most {MAX_INPUT_BYTES} bytes of JSON, this one is {size}")
        return self

    def payload(self) -> dict[str, Any]:
        d = self.model_dump(exclude_none=True)
        return d


class VerdictPublic(BaseModel):
    model_config = ConfigDict(extra="allow")
    shot: int
    outcome: str
    clauses: list[str] = Field(default_factory=list)
    explanation: str = ""
    review: bool = False


class AnalysisBase(BaseModel):
    game: str | None = None
    table: str = "pyramid-12ft"
    match_id: int | None = None

    @field_validator("table")
    @classmethod
    def _known_table(cls, v: str) -> str:
        return known_table(v)

    @field_validator("game")
    @classmethod
    def _known_game(cls, v: str | None) -> str | None:
        return None if v is None else judging.canonical_game(v)


class AnalysisCreate(AnalysisBase):
    """Analyse a video already on the service's machine (see upload for sending one)."""

    model_config = ConfigDict(extra="forbid")
    video_path: str = Field(min_length=1)


class AnalysisPublic(AnalysisBase):
    id: int
    match_id: int | None = None
    video: str
    status: str
    progress: float
    message: str
    created_at: str
    updated_at: str
    report_url: str | None = None
