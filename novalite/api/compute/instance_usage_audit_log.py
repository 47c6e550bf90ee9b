"""Handlers of /os-instance_usage_audit_log (admin): how far each compute host got with
the usage audit of the last completed audit period (a month, Nova's default period).

novalite's computes do not run Nova's usage audit, as Nova's do not by default
(`instance_usage_audit` is off): every compute host is reported as not run, with no
instances and no errors, which is what an operator of a default Nova sees.
"""

from __future__ import annotations

import datetime

from novalite.api import policy
from novalite.api.faults import HTTPFault
from novalite.api.request import ApiRequest, ApiResponse
from novalite.db.api import services
from novalite.timeutils import utcnow

RULE = "os_compute_api:os-instance-usage-audit-log:{}"


def _month_before(moment: datetime.datetime) -> datetime.datetime:
    return moment.replace(year=moment.year - 1, month=12) if moment.month == 1 \
        else moment.replace(month=moment.month - 1)


def last_completed_period(before: datetime.datetime) -> tuple[datetime.datetime,
                                                               datetime.datetime]:
    """The last whole month (from the 1st, UTC) that ended before `before`."""
    end = datetime.datetime(before.year, before.month, 1)
    if end >= before:
        end = _month_before(end)
    return _month_before(end), end


def _audit(before: datetime.datetime) -> dict:
    begin, end = last_completed_period(before)
    hosts = sorted({s.host for s in services.service_get_all("novalite-compute")})
    return {"period_beginning": str(begin), "period_ending": str(end),
            "num_hosts": len(hosts), "num_hosts_done": 0, "num_hosts_running": 0,
            "num_hosts_not_run": len(hosts), "hosts_not_run": hosts,
            "total_instances": 0, "total_errors": 0,
            "overall_status": f"{'ALL' if not hosts else f'0 of {len(hosts)}'} hosts done. "
                              "0 errors.",
            "log": {}}


def index(req: ApiRequest) -> ApiResponse:
    policy.authorize(req.ctx, RULE.format("list"))
    return ApiResponse(200, {"instance_usage_audit_logs": _audit(utcnow())})


def show(req: ApiRequest) -> ApiResponse:
    """The period that ended last before `{before}` ("YYYY-MM-DD hh:mm:ss[.ffffff]")."""
    policy.authorize(req.ctx, RULE.format("show"))
    before = req.params["before"]
    try:
        moment = datetime.datetime.strptime(
            before, "%Y-%m-%d %H:%M:%S.%f" if "." in before else "%Y-%m-%d %H:%M:%S")
    except ValueError:
        raise HTTPFault(400, f"Invalid timestamp for date {before}") from None
    return ApiResponse(200, {"instance_usage_audit_log": _audit(moment)})
