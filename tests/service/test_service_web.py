"""The referee page in a real headless browser (Debian chromium driven by playwright) against a live server."""

from __future__ import annotations

import http.server
import threading
import time
from pathlib import Path

import httpx
import pytest
from svc_fakes import CHROMIUM_ARGS, LiveServer, write_video
from test_service_api import legal_break, miss


@pytest.fixture
def page(chromium_path: str):  # type: ignore[no-untyped-def]
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium_path, args=CHROMIUM_ARGS, headless=True)
        try:
            pg = browser.new_page()
            pg.set_default_timeout(15_000)
            yield pg
        finally:
            browser.close()


def test_referee_page_shows_live_verdicts_and_records_inputs(live_server: LiveServer, page) -> None:  # type: ignore[no-untyped-def]
    api = httpx.Client(base_url=live_server.url, timeout=10)
    mid = api.post("/matches", json={"name": "final"}).json()["id"]
    api.post(f"/matches/{mid}/events", json={"events": legal_break()})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))

    page.goto(f"{live_server.url}/?match={mid}")
    page.wait_for_selector("[data-testid=conn].on")  # the live feed is connected
    page.wait_for_selector("[data-testid=verdicts] tr")
    assert "legal" in page.inner_text("[data-testid=verdicts]")
    assert "final" in page.inner_text("[data-testid=matches]")

    # a foul arrives while the page is open: verdict, score and decisions owed update live
    api.post(f"/matches/{mid}/events", json={"events": miss(7.0)})
    page.wait_for_function("document.querySelectorAll('[data-testid=verdicts] tr').length === 2")
    assert "1.5.3" in page.inner_text("[data-testid=verdicts]")
    page.wait_for_function("document.querySelector('[data-testid=score]').textContent.includes('5')")
    assert "choice" in page.inner_text("[data-testid=owed]")

    # the referee nominates with the buttons: the input is recorded through the API
    page.select_option("[data-testid=nominate-form] select[name=ball]", "7")
    page.select_option("[data-testid=nominate-form] select[name=pocket]", "rear_left")
    page.click("[data-testid=nominate]")
    page.wait_for_selector("[data-testid=input-result].ok")
    inputs = api.get(f"/matches/{mid}/inputs").json()
    assert inputs[-1]["data"] == {"type": "nominate", "ball": "7", "pocket": "rear_left"}

    # an override without a reason is refused by the page's form; with one it is recorded and re-folds
    page.fill("form[data-type=override] input[name=shot]", "2")
    page.select_option("form[data-type=override] select[name=outcome]", "legal")
    page.fill("[data-testid=override-reason]", "cue ball grazed the 9")
    page.click("[data-testid=override]")
    page.wait_for_function(
        "[...document.querySelectorAll('[data-testid=verdicts] tr')].at(-1).textContent.includes('legal')")
    assert api.get(f"/matches/{mid}/verdicts").json()[1]["outcome"] == "legal"
    assert errors == []


def test_review_flag_shows_its_evidence_and_a_ball_place_is_stated(live_server: LiveServer, page) -> None:  # type: ignore[no-untyped-def]
    api = httpx.Client(base_url=live_server.url, timeout=10)
    mid = api.post("/matches", json={"name": "review"}).json()["id"]
    events = legal_break()
    events[1]["confidence"] = 0.3  # the first contact is uncertain: the verdict is flagged for review
    api.post(f"/matches/{mid}/events", json={"events": events})
    reasons = api.get(f"/matches/{mid}/verdicts").json()[0]["review_reasons"]
    assert reasons and "confidence 0.30" in reasons[0]
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{live_server.url}/?match={mid}")
    page.wait_for_selector("[data-testid=verdicts] tr.review [data-testid=review-reasons] li")
    assert page.inner_text("[data-testid=verdicts] tr.review [data-testid=review-reasons]").strip() == reasons[0]
    # the feed says the verdict once, with its flag, however often the match is re-folded
    page.wait_for_function("document.querySelector('[data-testid=conn]').classList.contains('on')")
    api.post(f"/matches/{mid}/inputs", json={"type": "nominate", "ball": "3", "pocket": "rear_left"})
    page.wait_for_function("document.querySelector('[data-testid=feed]').textContent.includes('nominate')")
    feed = page.inner_text("[data-testid=feed]")
    assert feed.count("verdict shot 1: legal") == 1 and "(review)" in feed

    # "ball 7 is here", from the page: an identify input, recorded and shown in the feed
    page.select_option("[data-testid=identify-form] select[name=ball]", "7")
    page.fill("[data-testid=identify-form] input[name=x]", "700")
    page.fill("[data-testid=identify-form] input[name=y]", "-120.5")
    page.fill("[data-testid=identify-form] input[name=t]", "12.5")
    page.click("[data-testid=identify]")
    page.wait_for_selector("[data-testid=input-result].ok")
    assert api.get(f"/matches/{mid}/inputs").json()[-1]["data"] == {"type": "identify", "t": 12.5,
                                                                    "balls": {"7": [700, -120.5]}}
    page.wait_for_function("document.querySelector('[data-testid=feed]').textContent.includes('identify')")
    # off the bed: refused, with the reason on the page
    page.fill("[data-testid=identify-form] input[name=x]", "9000")
    page.click("[data-testid=identify]")
    page.wait_for_selector("[data-testid=input-result].err")
    assert "off the bed" in page.inner_text("[data-testid=input-result]")
    assert errors == []


