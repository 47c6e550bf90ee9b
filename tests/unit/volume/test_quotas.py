import pytest

from novalite.db import session
from novalite.volume import errors, quotas, states
from tests.unit.volume.builders import make_volume


def test_usage_counts_volumes_and_their_gigabytes_against_limits(db, conf):
    make_volume(states.AVAILABLE, size=3)
    with session.writer() as s:
        assert quotas.usage(s, "p1") == {"volumes": 1, "snapshots": 0, "gigabytes": 3}
        assert quotas.limits(s, "p1") == {"volumes": 10, "snapshots": 10, "gigabytes": 1000}
        quotas.update(s, "p1", {"gigabytes": 4})
        quotas.check(s, "p1", volumes=1, gigabytes=1)
        with pytest.raises(errors.VolumeSizeExceedsAvailableQuota):
            quotas.check(s, "p1", volumes=1, gigabytes=2)
        with pytest.raises(errors.InvalidInput, match="Current usage is 3"):
            quotas.update(s, "p1", {"gigabytes": 2})
        quotas.update(s, "p1", {"gigabytes": -1, "volumes": 1})
        with pytest.raises(errors.VolumeLimitExceeded):
            quotas.check(s, "p1", volumes=1, gigabytes=100)
        quotas.reset(s, "p1")
        assert quotas.limits(s, "p1")["volumes"] == 10
