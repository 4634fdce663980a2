"""The referee page in a real headless browser (Debian chromium driven by playwright) against a live server."""

from __future__ import annotations

import httpx
import pytest
from svc_fakes import CHROMIUM_ARGS, LiveServer
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