class Unavailable:
    """A stand-in on the service's port that answers every request with 503, as a proxy does while the
    service restarts."""

    def __init__(self, port: int) -> None:
        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                self.send_response(503)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        http.server.ThreadingHTTPServer.allow_reuse_address = True
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> Unavailable:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)


def test_page_reconnects_after_a_server_restart_and_misses_nothing(tmp_path: Path, page) -> None:  # type: ignore[no-untyped-def]
    srv = LiveServer(tmp_path / "data").start()
    try:
        api = httpx.Client(base_url=srv.url, timeout=10)
        mid = api.post("/matches", json={"name": "restart"}).json()["id"]
        api.post(f"/matches/{mid}/events", json={"events": legal_break()})
        page.goto(f"{srv.url}/?match={mid}")
        page.wait_for_selector("[data-testid=conn].on")
        page.wait_for_selector("[data-testid=verdicts] tr")
    finally:
        srv.stop()
    page.wait_for_function("!document.querySelector('[data-testid=conn]').classList.contains('on')")
    # meanwhile a proxy answers 503 (the browser's EventSource then gives up for good): the page retries itself
    with Unavailable(srv.port):
        page.wait_for_function("document.querySelector('[data-testid=conn]').textContent.includes('retrying')")
    srv2 = LiveServer(tmp_path / "data", port=srv.port).start()
    try:
        page.wait_for_selector("[data-testid=conn].on")  # the page reconnected by itself
        httpx.post(f"{srv2.url}/matches/{mid}/events", json={"events": miss(7.0)}, timeout=10)
        page.wait_for_function("document.querySelectorAll('[data-testid=verdicts] tr').length === 2")
        assert "1.5.3" in page.inner_text("[data-testid=verdicts]")
        feed = page.inner_text("[data-testid=feed]")
        # every log line once: the reconnect replayed only what came after the last line it had
        assert feed.count("shot_start") == 2 and feed.count("shot_end") == 2 and feed.count("cushion") == 3
        assert feed.count("verdict shot 1:") == 1 and feed.count("verdict shot 2:") == 1
    finally:
        srv2.stop()


def test_upload_from_the_page_refuses_a_non_video_and_analyses_a_video(live_server: LiveServer, page,  # type: ignore[no-untyped-def]
                                                                       tmp_path: Path) -> None:
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(live_server.url)
    (tmp_path / "notes.mp4").write_text("not a video")
    page.set_input_files("[data-testid=upload-form] input[name=file]", str(tmp_path / "notes.mp4"))
    page.click("[data-testid=upload]")
    page.wait_for_selector("[data-testid=analysis-status].err")
    assert "not a readable video" in page.inner_text("[data-testid=analysis-status]")

    page.set_input_files("[data-testid=upload-form] input[name=file]", str(write_video(tmp_path / "clip.mp4", 120)))
    page.click("[data-testid=upload]")
    page.wait_for_function("document.querySelectorAll('[data-testid=verdicts] tr').length === 3", timeout=60_000)
    page.wait_for_function(
        "document.querySelector('[data-testid=analysis-status]').textContent.includes('done')", timeout=60_000)
    page.wait_for_selector("#report a[href$='/report']")
    # opened later (another referee, or after a restart): the match's analysis and its status are shown
    mid = httpx.get(f"{live_server.url}/analyses", timeout=10).json()[0]["match_id"]
    page.goto(f"{live_server.url}/?match={mid}")
    page.wait_for_function(
        "document.querySelector('[data-testid=analysis-status]').textContent.includes('done')")
    assert errors == []


def test_the_page_shows_who_won_the_lag(live_server: LiveServer, page) -> None:  # type: ignore[no-untyped-def]
    """A lag has no verdict row (it is no shot): the page says who won it, from the engine's lag verdict."""
    import json

    truth = json.loads((Path(__file__).parents[2] / "sample_videos" / "lag_for_break" / "truth.json").read_text())
    api = httpx.Client(base_url=live_server.url, timeout=10)
    mid = api.post("/matches", json={"name": "lag"}).json()["id"]
    assert api.post(f"/matches/{mid}/inputs", json={"type": "lag", "balls": {"C": "A", "1": "B"}}).status_code == 201
    assert api.post(f"/matches/{mid}/events", json={"events": truth["events"]}).status_code == 201
    winner = api.get(f"/matches/{mid}").json()["state"]["lags"][0]["winner"]
    page.goto(f"{live_server.url}/?match={mid}")
    page.wait_for_function("document.querySelector('[data-testid=lag]').textContent.includes('won by')")
    assert page.inner_text("[data-testid=lag]") == f"lag (break) won by {winner}"
    assert "lag_choice" in page.inner_text("[data-testid=owed]")


