"""POST /snapshots/{id}/action: Cinder's os-update_snapshot_status (what Nova reports of
an assisted snapshot) with Cinder's rule that only a snapshot being made or removed
takes a report, and only a step of that, its texts and its progress format; Cinder's
admin actions novalite lacks answer 501."""

from __future__ import annotations

import httpx
import pytest
from sqlalchemy import update

from novalite.db import session
from novalite.db.models import volume as models


@pytest.fixture
def snapshot(cloud, client):
    volume = client.post("/volumes", json={"volume": {"size": 1}}).json()["volume"]
    cloud.settle()
    made = client.post("/snapshots", json={"snapshot": {"volume_id": volume["id"]}})
    cloud.settle()
    return made.json()["snapshot"]["id"]


def _report(client: httpx.Client, snapshot_id: str, **asked) -> httpx.Response:
    return client.post(f"/snapshots/{snapshot_id}/action",
                       json={"os-update_snapshot_status": asked})


def _set(snapshot_id: str, status: str) -> None:
    with session.writer() as s:
        s.execute(update(models.Snapshot).where(models.Snapshot.id == snapshot_id)
                  .values(status=status))


def _message(response: httpx.Response, code: int) -> str:
    assert response.status_code == code, response.text
    return str(response.json()["badRequest" if code == 400 else "notImplemented"]["message"])


def test_a_snapshot_being_made_takes_a_report_with_its_progress(client, snapshot):
    _set(snapshot, "creating")
    assert _report(client, snapshot, status="creating", progress="90%").status_code == 202
    shown = client.get(f"/snapshots/{snapshot}").json()["snapshot"]
    assert (shown["status"], shown["os-extended-snapshot-attributes:progress"]) == (
        "creating", "90%")
    assert _report(client, snapshot, status="available").status_code == 202
    assert _message(_report(client, snapshot, status="creating"), 400) == (
        "Snapshot status available not allowed for update_snapshot_status")
    _set(snapshot, "deleting")
    assert _message(_report(client, snapshot, status="available"), 400) == (
        "Provided snapshot status available not allowed for snapshot with status deleting.")
    assert _report(client, snapshot, status="error_deleting").status_code == 202


@pytest.mark.parametrize(("progress", "why"), [
    ("90", "progress must be an integer percentage between 0 and 100"),
    ("101%", "progress must be an integer percentage between 0 and 100"),
    ("x%", "progress must be an integer percentage"),
])
def test_progress_is_an_integer_percentage(client, snapshot, progress, why):
    _set(snapshot, "creating")
    assert _message(_report(client, snapshot, status="creating", progress=progress),
                    400) == f"Invalid input received: {why}"


def test_unknown_snapshots_and_actions(client, snapshot):
    assert _report(client, "nope", status="creating").status_code == 404
    assert "os-reset_status" in _message(client.post(
        f"/snapshots/{snapshot}/action", json={"os-reset_status": {"status": "error"}}), 501)
    assert _message(client.post(f"/snapshots/{snapshot}/action", json={"fly": {}}),
                    400) == "There is no such action: fly"
