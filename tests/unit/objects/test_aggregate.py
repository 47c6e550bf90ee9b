"""An aggregate's zone is its `availability_zone` metadata, absent when it has none."""

from tests import builders


def test_an_aggregates_zone_is_its_metadata_key():
    assert builders.aggregate(metadata={"availability_zone": "az1"}).availability_zone == "az1"
    assert builders.aggregate(metadata={"ssd": "true"}).availability_zone is None