def test_live_feed_shows_a_review_flag_its_evidence_and_a_knocked_camera(live_server: LiveServer, page) -> None:  # type: ignore[no-untyped-def]
    """With the page open: a verdict arriving flagged shows its reasons at once; then a `camera` line (the
    analysis saw the camera knocked) flags the verdicts after it live, and the page says the match is degraded."""
    api = httpx.Client(base_url=live_server.url, timeout=10)
    mid = api.post("/matches", json={"name": "live review"}).json()["id"]
    api.post(f"/matches/{mid}/events", json={"events": legal_break()})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{live_server.url}/?match={mid}")
    page.wait_for_selector("[data-testid=conn].on")
    page.wait_for_selector("[data-testid=verdicts] tr")
    assert page.query_selector("[data-testid=verdicts] tr.review") is None

    # a second shot, arriving while the page is open, that is legal (2a) if C met 4, a foul (1.5.3) if not: its
    # first contact vision is unsure of decides it
    shot = miss(7.0)
    shot[1:1] = [{"type": "ball_contact", "t": 7.5, "frame": 450, "balls": ["C", "4"], "confidence": 0.3},
                 {"type": "cushion", "t": 7.8, "frame": 468, "ball": "4", "cushion": "rear"},
                 {"type": "cushion", "t": 8.2, "frame": 492, "ball": "4", "cushion": "left_rear"}]
    api.post(f"/matches/{mid}/events", json={"events": shot})
    row2 = "[data-testid=verdicts] tr[data-shot='2']"
    page.wait_for_selector(f"{row2}.review [data-testid=review-reasons] li")
    reasons = api.get(f"/matches/{mid}/verdicts").json()[1]["review_reasons"]
    assert reasons and "confidence 0.30" in reasons[0]
    assert page.inner_text(f"{row2} [data-testid=review-reasons]").strip() == "\n".join(reasons)
    page.wait_for_function("document.querySelector('[data-testid=feed]').textContent.includes('verdict shot 2')")
    assert "(review)" in next(x for x in page.inner_text("[data-testid=feed]").splitlines() if "verdict shot 2" in x)

    api.post(f"/matches/{mid}/inputs", json={"type": "camera", "t": 6.0, "status": "moved", "why": "a test knock"})
    page.wait_for_function(f"document.querySelector(\"{row2} [data-testid=review-reasons]\").textContent"
                           ".includes('camera moved at 6.00 s')")
    page.wait_for_selector("[data-testid=degraded]:not([hidden])")
    assert "camera moved at 6.00 s" in page.inner_text("[data-testid=degraded]")
    assert "CAMERA MOVED at 6.00s" in page.inner_text("[data-testid=feed]")
    assert page.query_selector("[data-testid=verdicts] tr[data-shot='1'].review") is None  # over before 6 s
    page.reload()  # the degraded state comes back from the log's replay
    page.wait_for_selector("[data-testid=degraded]:not([hidden])")
    assert errors == []


def test_report_of_a_knocked_camera_analysis_in_the_browser(tmp_path: Path, page) -> None:  # type: ignore[no-untyped-def]
    """The report page of a finished analysis, opened from the referee page's link: the degraded warning, each
    shot's verdict with its review flag (the camera reason from shot 4 on), pictures that decode, the score plot."""
    from test_service_camera import table_stages, write_clip

    srv = LiveServer(tmp_path / "data", stage_factory=table_stages).start()
    try:
        api = httpx.Client(base_url=srv.url, timeout=10)
        job = api.post("/analyses", json={"video_path": str(write_clip(tmp_path / "k.mp4", knock=True))}).json()
        deadline = time.monotonic() + 60
        while api.get(f"/analyses/{job['id']}").json()["status"] != "done" and time.monotonic() < deadline:
            time.sleep(0.2)
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(f"{srv.url}/?match={job['match_id']}")
        page.wait_for_selector("#report a")
        with page.context.expect_page() as opened:
            page.locator("#report a").click()  # a locator: the page may re-draw the link meanwhile
        report = opened.value
        report.wait_for_load_state()
        assert "Degraded analysis" in report.inner_text(".warn")
        shots = report.query_selector_all("div.shot[id^=shot-]")
        assert len(shots) == 8
        flags = [("camera moved at 4.50 s" in s.inner_text()) for s in shots]
        assert flags == [False] * 3 + [True] * 5
        assert all("review" in (s.get_attribute("class") or "") for s in shots[3:])
        assert report.query_selector(".plot svg") is not None
        imgs = report.query_selector_all("div.shot img")
        assert imgs and all(report.evaluate("(i) => i.complete && i.naturalWidth > 0", i) for i in imgs)
        assert errors == []
    finally:
        srv.stop()
