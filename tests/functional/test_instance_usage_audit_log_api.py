"""/os-instance_usage_audit_log through real HTTP, against tempest's schemas: the last
completed month, every compute host not run (novalite's computes run no usage audit, as
Nova's do not by default)."""

from tests.functional.tempest_schemas import check


def test_index_and_show_report_every_compute_host_not_run(cloud):
    logs = check(cloud.api.get("/os-instance_usage_audit_log"), "v2_1",
                 "instance_usage_audit_logs", "list_instance_usage_audit_log"
                 )["instance_usage_audit_logs"]
    assert sorted(logs["hosts_not_run"]) == ["compute1", "compute2"]
    assert logs["overall_status"] == "0 of 2 hosts done. 0 errors."
    shown = check(cloud.api.get("/os-instance_usage_audit_log/2026-03-15 10:00:00"), "v2_1",
                  "instance_usage_audit_logs", "get_instance_usage_audit_log"
                  )["instance_usage_audit_log"]
    assert (shown["period_beginning"], shown["period_ending"]) == (
        "2026-02-01 00:00:00", "2026-03-01 00:00:00")


def test_a_bad_timestamp_is_a_400_and_others_are_refused(cloud):
    bad = cloud.api.get("/os-instance_usage_audit_log/yesterday")
    assert (bad.status_code, bad.json()["badRequest"]["message"]) == (
        400, "Invalid timestamp for date yesterday")
    assert cloud.api.get("/os-instance_usage_audit_log", headers={
        "X-Auth-Token": "alice:p1"}).status_code == 403
